"""``refscore eval`` with data files that are missing, damaged, the wrong shape or not files at
all (issue 25, item 6): one line naming the file, exit 3, never a hang or an internal error."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.cli import main

GOOD_ROW = {"sample_idx": 0, "hyp": "def f(x):\n    return x\n", "ref": "def f(y):\n    return y\n",
            "nl": "identity", "passed": 1}


def _humaneval(tmp_path: Path, content: bytes | None) -> Path:
    folder = tmp_path / "data" / "humaneval"
    folder.mkdir(parents=True)
    path = folder / "python.jsonl.gz"
    if content == b"FIFO":
        os.mkfifo(path)
    elif content is not None:
        path.write_bytes(content)
    return path


def _eval(tmp_path: Path, *args: str) -> int:
    return main(["eval", "--data", str(tmp_path / "data"), "--metrics", "chrf", *args])


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "internal error" not in err[0] and "Traceback" not in err[0]
    return err[0]


good = gzip.compress((json.dumps(GOOD_ROW) + "\n").encode(), mtime=0)


@pytest.mark.parametrize("content,says", [
    (None, "no such file"),
    (b"\x00garbage, not gzip at all" * 10, "not a gzipped HumanEval JSONL file"),
    (good[: len(good) // 2], "not a gzipped HumanEval JSONL file"),
    (gzip.compress(b"[1, 2, 3]\n", mtime=0), "not a gzipped HumanEval JSONL file (at line 1"),
    (gzip.compress(b'{"sample_idx": 0}\n', mtime=0), "no 'hyp' field"),
    (gzip.compress(json.dumps({**GOOD_ROW, "hyp": {"x": 1}}).encode(), mtime=0), "hyp is not a string"),
    (gzip.compress(b"[" * 5000 + b"]" * 5000 + b"\n", mtime=0), "not a gzipped HumanEval JSONL file"),
    (gzip.compress(b"\xff\xfe not utf-8\n", mtime=0), "not a gzipped HumanEval JSONL file"),
])
def test_a_bad_humaneval_file_is_one_line_naming_it(tmp_path: Path, capsys, content, says) -> None:
    path = _humaneval(tmp_path, content)
    assert _eval(tmp_path, "--languages", "python") == 3
    line = _one_line(capsys)
    assert line.startswith(f"refscore eval: evaluation data file {path}") and says in line, line


@pytest.mark.parametrize("content,says", [
    (b"{not json", "not the CoNaLa human-grades JSON"),
    (b'{"a": 1}', "not the CoNaLa human-grades JSON"),
    (b'[{"intent": "x"}]', "no 'snippet' field"),
    (b'[{"snippet": 5, "codex": "x", "grade-codex": {"a": 1}}]', "not the CoNaLa human-grades JSON"),
])
def test_a_bad_conala_file_is_one_line_naming_it(tmp_path: Path, capsys, content, says) -> None:
    folder = tmp_path / "data" / "conala"
    folder.mkdir(parents=True)
    (folder / "conala-human-grades.json").write_bytes(content)
    assert _eval(tmp_path, "--languages", "conala") == 3
    line = _one_line(capsys)
    assert "conala-human-grades.json" in line and says in line, line


def test_a_fifo_as_a_data_file_is_refused_without_waiting(tmp_path: Path) -> None:
    path = _humaneval(tmp_path, b"FIFO")
    result = subprocess.run([sys.executable, "-m", "refscore", "eval", "--data", str(tmp_path / "data"),
                             "--metrics", "chrf", "--languages", "python"],
                            capture_output=True, text=True, timeout=120, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 3, result.stderr
    assert f"{path}: is a named pipe (FIFO)" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_an_existing_file_at_save_scores_that_is_no_scores_file_is_one_line(tmp_path: Path, capsys) -> None:
    _humaneval(tmp_path, good)
    scores = tmp_path / "s.npz"
    scores.write_bytes(b"not an npz")
    assert _eval(tmp_path, "--languages", "python", "--save-scores", str(scores)) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"refscore eval: {scores}: not a scores file written by --save-scores (not a .npz archive); " \
                      "move it away or use --no-cache" and not any("Traceback" in line for line in err)


def test_unknown_cbs_languages_are_a_usage_error(tmp_path: Path, capsys) -> None:
    _humaneval(tmp_path, good)
    assert main(["eval", "--data", str(tmp_path / "data"), "--languages", "python", "--cbs-languages", "foo"]) == 2
    assert _one_line(capsys).startswith("refscore eval: --cbs-languages foo: choose from python")
