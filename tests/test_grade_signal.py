"""Ctrl-C on a real `refscore grade` process: it stops cleanly, writes what was scored, and a
rerun picks up from the cache."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.data.grade.classgen import PY_NAMES, PY_REFERENCE, PY_STYLES

pytestmark = pytest.mark.timeout(180)
ITEMS = 4000


def _jsonl(path: Path) -> None:
    styles = list(PY_STYLES.values())
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(ITEMS):
            names = dict(PY_NAMES[i % len(PY_NAMES)])
            names["xs"] = f"{names['xs']}{i}"  # every candidate differs: no cache hits by accident
            fh.write(json.dumps({"id": f"c{i}", "candidate": styles[i % len(styles)].format(**names),
                                 "reference": PY_REFERENCE, "language": "python"}) + "\n")


def test_sigint_stops_cleanly_and_the_rerun_resumes(tmp_path):
    source = tmp_path / "runs.jsonl"
    _jsonl(source)
    out, cache = tmp_path / "r.json", tmp_path / "r.cache.jsonl"
    cmd = [sys.executable, "-m", "refscore", "grade", "--jsonl", str(source), "--metrics", "codebleu",
           "--json", str(out), "--batch-size", "8", "--progress", "lines"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if cache.exists() and cache.stat().st_size > 0:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted" in stderr and "rerun the same command" in stderr
    data = json.loads(out.read_text())
    assert data["settings"]["interrupted"] is True
    subs = data["submissions"]
    assert len(subs) == ITEMS
    done = [s for s in subs if s["codebleu"] is not None]
    assert 0 < len(done) < ITEMS
    assert all("interrupted" in s["errors"][0] for s in subs if s["codebleu"] is None)
    cached_lines = len([line for line in cache.read_text().splitlines() if line.strip()])
    assert cached_lines >= len(done) - 8  # at most the batch in flight is lost

    # the rerun (first 200 lines only, to keep the test short) scores nothing already cached
    head = tmp_path / "head.jsonl"
    head.write_text("".join(source.read_text().splitlines(keepends=True)[:200]))
    rerun = subprocess.run([sys.executable, "-m", "refscore", "grade", "--jsonl", str(head), "--metrics", "codebleu",
                            "--json", str(tmp_path / "h.json"), "--cache", str(cache), "-q"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    settings = json.loads((tmp_path / "h.json").read_text())["settings"]
    assert settings["from_cache"] == min(200, cached_lines)
    assert settings["from_cache"] + settings["scored_now"] == 200
