"""Issue 23 item 8: ``--anonymise`` gives every student a stable pseudonym in every report a
grader sees; the teacher's key (and the LMS uploads, which need real names) live elsewhere."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from refscore.cli import main

NAMES = ("alice_walker", "bongani_dube", "chen_wei")
REFERENCE = "def add(a, b):\n    return a + b\n"
pytestmark = pytest.mark.timeout(240)


def _class(root: Path) -> list[str]:
    (root / "ref").mkdir(parents=True)
    (root / "ref" / "add.py").write_text(REFERENCE)
    for index, name in enumerate(NAMES):
        folder = root / "class" / name
        folder.mkdir(parents=True)
        (folder / "add.py").write_text(REFERENCE if index == 0 else f"def add(x, y):\n    return y + x + {index} - {index}\n")
    (root / "class.toml").write_text('[[problem]]\nname = "add"\nreference = "ref/add.py"\nsubmissions = ["class"]\n'
                                     "per_folder = true\n")
    (root / "rubric.toml").write_text('linear = { floor = 0.0, ceiling = 1.0 }\n')
    return ["grade", "--mapping", str(root / "class.toml"), "--metrics", "codebleu", "-o", str(root / "out"),
            "--rubric", str(root / "rubric.toml"), "--anonymise", "-q"]


def _key(path: Path) -> dict[str, str]:
    return {r["student"]: r["pseudonym"] for r in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))}


def test_pseudonyms_everywhere_a_grader_looks_and_a_key_for_the_teacher(tmp_path):
    args = _class(tmp_path)
    assert main(args) == 0
    out, teacher = tmp_path / "out", tmp_path / "out-teacher"
    key = _key(teacher / "anonymise-key.csv")
    assert sorted(key) == sorted(NAMES) and all(re.fullmatch(r"S-[0-9A-F]{6}", p) for p in key.values())
    assert len(set(key.values())) == 3
    for path in out.rglob("*"):  # reports, feedback pages, points, the scored-parts cache
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert not [n for n in NAMES if n in text], path
    points = (out / "points.csv").read_text()
    assert all(p in points for p in key.values())
    assert sorted(p.stem for p in (out / "feedback").glob("*.html")) == sorted(key.values())
    canvas = (teacher / "canvas.csv").read_text()  # the upload needs the real names
    assert all(n in canvas for n in NAMES) and not (out / "canvas.csv").exists()
    assert (teacher / "anonymise-key.csv").stat().st_mode & 0o077 == 0

    assert main(args) == 0  # a re-grade keeps every pseudonym
    assert _key(teacher / "anonymise-key.csv") == key
    (tmp_path / "class" / "dara_okafor").mkdir()
    (tmp_path / "class" / "dara_okafor" / "add.py").write_text("def add(a, b):\n    return b + a\n")
    assert main(args) == 0
    again = _key(teacher / "anonymise-key.csv")
    assert {n: again[n] for n in NAMES} == key and again["dara_okafor"] not in key.values()


def test_the_key_never_goes_where_graders_look(tmp_path, capsys):
    args = _class(tmp_path)
    assert main([*args, "--anonymise-key", str(tmp_path / "out" / "key.csv")]) == 2
    assert "which graders see" in capsys.readouterr().err


def test_a_moodle_zip_leaves_no_name_or_id_in_the_graders_reports(tmp_path):
    import zipfile

    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "add.py").write_text(REFERENCE)
    with zipfile.ZipFile(tmp_path / "week1.zip", "w") as archive:
        archive.writestr("Ada Lovelace_4711_assignsubmission_file_/add.py", "def add(x, y):\n    return x + y\n")
        archive.writestr("Ada Lovelace_4711_assignsubmission_file_/notes.txt", "extra file")
        archive.writestr("Alan Turing_4712_assignsubmission_file_/add.py", REFERENCE)
    (tmp_path / "roster.csv").write_text("Name,ID\nAda Lovelace,4711\nAlan Turing,4712\nGrace Hopper,4713\n")
    (tmp_path / "rubric.toml").write_text('linear = { floor = 0.0, ceiling = 1.0 }\n')
    out = tmp_path / "out"
    assert main(["grade", "-r", str(tmp_path / "ref" / "add.py"), str(tmp_path / "week1.zip"), "--roster",
                 str(tmp_path / "roster.csv"), "--metrics", "codebleu", "-o", str(out), "--rubric",
                 str(tmp_path / "rubric.toml"), "--anonymise", "--similarity", "-q"]) == 0
    assert (out / "similarity.html").exists() and (out / "similarity.json").exists()
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            ids = [m for m in re.findall(r"(?<![0-9A-F])\d+(?![0-9A-F])", text) if m in ("4711", "4712", "4713")]  # not inside a pseudonym
            assert not [w for w in ("Lovelace", "Turing", "Hopper") if w in text] and not ids, path
    moodle = (tmp_path / "out-teacher" / "moodle.csv").read_text()
    assert "Participant 4711" in moodle and "Ada Lovelace" in moodle


def test_the_key_is_safe_to_open_in_a_spreadsheet_and_reads_back_exactly(tmp_path):
    """The key file is a CSV the teacher opens, and its names come from the students' folder
    names: ``=1+2`` or ``@SUM(A1)`` was written raw (a formula in Excel), though every other CSV
    cell is neutralised. Now such a cell gets a leading ``'``, and reading the key back drops it,
    so each student keeps their pseudonym across re-grades (a name that starts with ``'`` too)."""
    import zipfile

    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "add.py").write_text(REFERENCE)
    names = ("=1+2", "@SUM(A1)", "-Neg", "'Quote", "Plain Name")
    with zipfile.ZipFile(tmp_path / "week1.zip", "w") as archive:
        for index, name in enumerate(names):
            archive.writestr(f"{name}_{4700 + index}_assignsubmission_file_/add.py", REFERENCE)
    (tmp_path / "rubric.toml").write_text('linear = { floor = 0.0, ceiling = 1.0 }\n')
    args = ["grade", "-r", str(tmp_path / "ref" / "add.py"), str(tmp_path / "week1.zip"), "--metrics", "codebleu",
            "-o", str(tmp_path / "out"), "--rubric", str(tmp_path / "rubric.toml"), "--anonymise", "-q"]
    assert main(args) == 0
    path = tmp_path / "out-teacher" / "anonymise-key.csv"
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    cells = {r["student"] for r in rows}
    assert cells == {"'=1+2", "'@SUM(A1)", "'-Neg", "''Quote", "Plain Name"}, cells
    key = {r["pseudonym"]: r["student"] for r in rows}
    assert main(args) == 0  # read back: the same five students, the same five pseudonyms
    again = {r["pseudonym"]: r["student"] for r in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))}
    assert again == key


def test_an_anonymised_regrade_says_what_an_earlier_run_left_with_names(tmp_path, capsys):
    """Grading once, then again with ``--anonymise`` into the same ``-o DIR``, left the first
    run's ``canvas.csv``, ``moodle.csv``, real-name feedback pages and scored parts (names and
    code) in the folder graders are given, without a word: the docs promise that nothing a grader
    sees holds a name. The anonymised run now names what it did not replace."""
    args = _class(tmp_path)
    plain = [a for a in args if a != "--anonymise"]
    assert main(plain) == 0
    capsys.readouterr()
    assert main(args) == 0
    err = " ".join(capsys.readouterr().err.split())
    out = tmp_path / "out"
    assert "--anonymise: " in err and "remove them before graders see it" in err, err
    for name in (out / "canvas.csv", out / "moodle.csv"):
        assert str(name) in err, err
    assert f"{2 * len(NAMES)} feedback page(s) in {out / 'feedback'}" in err, err  # HTML and Markdown
    assert f"1 scored part(s) in {out / 'grade.parts' / 'parts'}" in err, err
    assert main(args) == 0  # said every time while the files are there; nothing once they are gone
    assert "remove them" in capsys.readouterr().err
    for path in [out / "canvas.csv", out / "moodle.csv", *(out / "feedback").glob("[!S]*"),
                 *(out / "grade.parts" / "parts").iterdir()]:
        path.unlink()
    assert main(args) == 0
    assert "remove them" not in capsys.readouterr().err


def test_the_key_is_never_written_through_a_link_at_its_temporary_name(tmp_path):
    """The key was written to ``.anonymise-key.csv.<pid>.tmp`` opened without O_EXCL or
    O_NOFOLLOW: a link planted under that name (the teacher folder sits beside ``-o DIR``, in the
    students' folder when ``-o`` is) got every student's real name written into the file it
    names. It now goes through ``safe_write`` like every report: the link is never followed."""
    import os

    args = _class(tmp_path)
    assert main(args) == 0
    teacher = tmp_path / "out-teacher"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    os.symlink(victim, teacher / f".anonymise-key.csv.{os.getpid()}.tmp")
    assert main(args) == 0
    assert victim.read_text() == "keep me\n"
    assert sorted(_key(teacher / "anonymise-key.csv")) == sorted(NAMES)
    assert (teacher / "anonymise-key.csv").stat().st_mode & 0o077 == 0 and not (teacher / "anonymise-key.csv").is_symlink()
