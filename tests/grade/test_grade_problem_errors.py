"""A problem nothing can be graded for (issue 42 item 6): a typo in a mapping's reference path, or
no submission for a problem. The run exits 3 with one line naming the problem and the path,
writes its score reports (their rows say why) but no grade book or feedback page that would give
everyone zero points, and says nothing about where points came from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.grade.items import GradeItem
from refscore.grade.mapping import problem_error

pytestmark = pytest.mark.timeout(300)
SUM = "def total(nums):\n    result = 0\n    for n in nums:\n        result += n\n    return result\n"
SUM_OK = "def total(values):\n    acc = 0\n    for v in values:\n        acc += v\n    return acc\n"
MAX = "def biggest(xs):\n    return max(xs)\n"


def _course(tmp: Path, second: str) -> Path:
    """Two problems for two students; ``second``: the second problem's TOML lines."""
    for student in ("ada", "bob"):
        (tmp / "subs" / student).mkdir(parents=True)
        (tmp / "subs" / student / "total.py").write_text(SUM_OK)
        (tmp / "subs" / student / "biggest.py").write_text(MAX)
    (tmp / "refs").mkdir()
    (tmp / "refs" / "total.py").write_text(SUM)
    (tmp / "refs" / "biggest.py").write_text(MAX)
    (tmp / "class.toml").write_text('[[problem]]\nname = "total"\nreference = "refs/total.py"\n'
                                    'submissions = ["subs/*/total.py"]\n\n[[problem]]\nname = "biggest"\n' + second)
    (tmp / "rubric.toml").write_text("points = 10\n")
    return tmp / "class.toml"


def _grade(tmp: Path, mapping: Path) -> subprocess.CompletedProcess[str]:
    out = tmp / "out"
    return subprocess.run([sys.executable, "-m", "refscore", "grade", "--mapping", str(mapping), "--metrics", "codebleu",
                           "-o", str(out), "--rubric", str(tmp / "rubric.toml"), "--canvas", str(out / "canvas.csv"),
                           "--feedback", str(out / "feedback"), "--no-cache"],
                          capture_output=True, text=True, timeout=240, env={**os.environ, "HF_HUB_OFFLINE": "1"})


@pytest.mark.parametrize("second, said", [
    ('reference = "refs/bigest.py"\nsubmissions = ["subs/*/biggest.py"]\n',
     "problem 2 ('biggest'): reference: {tmp}/refs/bigest.py: no such file: nothing can be graded for it"),
    ('reference = "refs/biggest.py"\nsubmissions = ["subs/*/bigest.py"]\n',
     "problem 2 ('biggest'): none of its 1 submission(s) could be read (first: {tmp}/subs/*/bigest.py: no such "
     "file, folder or glob match)"),
], ids=["reference-typo", "nothing-to-grade"])
def test_a_problem_level_error_exits_3_in_one_line_and_writes_no_grade_book(tmp_path: Path, second: str,
                                                                             said: str) -> None:
    mapping = _course(tmp_path, second)
    result = _grade(tmp_path, mapping)
    assert result.returncode == 3, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("refscore:") and "note:" not in line]
    assert lines == [f"refscore: {mapping}: {said.format(tmp=tmp_path)}; no grade book or feedback written"], \
        result.stderr
    assert "points from" not in result.stderr + result.stdout and "Traceback" not in result.stderr
    out = tmp_path / "out"
    assert not (out / "canvas.csv").exists() and not (out / "feedback").exists() and not (out / "points.csv").exists()
    rows = {row["id"]: row for row in json.loads((out / "grade.json").read_text())["submissions"]}
    assert [row["codebleu_native"] is not None for row_id, row in rows.items() if row_id.startswith("total/")] == [True] * 2
    assert all(row["errors"] for row_id, row in rows.items() if row_id.startswith("biggest/"))


def test_a_run_without_problem_errors_writes_the_grade_book(tmp_path: Path) -> None:
    mapping = _course(tmp_path, 'reference = "refs/biggest.py"\nsubmissions = ["subs/*/biggest.py"]\n')
    result = _grade(tmp_path, mapping)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "canvas.csv").is_file() and any((tmp_path / "out" / "feedback").glob("*.html"))


def test_problem_error_lines() -> None:
    ok = GradeItem("a", "x = 1\n", ("x = 2\n",), "python", problem="p")
    broken = GradeItem("b", None, (), None, problem="p", error="reference: r.py: no such file")
    unread = GradeItem("c", None, ("x = 2\n",), "python", problem="p", error="c.py: looks binary")
    empty = GradeItem("d", "", ("x = 2\n",), "python", problem="p", error="d.py: empty submission")
    assert problem_error("m.toml: problem 1 ('p')", [ok, broken]) is None
    assert problem_error("m.toml: problem 1 ('p')", [broken]) == \
        "m.toml: problem 1 ('p'): reference: r.py: no such file: nothing can be graded for it"
    assert problem_error("w", []) == "w: no submissions found: nothing to grade for it"
    assert problem_error("w", [unread, unread]) == "w: none of its 2 submission(s) could be read (first: c.py: " \
                                                   "looks binary)"
    assert problem_error("w", [unread, empty]) is None  # an empty file is its student's error, not the problem's
