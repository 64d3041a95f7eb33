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


def test_the_class_section_says_how_many_of_the_roster_handed_something_in(tmp_path: Path, capsys) -> None:
    args = _class(tmp_path)
    (tmp_path / "class" / "zoe").mkdir()  # not on the roster: graded, and said so
    (tmp_path / "class" / "zoe" / "sum.py").write_text(SUM_OK)
    assert main([*args, "-o", str(tmp_path / "out")]) == 0
    said = "4 students handed something in (3 of the 5 on the roster, 1 not on it)"
    page = (tmp_path / "out" / "grade.html").read_text(encoding="utf-8")
    section = re.search(r'<section class="class">(.*?)</section>', page, re.S).group(1)
    assert said in section and "4 students &middot;" not in section, section
    assert said in capsys.readouterr().err
    info = json.loads((tmp_path / "out" / "grade.json").read_text(encoding="utf-8"))["settings"]["classes"][0]
    assert (info["students"], info["roster_students"]) == (4, 5)


def test_without_a_roster_the_class_section_counts_who_handed_in(tmp_path: Path) -> None:
    args = _class(tmp_path)
    roster = args.index("--roster")
    assert main([*args[:roster], *args[roster + 2:], "--layout", "plain", "-o", str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "grade.html").read_text(encoding="utf-8")
    assert "3 students handed something in</p>" in page or "3 students handed something in &middot;" in page
    info = json.loads((tmp_path / "out" / "grade.json").read_text(encoding="utf-8"))["settings"]["classes"][0]
    assert info["roster_students"] is None
