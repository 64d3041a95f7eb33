"""Ctrl-C on a real `refscore grade` process: it stops cleanly, writes what was scored, and a
rerun picks up from the scored parts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from tests.data.grade.classgen import PY_NAMES, PY_REFERENCE, PY_STYLES

pytestmark = pytest.mark.timeout(180)
ITEMS = 4000


def write_rows(path: Path, items: int = ITEMS) -> None:
    """``items`` JSONL rows of Python candidates against one reference, every candidate different."""
    styles = list(PY_STYLES.values())
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(items):
            names = dict(PY_NAMES[i % len(PY_NAMES)])
            names["xs"] = f"{names['xs']}{i}"  # every candidate differs: no cache hits by accident
            fh.write(json.dumps({"id": f"c{i}", "candidate": styles[i % len(styles)].format(**names),
                                 "reference": PY_REFERENCE, "language": "python"}) + "\n")


def interrupt_when(cmd: list[str], env: dict[str, str], ready: Callable[[subprocess.Popen], None],
                   signum: int = signal.SIGINT) -> tuple[int, str]:
    """Start ``cmd``, wait until ``ready(proc)`` returns, send ``signum`` (SIGINT: Ctrl-C); its exit
    code and stderr (the process is killed if it outlives the test)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        ready(proc)
        assert proc.poll() is None, "finished before it could be interrupted"
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, stderr


def test_sigint_stops_cleanly_and_the_rerun_resumes(tmp_path):
    source = tmp_path / "runs.jsonl"
    write_rows(source)
    out, cache = tmp_path / "r.json", tmp_path / "r.parts" / "parts"
    cmd = [sys.executable, "-m", "refscore", "grade", "--jsonl", str(source), "--metrics", "codebleu",
           "--json", str(out), "--batch-size", "8", "--progress", "lines"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}

    def a_part_is_written(proc: subprocess.Popen) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if cache.is_dir() and any(cache.glob("b*.jsonl")):
                return
            time.sleep(0.05)

    returncode, stderr = interrupt_when(cmd, env, a_part_is_written)
    assert returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted" in stderr and "rerun the same command" in stderr
    data = json.loads(out.read_text())
    assert data["settings"]["interrupted"] is True
    subs = data["submissions"]
    assert len(subs) == ITEMS
    done = [s for s in subs if s["codebleu_native"] is not None]
    assert 0 < len(done) < ITEMS
    assert all("interrupted" in s["errors"][0] for s in subs if s["codebleu_native"] is None)
    kept = sum(len(p.read_text().splitlines()) for p in cache.glob("b*.jsonl"))
    assert kept >= len(done) - 8  # at most the batch in flight is lost

    # the rerun of the same command scores only what no part holds
    rerun = subprocess.run(cmd[:-2] + ["-q"], capture_output=True, text=True, env=env, timeout=150)
    assert rerun.returncode == 0, rerun.stderr
    settings = json.loads(out.read_text())["settings"]
    assert settings["from_cache"] >= len(done) and settings["from_cache"] + settings["scored_now"] == ITEMS


def test_sigint_without_a_cache_does_not_promise_the_scored_items_are_kept(tmp_path):
    """With ``--no-cache`` nothing scored outlives the run: the interrupted rows and the last line
    must not say that scored items are kept (a rerun scores everything again)."""
    source = tmp_path / "runs.jsonl"
    # progress lines come every 2 s, and a quiet machine scores 4,000 rows in about that: three
    # times as many leave the run scoring when the first line with items done arrives
    write_rows(source, 3 * ITEMS)
    out = tmp_path / "r.json"
    cmd = [sys.executable, "-m", "refscore", "grade", "--jsonl", str(source), "--metrics", "codebleu",
           "--json", str(out), "--batch-size", "8", "--progress", "lines", "--no-cache"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}

    def items_are_done(proc: subprocess.Popen) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:  # a progress line every 2 s: the first with items done
            if line.startswith("grade: ") and not line.startswith("grade: 0/"):
                return

    returncode, stderr = interrupt_when(cmd, env, items_are_done)
    assert returncode == 130, stderr
    assert "kept" not in stderr.replace("nothing was kept", "") and "scores everything again" in stderr
    subs = json.loads(out.read_text())["submissions"]
    waiting = [s for s in subs if s["codebleu_native"] is None]
    assert waiting and all("interrupted" in s["errors"][0] and "kept" not in s["errors"][0].replace(
        "nothing was kept", "") for s in waiting)
