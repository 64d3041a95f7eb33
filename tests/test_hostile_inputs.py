"""Hostile inputs to `refscore score` and `refscore grade` (issue 16, defects 1 and 4): character
devices and FIFOs are refused with one line, never read forever or waited on; every read has a
hard byte cap. Real CLI processes, each under a timeout and an address-space limit, so a
regression fails instead of hanging or eating the machine's memory."""

from __future__ import annotations

import gzip
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REF = "def add(a, b):\n    total = a + b\n    return total\n"
CAND = "def add(x, y):\n    s = x + y\n    return s\n"
MEMORY_CAP = 2 << 30  # bytes of address space a CodeBLEU-only run may take (it needs ~0.1)

pytestmark = [pytest.mark.timeout(300),
              pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"),
                                 reason="needs FIFOs and /dev/zero (POSIX)")]


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def refscore(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the CLI of this checkout; a hang shows as TimeoutExpired (the child is killed)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "refscore", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, preexec_fn=_limits)


def one_line_error(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("grade:")]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "cand.py").write_text(CAND)
    os.mkfifo(tmp_path / "pipe.py")
    os.mkfifo(tmp_path / "pipe.toml")
    os.mkfifo(tmp_path / "pipe.jsonl")
    return tmp_path


def test_score_refuses_character_devices(work: Path) -> None:
    one_line_error(refscore("score", "/dev/zero", "cand.py", "--metrics", "codebleu", "--no-daemon", cwd=work),
                   3, "/dev/zero", "character device")
    one_line_error(refscore("score", "ref.py", "/dev/urandom", "--lang", "python", "--metrics", "codebleu",
                            "--no-daemon", cwd=work), 3, "/dev/urandom", "character device")


def test_score_refuses_fifos_without_waiting(work: Path) -> None:
    one_line_error(refscore("score", "pipe.py", "cand.py", "--metrics", "codebleu", "--no-daemon", cwd=work),
                   3, "pipe.py", "named pipe")
    one_line_error(refscore("score", "ref.py", "pipe.py", "--metrics", "codebleu", "--no-daemon", cwd=work),
                   3, "pipe.py", "named pipe")
    one_line_error(refscore("score", "ref.py", "cand.py", "--also-reference", "pipe.py", "--metrics", "codebleu",
                            "--no-daemon", cwd=work), 3, "pipe.py", "named pipe")


@pytest.mark.parametrize("args, needle", [
    (["--jsonl", "/dev/zero"], "character device"),
    (["--mapping", "/dev/zero"], "character device"),
    (["--jsonl", "pipe.jsonl"], "named pipe"),
    (["--mapping", "pipe.toml"], "named pipe"),
    (["-r", "pipe.py", "cand.py"], "named pipe"),
    (["-r", "/dev/zero", "--lang", "python", "cand.py"], "character device"),
    (["-r", "ref.py", "cand.py", "--context-file", "pipe.py"], "named pipe"),
    (["-r", "ref.py", "cand.py", "--context-file", "/dev/zero"], "character device"),
])
def test_grade_refuses_device_and_fifo_inputs(work: Path, args: list[str], needle: str) -> None:
    one_line_error(refscore("grade", *args, "--metrics", "codebleu", "--no-cache", "-q", cwd=work), 3, needle)


def test_grade_fifo_and_device_submissions_are_error_rows(work: Path) -> None:
    """A FIFO given as a submission, one inside a folder, and a mapping context file that is a
    FIFO: each is a row with one error; the run finishes and the rest is scored. The mapping's
    problem can then grade nothing, a problem-level error: exit 3 with one line naming the file
    (the score reports are still written, no grade book)."""
    folder = work / "class"
    folder.mkdir()
    (folder / "good.py").write_text(CAND)
    os.mkfifo(folder / "stuck.py")
    (work / "week.toml").write_text('[[problem]]\nname = "p"\nreference = "ref.py"\ncontext_file = "pipe.py"\n'
                                    'submissions = ["cand.py"]\n')
    result = refscore("grade", "-r", "ref.py", "pipe.py", "class", "--mapping", "week.toml",
                      "--metrics", "codebleu", "--no-cache", "-q", "--json", "out.json", cwd=work)
    assert result.returncode == 3, result.stderr
    assert [line for line in result.stderr.splitlines() if "nothing can be graded" in line] == [
        next(line for line in result.stderr.splitlines() if "pipe.py: is a named pipe" in line)]
    rows = {row["id"]: row for row in json.loads((work / "out.json").read_text())["submissions"]}
    assert rows["class/good.py"]["codebleu_native"] is not None and not rows["class/good.py"]["errors"]
    for sub_id in ("pipe.py", "class/stuck.py", "p/cand.py"):
        assert rows[sub_id]["codebleu_native"] is None
        assert "named pipe" in rows[sub_id]["errors"][0], rows[sub_id]


def test_jsonl_lines_and_total_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An over-long JSONL line is one error row and the next lines are still read; past the
    total cap (a gzip bomb) the file is refused with one line."""
    from refscore.cli import main
    from refscore.errors import InputFileError
    from refscore.grade import blocks, records

    monkeypatch.setattr(blocks, "MAX_INPUT_BYTES", 2000)
    monkeypatch.setattr(records, "MAX_INPUT_BYTES", 2000)  # the line's item says why
    good = {"id": "ok", "candidate": CAND, "reference": REF, "language": "python"}
    long_line = json.dumps({**good, "id": "long", "candidate": "x = 1\n" * 1000})
    path = tmp_path / "runs.jsonl.gz"
    path.write_bytes(gzip.compress("\n".join([json.dumps(good), long_line, json.dumps({**good, "id": "after"})])
                                   .encode()))
    out = tmp_path / "r.json"
    assert main(["grade", "--jsonl", str(path), "--metrics", "codebleu", "--json", str(out), "-q", "--no-cache"]) == 0
    rows = {row["id"]: row for row in json.loads(out.read_text())["submissions"]}
    assert set(rows) == {"ok", "runs.jsonl.gz:2", "after"}
    assert "over the" in rows["runs.jsonl.gz:2"]["errors"][0]
    assert rows["after"]["codebleu_native"] is not None

    monkeypatch.setattr(blocks, "MAX_JSONL_BYTES", 50_000)
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress((json.dumps(good) + "\n").encode() * 1000 + b"\n" * 10_000_000))
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputFileError, match="over the limit"):
        blocks.load_jsonl(bomb)
