"""How the grade report and the terminal count a class with a roster: students who handed
nothing in are not "with errors", and the class section says how many of the roster handed
something in (real `refscore grade`, CodeBLEU only)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from refscore.cli import main

SUM_REF = "def total(nums):\n    result = 0\n    for n in nums:\n        result += n\n    return result\n"
SUM_OK = "def total(values):\n    acc = 0\n    for v in values:\n        acc += v\n    return acc\n"

pytestmark = pytest.mark.timeout(300)


def _class(root: Path) -> list[str]:
    """Three students who handed in (one file is binary: an error), five on the roster, and the
    arguments that grade them."""
    (root / "ref.py").write_text(SUM_REF)
    for student, text in (("alice", SUM_OK), ("bob", SUM_REF)):
        (root / "class" / student).mkdir(parents=True)
        (root / "class" / student / "sum.py").write_text(text)
    (root / "class" / "carol").mkdir()
    (root / "class" / "carol" / "sum.py").write_bytes(b"\xff\xfe\x00binary\x00")
    (root / "roster.csv").write_text("student\nalice\nbob\ncarol\ndave\nerin\n")
    return ["grade", "-r", str(root / "ref.py"), str(root / "class"), "--roster", str(root / "roster.csv"),
            "--metrics", "codebleu", "--no-cache"]


def test_students_who_handed_nothing_in_are_not_counted_with_the_errors(tmp_path: Path, capsys) -> None:
    args = _class(tmp_path)
    assert main([*args, "-o", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    graded = next(line for line in printed.splitlines() if line.startswith("graded "))
    assert "1 with errors" in graded and "2 handed nothing in" in graded, graded
    page = (tmp_path / "out" / "grade.html").read_text(encoding="utf-8")
    header = re.search(r"<header>(.*?)</header>", page, re.S).group(1)
    assert "1 with errors" in header and "2 handed nothing in" in header, header
    summary = json.loads((tmp_path / "out" / "grade.json").read_text(encoding="utf-8"))["summary"]
    assert summary["with_errors"] == 3 and summary["handed_nothing_in"] == 2  # with_errors kept as it was
