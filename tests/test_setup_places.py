"""``refscore setup`` given places and interpreters that cannot work: the problem in one line
(in the plan, and as a ``failed`` event with ``--json``), never an internal error, and two set-ups
of one environment at once never undo each other. The real command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _setup(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    return subprocess.run([sys.executable, "-m", "refscore", "setup", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


def test_a_python_that_runs_but_is_no_python_is_named_so(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'not today' >&2\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    done = _setup("--plan", "--json", "--env", str(tmp_path / "env"), "--python", str(fake))
    assert done.returncode == 1, done.stderr
    problems = json.loads(done.stdout)["problems"]
    assert problems == [f"{fake} does not run as Python (exit status 1: not today)"]
