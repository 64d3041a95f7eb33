"""Issue 42's "Done when": on a class with hidden tests (tests/data/class_hidden), the points rank
correct above partial above wrong, Kendall tau >= 0.8 against the hidden tests passed, in every
LMS's upload file, end to end from each LMS's download through the real ``refscore grade``.

The rubric is the teacher's shortest (``points = 10``): behaviour takes 80% of each problem's
points where it ran (its generated inputs and the teacher's inputs file, never a hidden test),
resemblance the rest. The hidden tests run in the sandbox too, as the ground truth only."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from scipy.stats import kendalltau

from refscore.cli import main
from tests import class_hidden as cls
from tests.behaviour.test_behaviour_class import hidden_pass_rate

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed"),
              pytest.mark.timeout(600)]
RUBRIC = 'title = "Week 7 (555)"\npoints = 10\n'
CORRECT, PARTIAL, WRONG = ("amy", "bo", "cy"), ("di", "ed"), ("fi",)


@pytest.fixture(scope="module")
def passed() -> dict[str, float]:
    """Each student's hidden tests passed, summed over the problems (a problem not handed in: 0)."""
    out = {}
    for person in cls.PEOPLE:
        files = cls.files_of(person)
        out[person.key] = sum(hidden_pass_rate(cls.ROOT / p, (cls.ROOT / p / "reference.py").read_text(), files[p])
                              for p in cls.PROBLEMS if p in files)
    return out


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _grade(tmp_path: Path, delivery: Path, layout: str, *extra: str) -> Path:
    mapping = cls.mapping(tmp_path / "week7.toml", delivery, layout)
    (tmp_path / "rubric.toml").write_text(RUBRIC, encoding="utf-8")
    out = tmp_path / "out"
    code = main(["grade", "--mapping", str(mapping), "--metrics", "codebleu,behaviour", "--rubric",
                 str(tmp_path / "rubric.toml"), "-o", str(out), "--progress", "none", "-q", *extra])
    assert code == 0
    return out


def _check_ranking(totals: dict[str, float], passed: dict[str, float]) -> float:
    assert set(totals) == set(passed), totals
    keys = sorted(passed)
    tau = kendalltau([passed[k] for k in keys], [totals[k] for k in keys]).statistic
    assert tau >= 0.8, (tau, totals, passed)
    assert min(totals[k] for k in CORRECT) > max(totals[k] for k in PARTIAL) > max(totals[k] for k in WRONG), totals
    return tau


def test_canvas_upload_ranks_like_the_hidden_tests(tmp_path, passed):
    delivery = cls.canvas_zip(tmp_path / "submissions.zip")
    out = _grade(tmp_path, delivery, "canvas", "--roster", str(cls.canvas_roster(tmp_path / "gradebook.csv")))
    by_id = {p.canvas_id: p for p in cls.PEOPLE}
    rows = _csv(out / "canvas.csv")
    # item 3: the gradebook export's Points Possible row and test student are no students
    assert rows[0]["Student"] == "    Points Possible" and rows[0]["Week 7 (555)"] == "30"
    rows = rows[1:]
    assert sorted(r["ID"] for r in rows) == sorted(by_id)
    assert not (out / "feedback" / "Points_Possible.html").exists() and len(list((out / "feedback").glob("*.md"))) == 8
    # item 4: the roster's names, SIS ids and sections in every output
    amy = next(r for r in rows if r["ID"] == "1001")
    assert (amy["Student"], amy["SIS User ID"], amy["SIS Login ID"], amy["Section"]) == \
        ("Adams, Amy", "S2001", "amy@uni.example", "Lab B")
    assert {r["student"] for r in _csv(out / "points.csv")} == {p.sortable for p in cls.PEOPLE}
    assert "Adams, Amy" in (out / "feedback" / "Adams_Amy_1001.md").read_text(encoding="utf-8")
    _check_ranking({by_id[r["ID"]].key: float(r["Week 7 (555)"]) for r in rows}, passed)


def test_moodle_upload_ranks_like_the_hidden_tests(tmp_path, passed):
    delivery = cls.moodle_zip(tmp_path / "submissions.zip")
    out = _grade(tmp_path, delivery, "moodle", "--roster", str(cls.moodle_roster(tmp_path / "worksheet.csv")))
    by_id = {f"Participant {p.moodle_id}": p for p in cls.PEOPLE}
    rows = _csv(out / "moodle.csv")
    # item 11: the student who handed nothing in has their Participant N too, or Moodle cannot match the row
    absent = [r for r in rows if r["Identifier"] not in by_id]
    assert [(r["Identifier"], r["Full name"], r["Grade"]) for r in absent] == \
        [(f"Participant {cls.ABSENT[1]}", cls.ABSENT[0], "0")]
    _check_ranking({by_id[r["Identifier"]].key: float(r["Grade"]) for r in rows if r not in absent}, passed)


def test_gradescope_export_ranks_like_the_hidden_tests(tmp_path, passed):
    delivery = cls.gradescope_export(tmp_path / "export")
    out = _grade(tmp_path, delivery, "gradescope")
    by_id = {p.gradescope_sid: p for p in cls.PEOPLE}
    _check_ranking({by_id[r["student_id"]].key: float(r["total"]) for r in _csv(out / "points.csv")}, passed)


def test_plain_folders_rank_like_the_hidden_tests(tmp_path, passed):
    delivery = cls.plain_folders(tmp_path / "class")
    out = _grade(tmp_path, delivery, "plain")
    points = {r["student"]: r for r in _csv(out / "points.csv")}
    # items 1 and 5: gu's dedupe does not parse (Python names line 4, tree-sitter said 5), gu's to_roman
    # imports a module that is not there: the rubric's cases, 0 points, however close to the reference
    gu = points["gu"]
    assert (gu["dedupe"], gu["to_roman"]) == ("0", "0")
    assert "dedupe: does not parse: syntax error near line 4" in gu["notes"]
    assert "to_roman: does not load: ModuleNotFoundError" in gu["notes"] and "not_running" in gu["notes"]
    # fi's dedupe is a near copy of the reference that returns its input: resemblance does not carry it
    assert float(points["fi"]["dedupe"]) < 4 < float(points["cy"]["dedupe"])
    _check_ranking({r["student"]: float(r["total"]) for r in points.values()}, passed)


def test_gradescope_autograder_results_rank_like_the_hidden_tests(tmp_path, passed):
    """Gradescope runs the autograder once per student on ``/autograder/submission``: each
    student's ``results.json`` score, from a mapping without any ``pattern``."""
    from tests.classroom.test_classroom_gradescope_autograder import autograder

    (tmp_path / "rubric.toml").write_text(RUBRIC, encoding="utf-8")
    totals = {}
    for person in cls.PEOPLE:
        root = autograder(tmp_path / person.key, person.key, {"users": [{"name": person.full,
                                                                        "sid": person.gradescope_sid}]})
        mapping = cls.mapping(root / "source" / "week7.toml", root / "submission", "gradescope")
        mapping.write_text(mapping.read_text().replace('["submission"]', f'["{root / "submission"}"]'))
        results = root / "results.json"
        assert main(["grade", "--mapping", str(mapping), "--metrics", "codebleu,behaviour", "--rubric",
                     str(tmp_path / "rubric.toml"), "--gradescope", str(results), "--allow-outside", str(root),
                     "--progress", "none", "-q", "--no-cache"]) == 0
        data = json.loads(results.read_text())
        assert data["extra_data"]["refscore"]["student"] == person.gradescope_sid
        totals[person.key] = data["score"]
    _check_ranking(totals, passed)
