"""Issue 42 items 1, 5 and 9: points from behaviour and resemblance in the parts the rubric sets,
code that does not parse or run as rubric cases of their own, the parser's own syntax-error line,
and the rubric's late policy in the points."""

from __future__ import annotations

from pathlib import Path

import pytest

from refscore.classroom.adjustments import Adjustment
from refscore.classroom.gradebook import build_gradebook
from refscore.classroom.rubric import RubricError, rubric_from_data
from refscore.scoring.checks import syntax_error_line
from refscore.scoring.pipeline import finish, prepare
from refscore.scoring.report import ScoreRequest

PATH = Path("rubric.toml")


def _row(student: str, problem: str = "p", **cells):
    return {"id": f"{problem}/{student}", "problem": problem, "student": student, "errors": cells.pop("errors", []),
            **cells}


def _points(rows, data, adjustments=()):
    book = build_gradebook(rows, rubric_from_data(data, PATH), list(adjustments))
    return book, {s.name: s.problems["p"] for s in book.students}


def test_behaviour_and_style_split_the_points():
    rows = [_row("correct_other_style", behaviour=1.0, refscore=0.2),
            _row("partial_copy", behaviour=0.5, refscore=0.95),
            _row("wrong_copy", behaviour=0.0, refscore=0.99)]
    book, grades = _points(rows, {"behaviour": 8, "style": 2, "bands": {">= 0.9": 2, ">= 0.5": 1}})
    assert book.max_total == 10
    assert {n: g.points for n, g in grades.items()} == {"correct_other_style": 8, "partial_copy": 6, "wrong_copy": 2}
    assert grades["partial_copy"].behaviour_points == 4 and grades["partial_copy"].style_points == 2
    assert "Behaviour 0.500: 4/8" in grades["partial_copy"].summary()
    assert "RefScore 0.950, the points for a score of at least 0.9: 2/2" in grades["partial_copy"].summary()


def test_behaviour_is_the_default_where_it_ran_and_resemblance_where_it_did_not():
    """A rubric of bands alone (written in the problem's points) gives behaviour 80% where it ran;
    the bands then pay the other 20%, scaled."""
    data = {"points": 10, "bands": {">= 0.8": 10, ">= 0.4": 5}}
    ran = [_row("a", behaviour=1.0, refscore=0.5), _row("b", behaviour=0.25, refscore=0.9)]
    _, grades = _points(ran, data)
    assert grades["a"].points == 9 and grades["b"].points == 4  # 8 + 1; 2 + 2
    not_run = [_row("a", refscore=0.5, behaviour_note="not run: no sandbox"), _row("b", refscore=0.9)]
    book, grades = _points(not_run, data)
    assert grades["a"].points == 5 and grades["b"].points == 10
    assert any("behaviour ran for no submission (no sandbox): every point comes from resemblance" in n
               for n in book.notes)
    book, grades = _points(not_run, {**data, "behaviour": "50%"})  # asked for, not run: said loudly
    assert grades["b"].points == 5 and any("its 5 points are 0 for every student" in n for n in book.notes)


def test_code_that_does_not_run_or_parse_is_a_case_never_similarity_points():
    load = "differs on median([3, 1, 2]): expected 2, got does not load: ModuleNotFoundError (No module named 'np')"
    indent = "differs on median([3, 1, 2]): expected 2, got does not parse: SyntaxError at line 3"
    rows = [_row("imports", behaviour=0.0, refscore=0.97, behaviour_note=load),
            _row("indent", behaviour=0.0, refscore=0.97, behaviour_note=indent),
            _row("syntax", refscore=0.97, parse_error="syntax error near line 18"),
            _row("wrong", behaviour=0.0, refscore=0.97, behaviour_note="differs on median([1]): expected 1, got 2")]
    data = {"behaviour": 8, "style": 2, "not_running": 1}
    _, grades = _points(rows, data)
    assert (grades["imports"].case, grades["imports"].points) == ("not_running", 1)
    assert (grades["indent"].case, grades["indent"].points) == ("not_parsing", 0)
    assert (grades["syntax"].case, grades["syntax"].points) == ("not_parsing", 0)
    assert "syntax error near line 18" in grades["syntax"].summary()
    assert grades["wrong"].case is None and grades["wrong"].points == pytest.approx(1.94)  # its style points only


@pytest.mark.parametrize("data, words", [
    ({"behaviour": 8, "style": 3, "points": 10}, "must add up to the problem's points (10)"),
    ({"behaviour": 12}, "'behaviour' gives 12 points, more than the problem's 10"),
    ({"style": "120%"}, "must be a share from '0%' to '100%'"),
    ({"behaviour": 8, "style": 2, "bands": {">= 0.5": 3}}, "gives 3 points, more than the problem's 2"),
    ({"not_parsing": -1}, "'not_parsing' must be a number of points"),
    ({"late": {"per_day": "10%", "every": 2}}, "'late' must be a table"),
    ({"late": {"per_day": "10%", "grace": -1}}, "'grace' must be a number of days"),
])
def test_bad_parts_are_one_line_errors(data, words):
    with pytest.raises(RubricError) as error:
        rubric_from_data(data, PATH)
    assert words in str(error.value)


def test_a_problem_override_scales_the_default_parts():
    rubric = rubric_from_data({"behaviour": 8, "style": 2, "bands": {">= 0.5": 2}, "problem": {"big": {"points": 20}}},
                              PATH)
    big = rubric.scheme("big")
    assert big.parts(False) == (16, 4) and big.style_points(0.6, 4) == (4, ">= 0.5")


def test_late_policy_takes_points_off_before_the_adjustments():
    rows = [_row("ontime", behaviour=1.0, refscore=1.0, late=False), _row("late", behaviour=1.0, refscore=1.0, late=True),
            _row("fixed", behaviour=1.0, refscore=1.0, late=True)]
    data = {"behaviour": 8, "style": 2, "late": {"per_day": "10%", "cap": 3}}
    book, grades = _points(rows, data, [Adjustment("fixed", "p", None, 9.5, "by hand", 2)])
    assert {n: g.points for n, g in grades.items()} == {"ontime": 10, "late": 9, "fixed": 9.5}
    assert grades["late"].late_points == 1 and grades["late"].auto_points == 10
    assert "late 1 day (10% of the points per day late, at most 3 points): -1" in grades["late"].summary()
    assert [s.total for s in book.students] == [10, 9, 9.5]
    _, graceful = _points(rows, {**data, "late": {"per_day": 2, "grace": 1}})
    assert graceful["late"].points == 10 and graceful["late"].late_days == 1  # the one marked day is free


@pytest.mark.parametrize("text, line", [
    ("def f(words):\n    for w in words\n        print(w)\n    return 1\n", 2),
    ("import os\n\ndef f(path):\n    with open(path) as fh\n        return fh.read()\n", 4),
    ("def f(x):\n    if x > 1:\n        return x\n    elif x < 0\n        return -x\n", 4),
    ("class A:\n    def f(self)\n        return 1\n", 2),
])
def test_the_syntax_error_line_is_the_one_python_names(text, line):
    """tree-sitter put these errors one line late (or early); Python's own parser names the line a
    student's error message shows."""
    with pytest.raises(SyntaxError) as python:
        compile(text, "s.py", "exec")
    assert python.value.lineno == line
    assert syntax_error_line(text, "python") == line
    report = finish(prepare(ScoreRequest(text, ("def f(x):\n    return x\n",), "python", metrics=())))
    assert report.checks.parse_error == f"syntax error near line {line}"  # the pipeline's checks stage


def test_late_policy_reaches_every_grade_book_from_a_canvas_late_mark(tmp_path):
    """Item 9: Canvas's ``_late_`` mark and the rubric's policy: points.csv's late columns, the
    Canvas total, the Moodle comment and the student's feedback page all read the points after it."""
    import csv
    import io
    import zipfile

    from refscore.cli import main

    (tmp_path / "ref.py").write_text("def add(a, b):\n    return a + b\n")
    with zipfile.ZipFile(tmp_path / "subs.zip", "w") as zf:
        zf.writestr("lovelaceada_1_10_add.py", "def add(a, b):\n    return a + b\n")
        zf.writestr("turingalan_late_2_11_add.py", "def add(a, b):\n    return a + b\n")
    (tmp_path / "rubric.toml").write_text('points = 10\nlate = { per_day = "25%", cap = "50%" }\n')
    out = tmp_path / "out"
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "subs.zip"), "--metrics", "codebleu",
                 "--rubric", str(tmp_path / "rubric.toml"), "-o", str(out), "-q", "--no-cache"]) == 0
    points = {r["student"]: r for r in csv.DictReader(io.StringIO((out / "points.csv").read_text()))}
    assert (points["turingalan"]["late_days"], points["turingalan"]["late_points"], points["turingalan"]["total"]) == \
        ("1", "2.5", "7.5")
    assert (points["lovelaceada"]["late_days"], points["lovelaceada"]["total"]) == ("", "10")
    canvas = (out / "canvas.csv").read_text()
    assert "turingalan,2,,,,7.5" in canvas and "lovelaceada,1,,,,10" in canvas
    moodle = (out / "moodle.csv").read_text()
    assert "late 1 day (25% of the points per day late, at most 50% of the points): -2.5" in moodle
    page = (out / "feedback" / "turingalan_2.md").read_text()
    assert "Total: 7.5 of 10 points" in page and "late 1 day (25% of the points per day late, at most 50% of the points): -2.5" in page
