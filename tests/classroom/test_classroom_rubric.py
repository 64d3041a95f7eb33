"""Issue 23 item 4: a rubric turns scores into points; adjustments are kept; a changed rubric
re-grades from the cache without scoring anything."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.errors import InputFileError
from refscore.classroom.adjustments import read_adjustments
from refscore.classroom.gradebook import build_gradebook, student_keys
from refscore.classroom.rubric import RubricError, load_rubric, rubric_from_data
from tests.data.grade.classgen import make_class

pytestmark = pytest.mark.timeout(240)


def _rubric(tmp_path: Path, text: str, name: str = "rubric.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bands_linear_percent_and_overrides(tmp_path):
    rubric = load_rubric(_rubric(tmp_path, '''
title = "Week 3"
bands = { ">= 0.85" = 10, ">= 0.6" = 7, "> 0.3" = "30%" }
[problem.hard]
points = 20
linear = { floor = 0.2, ceiling = 0.8 }
step = 0.5
[problem.half]
points = 5
'''))
    default = rubric.scheme("anything")
    assert default.metric == "refscore" and default.fallback == "codebleu" and default.points == 10
    assert [default.points_for(s)[0] for s in (0.9, 0.85, 0.7, 0.31, 0.3, 0.0)] == [10, 10, 7, 3, 0, 0]
    assert default.points_for(0.7)[1] == ">= 0.6"
    hard = rubric.scheme("hard")
    assert hard.points_for(0.2)[0] == 0 and hard.points_for(0.8)[0] == 20 and hard.points_for(0.95)[0] == 20
    assert hard.points_for(0.5)[0] == 10 and hard.points_for(0.52)[0] == 10.5  # 10.67, down to the 0.5 step
    half = rubric.scheme("half")  # the default bands, scaled to 5 points
    assert [half.points_for(s)[0] for s in (0.9, 0.7, 0.4)] == [5, 3.5, 1.5]
    assert rubric.max_total(["anything", "hard", "half"]) == 35


@pytest.mark.parametrize("text, words", [
    ('bands = { "about 0.8" = 10 }', "must read '>= 0.85'"),
    ('bands = { ">= 0.5" = 12 }', "more than the problem's 10"),
    ('bands = { ">= 0.3" = 3, ">= 0.6" = 7 }', "from the highest threshold down"),
    ('metric = "bleu"', "unknown metric 'bleu'"),
    ('points = -1', "'points' must be a number"),
    ('linear = { floor = 0.9, ceiling = 0.3 }', "floor < ceiling"),
    ('bands = { ">= 0.5" = 1 }\nlinear = { floor = 0.1 }', "not both"),
    ('pass = 2', "'pass' must be a share"),
    ('colour = "red"', "unknown key 'colour'"),
    ('[problem.a]\nweight = 3', "problem 'a': unknown key 'weight'"),
])
def test_bad_rubrics_are_one_line_errors(tmp_path, text, words):
    with pytest.raises(RubricError) as error:
        load_rubric(_rubric(tmp_path, text))
    assert words in str(error.value) and str(tmp_path / "rubric.toml") in str(error.value)


def test_a_metric_the_run_does_not_compute_is_refused(tmp_path):
    with pytest.raises(RubricError, match="not computed by this run"):
        load_rubric(_rubric(tmp_path, 'metric = "codebertscore_f1"'), ("codebleu",))


def _row(ident, problem, **scores):
    return {"id": ident, "problem": problem, "errors": scores.pop("errors", []), **scores}


def test_gradebook_points_totals_missing_errors_and_adjustments(tmp_path):
    rubric = rubric_from_data({"bands": {">= 0.8": 10, ">= 0.5": 6}, "problem": {"b": {"points": 4}}},
                              tmp_path / "r.toml")
    rows = [_row("a/class/ann.py", "a", refscore=0.9, codebleu=0.2),
            _row("a/class/bob.py", "a", codebleu=0.55),  # no RefScore: the fallback
            _row("a/class/cy.py", "a", errors=["empty submission"]),
            _row("b/class/ann.py", "b", refscore=0.6),
            _row("b/class/bob.py", "b", refscore=0.1)]
    adjust = tmp_path / "adjustments.csv"
    adjust.write_text("student,problem,adjust,comment\nbob,b,+2,good tests\ncy,a,=7,graded by hand\n"
                      "ann,,-1,late\nzed,a,+1,\n", encoding="utf-8")
    book = build_gradebook(rows, rubric, read_adjustments(adjust))
    points = {s.key: ({p: g.points for p, g in s.problems.items()}, s.total) for s in book.students}
    assert points == {"ann": ({"a": 10, "b": 2.4}, 11.4), "bob": ({"a": 6, "b": 2}, 8), "cy": ({"a": 7, "b": 0}, 7)}
    assert book.max_total == 14
    bob = book.students[1].problems["a"]
    assert bob.metric == "codebleu" and "RefScore not computed; points from CodeBLEU" in bob.notes
    assert book.students[2].problems["b"].notes == ["no submission"]
    assert book.students[2].problems["a"].auto_points == 0 and "not scored: empty submission" in \
        book.students[2].problems["a"].notes
    assert any("no student 'zed'" in n for n in book.notes)


def test_student_keys_use_the_shortest_tail_that_tells_students_apart():
    rows = [{"id": "p/class/ann/main.py", "problem": "p"}, {"id": "p/class/bob/main.py", "problem": "p"},
            {"id": "q/ann.py", "problem": "q"}, {"id": "q/x", "problem": "q", "student": "Bo B", "student_id": "42"}]
    assert [k for k, _, _ in student_keys(rows)] == ["ann/main", "bob/main", "ann", "42"]


def test_bad_adjustments_name_the_line(tmp_path):
    path = tmp_path / "adjust.csv"
    path.write_text("student,problem,adjust,comment\nann,a,lots,\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"line 2: adjust 'lots' must be \+N, -N or =N"):
        read_adjustments(path)
    missing = tmp_path / "new" / "adjustments.csv"
    assert read_adjustments(missing, tmp_path) == [] and missing.read_text() == "student,problem,adjust,comment\n"


def _points(path: Path) -> dict[str, dict[str, str]]:
    return {r["student"]: r for r in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))}


def test_changing_the_rubric_regrades_from_the_cache_without_scoring(tmp_path, monkeypatch, capsys):
    gen = make_class(tmp_path / "class")
    rubric = _rubric(tmp_path, 'bands = { ">= 0.85" = 10, ">= 0.5" = 5 }\nadjustments = "adjust.csv"\n')
    out = tmp_path / "out"
    args = ["grade", "--mapping", str(gen.mapping), "--metrics", "codebleu", "-o", str(out), "--rubric", str(rubric),
            "--progress", "none"]
    assert main(args) == 0
    first = _points(out / "points.csv")
    assert first["copy"]["running_max"] == "10" and first["copy"]["total"] == "20"
    assert (tmp_path / "adjust.csv").read_text() == "student,problem,adjust,comment\n"  # created for the teacher
    (tmp_path / "adjust.csv").write_text("student,problem,adjust,comment\ns01_loop,running_max,=9,by hand\n")
    capsys.readouterr()

    from refscore.scoring import scorer

    def no_scoring(*_args, **_kwargs):
        raise AssertionError("a re-grade must not score")

    monkeypatch.setattr(scorer.LocalScorer, "score_many", no_scoring)
    rubric.write_text('adjustments = "adjust.csv"\n[problem.running_max]\npoints = 4\n'
                      'linear = { floor = 0.0, ceiling = 1.0 }\n', encoding="utf-8")
    assert main(args) == 0
    said = capsys.readouterr().out
    assert "36 from earlier runs" in said
    second = _points(out / "points.csv")
    assert second["copy"]["running_max"] == "4" and second["copy"]["max_total"] == "14"
    assert second["s01_loop"]["running_max"] == "9" and "adjusted =9" in second["s01_loop"]["notes"]
    assert (tmp_path / "adjust.csv").read_text().endswith("=9,by hand\n")  # never rewritten
    s02 = float(second["s02_loop"]["running_max"])
    assert 0 < s02 < 4 and first["s02_loop"]["running_max"] in ("0", "5")


def test_a_one_problem_class_graded_with_r_has_no_empty_problem_names(tmp_path):
    """``-r ref.py class/ --rubric``: the one problem has no name; the grade books must not show an
    empty column name, notes starting ": ", or a note about problem ''."""
    (tmp_path / "ref.py").write_text("def add(a, b):\n    return a + b\n")
    for student in ("ada", "alan"):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "add.py").write_text("def add(x, y):\n    return x + y\n")
    (tmp_path / "class" / "grace").mkdir()
    (tmp_path / "class" / "grace" / "notes.txt").write_text("hello")
    rubric = _rubric(tmp_path, 'points = 10\nbands = { ">= 0.3" = 10 }\n')
    out = tmp_path / "out"
    code = main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "class"), "--layout", "plain",
                 "--metrics", "codebleu", "--rubric", str(rubric), "-o", str(out), "-q", "--no-cache"])
    assert code == 0
    points = list(csv.reader(io.StringIO((out / "points.csv").read_text(encoding="utf-8"))))
    assert "" not in points[0]
    assert all(not row[-1].startswith(":") for row in points[1:])
    feedback = [row[-1] for row in csv.reader(io.StringIO((out / "moodle.csv").read_text(encoding="utf-8")))][1:]
    assert feedback and all(not cell.startswith(":") for cell in feedback)


def test_points_for_code_that_does_not_parse_say_so(tmp_path):
    """Issue 42 item 5: code that does not parse earned its score's points (4/10); it is now the
    rubric's ``not_parsing`` case (0 unless the rubric says), never points for resemblance. The
    grade book's notes (points.csv, the Moodle comment) say so, and the student's page says it
    once."""
    from refscore.grade.block_score import not_parsing_warning
    from refscore.classroom.feedback import student_feedback

    rubric = rubric_from_data({"bands": {">= 0.8": 10, ">= 0.5": 6}}, tmp_path / "r.toml")
    error = "syntax error near line 2"
    rows = [_row("a/class/ann.py", "a", refscore=0.86, parse_error=error, warnings=[not_parsing_warning(error)]),
            _row("a/class/bob.py", "a", refscore=0.9, parse_error=None, warnings=[])]
    book = build_gradebook(rows, rubric, [])
    ann, bob = (s.problems["a"] for s in book.students)
    assert ann.points == 0 and ann.case == "not_parsing" and bob.points == 10  # a score of 0.86 earns nothing
    given = rubric_from_data({"bands": {">= 0.8": 10, ">= 0.5": 6}, "not_parsing": "20%"}, tmp_path / "r.toml")
    assert build_gradebook(rows, given, []).students[0].problems["a"].points == 2
    assert any("does not parse" in n and error in n for n in ann.notes) and "does not parse" in ann.summary()
    assert not any("does not parse" in n for n in bob.notes)
    page = student_feedback(book.students[0], {}, "scores", "t", 10)
    said = [m for m in [*page.problems[0].messages, *page.problems[0].warnings] if "does not parse" in m]
    assert sum("does not parse" in n for n in page.problems[0].grade.notes) + len(said) == 1


def test_a_score_just_below_a_band_is_never_shown_as_reaching_it(tmp_path):
    """A score of 0.5996 under a band ``>= 0.6`` read ``0/10 (CodeBLEU 0.600, below 0.6)`` in the
    Moodle comments, the GitHub Classroom message and the student's feedback pages: rounded to
    three places, the number a student disputes their grade with. The score the points came
    from now takes the places it needs to stay on its side of every threshold (``0.5996``)."""
    import json

    (tmp_path / "ref.py").write_text("def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ann.py").write_text("def total(xs):\n    return sum(xs)\n")
    base = ["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "subs"), "--metrics", "codebleu", "-q"]
    assert main([*base, "--json", str(tmp_path / "scores.json")]) == 0
    score = json.loads((tmp_path / "scores.json").read_text())["submissions"][0]["codebleu_native"]
    band = round(score, 3)
    assert score < band  # the case: three places round the score up onto the band
    rubric = _rubric(tmp_path, f'metric = "codebleu"\npoints = 10\nbands = {{ ">= {band}" = 10 }}\n')
    out = tmp_path / "out"
    assert main([*base, "-o", str(out), "--rubric", str(rubric), "--classroom-summary", str(tmp_path / "gh.json")]) == 1
    moodle = (out / "moodle.csv").read_text(encoding="utf-8")
    message = json.loads((tmp_path / "gh.json").read_text())["tests"][0]["message"]
    pages = [(out / "feedback" / f"ann{suffix}").read_text(encoding="utf-8") for suffix in (".md", ".html")]
    for text in (moodle, message, *pages):
        assert f"CodeBLEU {band:.3f}" not in text, text
        assert f"CodeBLEU {score:.4f}" in text, text
