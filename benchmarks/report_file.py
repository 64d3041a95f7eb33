"""A machine-written report: the values a benchmark or study measured, with the command that made
them and the state of the machine, so every figure in README.md and docs/ can be traced and checked
(``benchmarks/claims.py``).

A report is a JSON object ``{"command", "generated", "machine", "values"}``; ``values`` is any JSON
tree, and a claim names a path in it.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def machine() -> dict[str, Any]:
    """The machine as a reader of the figures needs it: cores, load average, Python, commit."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {"cores": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "platform": platform.platform(terse=True), "commit": commit}


def command_line(argv: list[str] | None = None) -> str:
    """The command that is running, as a reader would type it from the repository root."""
    argv = list(sys.argv if argv is None else argv)
    script = Path(argv[0])
    try:
        argv[0] = str(script.resolve().relative_to(REPO))
    except ValueError:
        pass
    head = [".venv/bin/python"] if argv[0].endswith(".py") else []
    return shlex.join(head + argv)


def write_report(path: Path, values: Any, command: str | None = None) -> Path:
    """Write ``values`` as a report at ``path`` (parents made); returns the path."""
    report = {"command": command or command_line(), "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "machine": machine(), "values": values}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path
