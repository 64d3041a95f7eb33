"""The code has no undefined names, unused imports or variables, or syntax errors (ruff's F and E9)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_pyflakes_rules_pass() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "F,E9", "--no-cache",
                             "server", "tests", "benchmarks"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
