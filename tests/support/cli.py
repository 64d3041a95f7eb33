"""Running the real `refscore` command line of this checkout in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_refscore(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python -m refscore ARGS` in ``cwd`` (offline, this checkout's code, no stdin); text
    output with undecodable bytes replaced."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "refscore", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, errors="replace")
