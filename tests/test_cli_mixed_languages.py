"""`refscore score ref.py cand.java`: the candidate's extension chooses the grammar for both
texts, which made Python scored as Java without a word (`refscore grade` calls the same pair a
wrong-language error). Now a warning line on stderr and in the JSON `warnings`; `--lang` or
matching extensions say nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refscore.cli import main

PY = "def add(a, b):\n    total = a + b\n    return total\n"
JAVA = "class A { int add(int a, int b) { int total = a + b; return total; } }\n"


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "ref.py").write_text(PY)
    (tmp_path / "cand.py").write_text(PY)
    (tmp_path / "Cand.java").write_text(JAVA)
    (tmp_path / "ref.txt").write_text(PY)
    return tmp_path


def _score(files: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[dict], str]:
    assert main(["score", *args, "--metrics", "codebleu", "--no-daemon", "--json"]) == 0
    out, err = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines()], err


def test_a_candidate_in_another_language_than_the_reference_is_warned_about(files: Path, capsys) -> None:
    rows, err = _score(files, capsys, str(files / "ref.py"), str(files / "Cand.java"), str(files / "cand.py"))
    assert rows[0]["language"] == "java"
    assert rows[0]["warnings"] == [f"{files / 'Cand.java'} is java but the reference {files / 'ref.py'} is python: "
                                   "both scored as java (pass --lang to choose)"]
    assert rows[1]["warnings"] == []
    assert err.count("refscore: warning:") == 1 and "Cand.java is java" in err


def test_no_warning_with_lang_or_a_reference_without_a_known_extension(files: Path, capsys) -> None:
    rows, err = _score(files, capsys, str(files / "ref.py"), str(files / "Cand.java"), "--lang", "java")
    assert rows[0]["warnings"] == [] and "warning" not in err
    rows, err = _score(files, capsys, str(files / "ref.txt"), str(files / "Cand.java"))
    assert rows[0]["warnings"] == [] and "warning" not in err
