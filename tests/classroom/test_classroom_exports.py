"""Issue 23 item 5: grade books an LMS imports (Canvas, Moodle, points), Gradescope's
results.json (validated against a schema written from Gradescope's documented format) and a
GitHub Classroom summary with its exit code."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import jsonschema
import pytest

from refscore.cli import main
from refscore.classroom.adjustments import Adjustment
from refscore.classroom.gradebook import build_gradebook
from refscore.classroom.lms_csv import CANVAS_HEAD, MOODLE_HEAD, canvas_csv, moodle_csv
from refscore.classroom.rubric import rubric_from_data

SCHEMA = Path(__file__).parent.parent / "data" / "classroom" / "gradescope-results.schema.json"
REFERENCE = "def total(xs):\n    result = 0\n    for x in xs:\n        result += x\n    return result\n"
pytestmark = pytest.mark.timeout(240)


def _table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _book():
    rubric = rubric_from_data({"bands": {">= 0.8": 10, ">= 0.4": 5}, "problem": {"b": {"points": 5}}},
                              Path("r.toml"))
    rows = [{"id": "a/x", "problem": "a", "student": "Ada Lovelace", "student_id": "101", "refscore": 0.9, "errors": []},
            {"id": "b/x", "problem": "b", "student": "Ada Lovelace", "student_id": "101", "refscore": 0.5, "errors": []},
            {"id": "a/y", "problem": "a", "student": "=HYPERLINK(\"x\")", "student_id": "102", "refscore": 0.1,
             "errors": [], "section": "Lab 2", "sis_user_id": "S-102"}]
    return build_gradebook(rows, rubric, [Adjustment("102", "a", 1.0, None, "tried hard", 2)])


def test_canvas_csv_columns_and_values():
    table = _table(canvas_csv(_book(), "Week 3 (1234)"))
    assert table[0] == [*CANVAS_HEAD, "Week 3 (1234)"]
    assert table[1] == ["    Points Possible", "", "", "", "", "15"]
    assert table[2] == ["Ada Lovelace", "101", "", "", "", "12.5"]
    # a formula-looking name is neutralised; roster fields the rows carry are filled
    assert table[3] == ["'=HYPERLINK(\"x\")", "102", "S-102", "", "Lab 2", "1"]


def test_moodle_csv_columns_and_values():
    table = _table(moodle_csv(_book()))
    assert table[0] == list(MOODLE_HEAD)
    assert table[1][:4] == ["Participant 101", "Ada Lovelace", "12.5", "15"]
    assert "a: 10/10 (RefScore 0.900, the points for a score of at least 0.8)" in table[1][4] and "b: 2.5/5" in table[1][4]
    assert table[2][2] == "1" and "adjusted +1: tried hard" in table[2][4]


def test_points_csv_problem_columns_never_share_a_name_with_the_total(tmp_path):
    """A mapping's problems are named after their references by default, so ``refs/total.py``
    and ``refs/notes.py`` gave points.csv the header ``student,student_id,total,notes,total,
    max_total,notes``: the first ``total`` was one problem's points, read as the student's total
    (and pandas renamed the real one ``total.1``). A problem column named like a fixed column now
    says it is a problem's, and the real run's header has each name once."""
    (tmp_path / "refs").mkdir()
    for name in ("total", "notes", "student"):
        (tmp_path / "refs" / f"{name}.py").write_text(REFERENCE)
        (tmp_path / "subs" / name).mkdir(parents=True)
        (tmp_path / "subs" / name / "ada.py").write_text(REFERENCE)
    (tmp_path / "m.toml").write_text("".join(f'[[problem]]\nreference = "refs/{n}.py"\nsubmissions = ["subs/{n}/*"]\n'
                                             for n in ("total", "notes", "student")))
    (tmp_path / "rubric.toml").write_text("points = 10\n")
    assert main(["grade", "--mapping", str(tmp_path / "m.toml"), "--rubric", str(tmp_path / "rubric.toml"),
                 "--metrics", "codebleu", "-o", str(tmp_path / "out"), "-q", "--no-cache"]) == 0
    header, row = _table((tmp_path / "out" / "points.csv").read_text(encoding="utf-8"))
    assert len(set(header)) == len(header), header
    assert header[:2] == ["student", "student_id"] and header[-3:] == ["total", "max_total", "notes"]
    values = dict(zip(header, row))
    assert values["total"] == "30" and values["max_total"] == "30" and values["student"] == "ada"


def _class(tmp_path: Path, students: dict[str, str]) -> tuple[Path, Path]:
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "total.py").write_text(REFERENCE)
    for name, text in students.items():
        folder = tmp_path / "subs" / "total"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.py").write_text(text)
    mapping = tmp_path / "class.toml"
    mapping.write_text('[[problem]]\nname = "total"\nreference = "ref/total.py"\nsubmissions = ["subs/total"]\n')
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('pass = 0.6\npoints = 10\nbands = { ">= 0.9" = 10, ">= 0.5" = 6, ">= 0.2" = 2 }\n')
    return mapping, rubric


def test_gradescope_results_json_is_valid_and_one_test_per_problem(tmp_path):
    mapping, rubric = _class(tmp_path, {"ada": REFERENCE.replace("result", "acc")})
    results = tmp_path / "autograder" / "results" / "results.json"
    code = main(["grade", "--mapping", str(mapping), "--metrics", "codebleu", "--rubric", str(rubric),
                 "--gradescope", str(results), "--gradescope-visibility", "after_published", "-q"])
    assert code == 0
    data = json.loads(results.read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert [t["name"] for t in data["tests"]] == ["total"]
    test = data["tests"][0]
    assert test["max_score"] == 10 and test["score"] == data["score"] and test["visibility"] == "after_published"
    assert data["stdout_visibility"] == "hidden" and "CodeBLEU" in test["output"]
    assert "result = 0" not in test["output"]  # hints by default: the reference's code is not shown


def test_the_schema_rejects_what_gradescope_would():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for bad in ({"tests": [{"name": "t", "max_score": 1}]},  # no score anywhere
                {"score": 1, "visibility": "sometimes"},
                {"score": "ten"},
                {"score": 1, "tests": [{"score": 1, "visibility": "public"}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_gradescope_needs_one_student(tmp_path, capsys):
    mapping, rubric = _class(tmp_path, {"ada": REFERENCE, "bob": "def total(xs):\n    return sum(xs)\n"})
    code = main(["grade", "--mapping", str(mapping), "--metrics", "codebleu", "--rubric", str(rubric),
                 "--gradescope", str(tmp_path / "results.json"), "-q"])
    assert code == 2 and "this run has 2 students" in capsys.readouterr().err


def test_github_classroom_summary_and_exit_code(tmp_path):
    mapping, rubric = _class(tmp_path, {"ada": REFERENCE})
    summary = tmp_path / "classroom.json"
    base = ["grade", "--mapping", str(mapping), "--metrics", "codebleu", "--rubric", str(rubric),
            "--classroom-summary", str(summary), "-q"]
    assert main(base) == 0
    data = json.loads(summary.read_text())
    assert data["version"] == 1 and data["status"] == "pass" and data["max_score"] == 10
    assert data["tests"][0]["status"] == "pass" and data["tests"][0]["score"] == 10
    (tmp_path / "subs" / "total" / "ada.py").write_text("def total(xs):\n    print(xs)\n")
    assert main(base) == 1  # below the rubric's pass share of the points
    data = json.loads(summary.read_text())
    assert data["status"] == "fail" and data["students"][0]["passed"] is False


def test_classroom_outputs_need_a_rubric(capsys):
    assert main(["grade", "--jsonl", "x.jsonl", "--canvas", "c.csv"]) == 2
    assert "--canvas needs --rubric FILE" in capsys.readouterr().err


def test_a_feedback_folder_that_is_a_file_is_one_line(tmp_path, capsys):
    mapping, rubric = _class(tmp_path, {"ada": REFERENCE})
    (tmp_path / "pages").write_text("not a folder")
    code = main(["grade", "--mapping", str(mapping), "--metrics", "codebleu", "--rubric", str(rubric),
                 "--feedback", str(tmp_path / "pages"), "-q"])
    err = capsys.readouterr().err
    assert code == 3 and "is a file; the feedback pages go in a folder" in err and "Traceback" not in err
    (tmp_path / "points.csv").mkdir()  # a folder where the points file goes: one line, not a traceback
    code = main(["grade", "--mapping", str(mapping), "--metrics", "codebleu", "--rubric", str(rubric),
                 "--points", str(tmp_path / "points.csv"), "-q"])
    err = capsys.readouterr().err
    assert code == 3 and "points.csv" in err and "Traceback" not in err
