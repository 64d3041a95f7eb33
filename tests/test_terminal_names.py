"""Names, ids and code that reach the terminal never carry raw control characters: a student's
file named `a<ESC>[2J.py` cleared the teacher's screen, `x<LF>all submissions reach ...` forged a
line of output, a JSONL id could recolour or rewrite what followed. They are shown as
`<U+001B>` markers (as bidi controls already were); JSON and CSV keep the exact text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REF = "def add(a, b):\n    total = a + b\n    return total\n"
CAND = "def add(x, y):\n    s = x + y\n    return s\n"
ESC_NAME = "a\x1b[2J\x1b[31mred.py"
LF_NAME = "b\nall submissions reach CodeBLEU 0.py"

pytestmark = pytest.mark.timeout(300)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "refscore", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=240, stdin=subprocess.DEVNULL)


def _clean(text: str) -> None:
    assert "\x1b" not in text and "\r" not in text, repr(text)


def test_grade_lines_and_threshold_list_show_control_characters_as_markers(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "subs").mkdir()
    for name in (ESC_NAME, LF_NAME):
        (tmp_path / "subs" / name).write_text(CAND)
    result = _run("grade", "-r", "ref.py", "subs", "--metrics", "codebleu", "-q", "--no-cache",
                  "--fail-under", "0.99", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    _clean(result.stdout + result.stderr)
    lines = [" ".join(line.split()) for line in result.stdout.splitlines()]  # ids are padded to line up
    assert any(line.startswith("subs/a<U+001B>[2J<U+001B>[31mred.py CodeBLEU ") for line in lines)
    assert any(line.startswith("subs/b<U+000A>all submissions reach CodeBLEU 0.py CodeBLEU ") for line in lines)
    assert not any(line.startswith("all submissions reach") for line in result.stdout.splitlines())
    assert "  subs/a<U+001B>[2J<U+001B>[31mred.py: " in result.stderr


def test_jsonl_ids_and_missing_files_are_shown_safely(tmp_path: Path) -> None:
    line = {"id": "x\x1b]0;title\x07\x1b[2Jy", "candidate": CAND, "reference": REF, "language": "python"}
    (tmp_path / "runs.jsonl").write_text(json.dumps(line) + "\n")
    result = _run("grade", "--jsonl", "runs.jsonl", "--metrics", "codebleu", "-q", "--no-cache", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    _clean(result.stdout)
    assert "\x07" not in result.stdout and "x<U+001B>]0;title<U+0007><U+001B>[2Jy CodeBLEU" in " ".join(result.stdout.split())
    (tmp_path / "ref.py").write_text(REF)
    missing = _run("score", "ref.py", ESC_NAME, "--no-daemon", "--metrics", "codebleu", cwd=tmp_path)
    assert missing.returncode == 3
    _clean(missing.stderr)
    assert missing.stderr.strip() == "refscore: a<U+001B>[2J<U+001B>[31mred.py: no such file"


def test_score_header_and_heat_view_show_control_characters_as_markers(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / ESC_NAME).write_text('x = "\x1b[2J"\r\ny = 1\n')
    result = _run("score", "ref.py", ESC_NAME, "--no-daemon", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    _clean(result.stdout)
    assert result.stdout.startswith("a<U+001B>[2J<U+001B>[31mred.py  vs  ref.py  [python]")
    heat = result.stdout.split("heat view", 1)[1]
    assert "<U+001B>[" in heat and "<U+000D>" not in heat  # CRLF is a line end, not a marker
    assert [line.replace("«", "").replace("»", "").strip() for line in heat.splitlines()[1:3]] == \
        ['x = "<U+001B>[2J"', "y = 1"]
    coloured = _run("score", "ref.py", ESC_NAME, "--no-daemon", "--color", "always", cwd=tmp_path)
    heat = coloured.stdout.split("heat view", 1)[1]
    assert '"<U+001B>[' in heat and "\x1b[2J" not in heat  # only RefScore's own colour codes are raw


def test_explanations_of_reference_code_show_control_characters_as_markers(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text('x = "\x1b[2J"\ny = 1\n')
    (tmp_path / "cand.py").write_text("x = 1\n")
    result = _run("score", "ref.py", "cand.py", "--no-daemon", "--metrics", "codebleu", "--explain", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    _clean(result.stdout)
    assert '[syntax_match] string: "<U+001B>[2J"' in result.stdout
