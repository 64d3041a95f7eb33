"""A Canvas file handed in again (issue 42 item 2): ``word_freq.py`` and ``word_freq-1.py`` are two
versions of one file, never joined. The latest is graded by default, starter code taken out of
the one copy graded; with ``best`` every version is scored and the grade book counts the best.
Also (issue 45 item 13): a name stored twice in a zip archive is the later entry, said in a
note, and a ``.tar.gz`` class is told that only .zip archives are read."""

from __future__ import annotations

import csv
import json
import warnings
import zipfile
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.classroom.model import Submission, Student, SubmittedFile
from refscore.classroom.resubmissions import versions

pytestmark = pytest.mark.timeout(300)
STARTER = "import sys\n\n\ndef read_words(path):\n    with open(path) as fh:\n        return fh.read().split()\n"
REFERENCE = STARTER + ("\n\ndef word_freq(words):\n    counts = {}\n    for word in words:\n"
                       "        counts[word] = counts.get(word, 0) + 1\n    return counts\n")
WEAK = STARTER + "\n\ndef word_freq(words):\n    return len(words)\n"
OTHER = STARTER + ("\n\ndef word_freq(ws):\n    out = {}\n    for w in ws:\n        if w in out:\n"
                   "            out[w] += 1\n        else:\n            out[w] = 1\n    return out\n")


def _write_zip(path: Path, entries: list[tuple[str, str]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about a duplicate name: that is the point
        with zipfile.ZipFile(path, "w") as archive:
            for name, text in entries:
                archive.writestr(name, text)
    return path


def _setup(tmp: Path, first: str, again: str) -> Path:
    """A Canvas download: okaforada handed word_freq.py in, then again (word_freq-1.py)."""
    (tmp / "word_freq.py").write_text(REFERENCE)
    (tmp / "starter.py").write_text(STARTER)
    (tmp / "rubric.toml").write_text('metric = "codebleu"\npoints = 10\nbands = { ">= 0.9" = 10, ">= 0.3" = 5 }\n')
    return _write_zip(tmp / "class.zip", [("okaforada_1001_5001_word_freq.py", first),
                                          ("okaforada_1001_5002_word_freq-1.py", again),
                                          ("mensahkofi_1002_5003_word_freq.py", OTHER)])


def _grade(tmp: Path, *extra: str) -> tuple[int, dict[str, dict], dict[str, str]]:
    out = tmp / "out"
    code = main(["grade", "-r", str(tmp / "word_freq.py"), str(tmp / "class.zip"), "--starter", str(tmp / "starter.py"),
                 "--metrics", "codebleu", "--no-cache", "-q", "-o", str(out), "--rubric", str(tmp / "rubric.toml"),
                 "--canvas", str(out / "canvas.csv"), *extra])
    rows = {row["id"]: row for row in json.loads((out / "grade.json").read_text())["submissions"]}
    with open(out / "canvas.csv", newline="", encoding="utf-8") as fh:
        points = {row["Student"]: row[list(row)[-1]] for row in csv.DictReader(fh)}
    return code, rows, points


def _alone(tmp: Path, text: str) -> float:
    """CodeBLEU of ``text`` graded as the only file of a student, with the same starter."""
    (tmp / "alone").mkdir()
    (tmp / "alone" / "word_freq.py").write_text(text)
    out = tmp / "alone.json"
    assert main(["grade", "-r", str(tmp / "word_freq.py"), str(tmp / "alone" / "word_freq.py"), "--starter",
                 str(tmp / "starter.py"), "--metrics", "codebleu", "--no-cache", "-q", "--json", str(out)]) == 0
    return json.loads(out.read_text())["submissions"][0]["codebleu_native"]


def test_the_latest_version_is_graded_alone_with_the_starter_taken_out(tmp_path: Path, capsys) -> None:
    _setup(tmp_path, REFERENCE, WEAK)
    code, rows, points = _grade(tmp_path)
    assert code == 0
    ada = rows["okaforada (1001)"]
    assert ada["source"] == "class.zip!okaforada_1001_5002_word_freq-1.py"  # one file, not both joined
    assert ada["codebleu_native"] == pytest.approx(_alone(tmp_path, WEAK))  # as if it were the only file
    assert [r for r in rows if r.startswith("okaforada")] == ["okaforada (1001)"]
    assert float(points["okaforada"]) == 0.0  # the weak latest version, not the copy of the reference before it
    err = capsys.readouterr().err
    assert "1 student(s) handed a file in again (Canvas's -1, -2 names): the latest version is graded, never " \
           "joined with the earlier ones (not graded: okaforada (1001): word_freq.py)" in err, err


@pytest.mark.parametrize("how", ["option", "mapping", "rubric"])
def test_best_scores_every_version_and_the_grade_book_counts_the_best(tmp_path: Path, how: str, capsys) -> None:
    _setup(tmp_path, REFERENCE, WEAK)
    if how == "option":
        code, rows, points = _grade(tmp_path, "--resubmissions", "best", "--similarity", "0.1")
    elif how == "rubric":  # the teacher's rubric says it once for the course
        rubric = tmp_path / "rubric.toml"
        rubric.write_text('resubmissions = "best"\n' + rubric.read_text())
        code, rows, points = _grade(tmp_path, "--similarity", "0.1")
    else:
        (tmp_path / "class.toml").write_text('[[problem]]\nname = "word_freq"\nreference = "word_freq.py"\n'
                                             'starter = "starter.py"\nsubmissions = ["class.zip"]\n'
                                             'resubmissions = "best"\n')
        out = tmp_path / "out"
        code = main(["grade", "--mapping", str(tmp_path / "class.toml"), "--metrics", "codebleu", "--no-cache", "-q",
                     "-o", str(out), "--rubric", str(tmp_path / "rubric.toml"), "--canvas", str(out / "canvas.csv"),
                     "--similarity", "0.1"])
        rows = {row["id"].removeprefix("word_freq/"): row for row in
                json.loads((out / "grade.json").read_text())["submissions"]}
        with open(out / "canvas.csv", newline="", encoding="utf-8") as fh:
            points = {row["Student"]: row[list(row)[-1]] for row in csv.DictReader(fh)}
    assert code == 0
    first, latest = rows["okaforada (1001) [1 of 2: word_freq.py]"], rows["okaforada (1001) [2 of 2: word_freq-1.py]"]
    assert first["source"].endswith("_word_freq.py") and latest["source"].endswith("_word_freq-1.py")
    assert first["resubmission"] == "1 of 2: word_freq.py" and latest["resubmission"].endswith("(the latest)")
    assert first["codebleu_native"] > latest["codebleu_native"]
    assert float(points["okaforada"]) == 10.0  # the earlier, better version counts
    assert "okaforada (1001)" not in str(latest["similar_to"]) and "okaforada (1001)" not in str(first["similar_to"])
    assert "every version is scored and the one that earns the most points counts" in capsys.readouterr().err


def test_a_name_stored_twice_in_the_archive_is_the_later_entry_with_a_note(tmp_path: Path, capsys) -> None:
    (tmp_path / "word_freq.py").write_text(REFERENCE)
    _write_zip(tmp_path / "class.zip", [("okaforada_1001_5001_word_freq.py", WEAK),
                                        ("mensahkofi_1002_5003_word_freq.py", OTHER),
                                        ("okaforada_1001_5001_word_freq.py", REFERENCE)])
    out = tmp_path / "out.json"
    assert main(["grade", "-r", str(tmp_path / "word_freq.py"), str(tmp_path / "class.zip"), "--metrics", "codebleu",
                 "--no-cache", "-q", "--json", str(out)]) == 0
    rows = {row["id"]: row for row in json.loads(out.read_text())["submissions"]}
    assert rows["okaforada (1001)"]["codebleu_native"] == pytest.approx(1.0)  # the later entry alone, not both joined
    assert f"{tmp_path / 'class.zip'}: 1 name(s) stored more than once in the archive; the last entry of each is " \
           "graded: okaforada_1001_5001_word_freq.py" in capsys.readouterr().err


def test_a_tar_gz_class_is_told_only_zip_archives_are_read(tmp_path: Path, capsys) -> None:
    (tmp_path / "word_freq.py").write_text(REFERENCE)
    (tmp_path / "class.tar.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(60))
    out = tmp_path / "out.json"
    code = main(["grade", "-r", str(tmp_path / "word_freq.py"), str(tmp_path / "class.tar.gz"), "--metrics",
                 "codebleu", "--no-cache", "-q", "--json", str(out)])
    assert code == 3
    error = json.loads(out.read_text())["submissions"][0]["errors"][0]
    assert error == f"{tmp_path / 'class.tar.gz'}: a .tar.gz archive; only .zip archives are read as a class: unpack " \
                    "it into a folder (or make a .zip of it) and grade that"
    assert "--lang" not in capsys.readouterr().err


def test_versions_of_several_files() -> None:
    files = [SubmittedFile(name, f"c.zip!{name}", "x = 1\n") for name in ("a.py", "a-1.py", "b.py", "a-2.py")]
    canvas = Submission(Student("ada", "1"), tuple(files), layout="canvas")
    found = versions(canvas, files)
    assert [[f.name for f in v.files] for v in found] == [["a.py", "b.py"], ["a-1.py", "b.py"], ["a-2.py", "b.py"]]
    assert [v.label for v in found] == ["1 of 3: a.py", "2 of 3: a-1.py", "3 of 3: a-2.py"]
    assert [v.latest for v in found] == [False, False, True]
    plain = Submission(Student("ada"), tuple(files), layout="plain")  # no resubmission names elsewhere
    assert [[f.name for f in v.files] for v in versions(plain, files)] == [["a.py", "a-1.py", "b.py", "a-2.py"]]


def test_a_rubric_resubmissions_value_is_checked_before_scoring(tmp_path: Path, capsys) -> None:
    _setup(tmp_path, REFERENCE, WEAK)
    rubric = tmp_path / "rubric.toml"
    rubric.write_text('resubmissions = "first"\n' + rubric.read_text())
    assert main(["grade", "-r", str(tmp_path / "word_freq.py"), str(tmp_path / "class.zip"), "--metrics", "codebleu",
                 "--no-cache", "-q", "-o", str(tmp_path / "out"), "--rubric", str(rubric)]) != 0
    assert "'resubmissions' must be one of latest, best (got 'first')" in capsys.readouterr().err
    assert not (tmp_path / "out" / "grade.json").exists()
