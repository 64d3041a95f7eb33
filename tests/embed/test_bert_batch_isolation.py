"""One text over the CodeBERTScore limit costs only its own CodeBERTScore: its batch-mates are
scored (in-process `refscore score` and `grade`; the daemon already retried them). Before, the
whole batch failed: in `grade` up to 32 submissions around one 300,000-character file lost
CodeBERTScore, in `score` every candidate; and a bare `CodeBERTScore failed: ...` line went to
stderr on top of the report's own error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refscore.cli import main

REF = "def add(a, b):\n    total = a + b\n    return total\n"
CAND = "def add(x, y):\n    s = x + y\n    return s\n"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "a.py").write_text(CAND)
    (tmp_path / "huge.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(9000)))
    (tmp_path / "b.py").write_text(CAND.replace("s", "t"))
    return tmp_path


def test_score_keeps_the_other_candidates_codebertscore(files: Path, capsys) -> None:
    assert main(["score", str(files / "ref.py"), *(str(files / n) for n in ("a.py", "huge.py", "b.py")),
                 "--no-daemon", "--json"]) == 0
    out, err = capsys.readouterr()
    rows = {Path(d["candidate"]).name: d for d in map(json.loads, out.splitlines())}
    assert rows["a.py"]["codebertscore"]["f1"] > 0.5 and rows["b.py"]["codebertscore"]["f1"] > 0.5
    assert "codebertscore" not in rows["huge.py"]
    assert any("over the CodeBERTScore limit" in e for e in rows["huge.py"]["errors"])
    assert "CodeBERTScore failed" not in err


def test_grade_keeps_the_batch_mates_codebertscore(files: Path, capsys) -> None:
    out = files / "out.json"
    assert main(["grade", "-r", str(files / "ref.py"), *(str(files / n) for n in ("a.py", "huge.py", "b.py")),
                 "--no-cache", "-q", "--json", str(out)]) == 0
    rows = {Path(r["id"]).name: r for r in json.loads(out.read_text())["submissions"]}
    assert rows["a.py"]["codebertscore_f1"] > 0.5 and rows["b.py"]["codebertscore_f1"] > 0.5
    assert rows["a.py"]["errors"] == [] and rows["b.py"]["errors"] == []
    assert rows["huge.py"]["codebertscore_f1"] is None and rows["huge.py"]["codebleu_native"] is not None
    assert "CodeBERTScore failed" not in capsys.readouterr().err


def test_the_note_says_codebertscore_was_skipped_in_words(files: Path, capsys) -> None:
    """README: a text over the limit 'gets CodeBLEU and a note that CodeBERTScore was skipped'; the
    note read ``note: codebertscore: InputTooLargeError: text of ...`` (a Python class name)."""
    assert main(["score", str(files / "ref.py"), str(files / "huge.py"), "--no-daemon", "--no-heat"]) == 0
    out = capsys.readouterr().out
    note = next(line for line in out.splitlines() if "over the CodeBERTScore limit" in line)
    assert "Error" not in note and "CodeBERTScore skipped" in note, note
