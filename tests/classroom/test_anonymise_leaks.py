"""``--anonymise`` leaks (issue 45, item 11): file names that matched no problem carried first
names into grade.html's Class section and grade.json's ``unmatched_files`` (``dana_notes.txt``,
``by maria.txt``); and the teacher's canvas.csv and moodle.csv, which link every pseudonym's
total to a real name, were 0644 while the key is 0600."""

from __future__ import annotations

import json
import re
from pathlib import Path

from refscore.cli import main

REFERENCE = "def add(a, b):\n    return a + b\n"
STUDENTS = {"dana_smith": ("dana_notes.txt", "Dana's notes"), "maria_garcia": ("by maria.txt", "written by Maria"),
            "li_wei": ("add_v2_final.py.bak", "old")}


def _run(root: Path) -> Path:
    (root / "ref").mkdir()
    (root / "ref" / "add.py").write_text(REFERENCE)
    for name, (extra, text) in STUDENTS.items():
        folder = root / "class" / name
        folder.mkdir(parents=True)
        (folder / "add.py").write_text(REFERENCE.replace("a + b", "b + a"))
        (folder / extra).write_text(text)
    (root / "rubric.toml").write_text('linear = { floor = 0.0, ceiling = 1.0 }\n')
    out = root / "out"
    assert main(["grade", "-r", str(root / "ref" / "add.py"), str(root / "class"), "--layout", "plain", "--metrics",
                 "codebleu", "-o", str(out), "--rubric", str(root / "rubric.toml"),
                 "--anonymise", "-q"]) == 0
    return out


def test_unmatched_files_name_no_student(tmp_path: Path, capsys) -> None:
    out = _run(tmp_path)
    err = capsys.readouterr().err
    names = re.compile(r"(?<![a-z])(dana|maria|smith|garcia|wei)(?![a-z])", re.IGNORECASE)
    for path in out.rglob("*"):
        if path.is_file():
            assert not names.findall(path.read_bytes().decode("utf-8", "replace")), path
    assert not names.findall(err), err  # the terminal note is the graders' too
    classes = json.loads((out / "grade.json").read_text())["settings"]["classes"]
    unmatched = [f for c in classes for f in c["unmatched_files"]]
    # still one line per file, under its student's pseudonym, its kind kept
    assert len(unmatched) == 3 and all("S-" in f for f in unmatched), unmatched
    assert sorted(Path(f).suffix for f in unmatched) == [".bak", ".txt", ".txt"], unmatched


def test_the_teachers_uploads_are_the_owners_only(tmp_path: Path) -> None:
    _run(tmp_path)
    teacher = tmp_path / "out-teacher"
    for name in ("canvas.csv", "moodle.csv", "anonymise-key.csv"):
        assert (teacher / name).stat().st_mode & 0o077 == 0, name
    assert "dana_smith" in (teacher / "canvas.csv").read_text()  # the upload keeps the real names
