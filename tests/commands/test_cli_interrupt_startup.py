"""Ctrl-C that lands while ``refscore``'s own modules are still being imported (before
``cli.main`` has its handler) is ``refscore: interrupted`` and exit 130, never a traceback: the
entry points (``python -m refscore`` and the console script pyproject names) catch it first.

The moments are events, not a clock: ``-X importtime`` reports each import as it ends, and the
signal is sent when the named module's line arrives (the import after it is then under way)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "python"
ARGS = ["score", str(EXAMPLES / "reference.py"), str(EXAMPLES / "candidate_close.py"), "--no-daemon"]


def _console_script() -> list[str]:
    """What the installed ``refscore`` script runs: the function pyproject's entry point names."""
    spec = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["refscore"]
    module, function = spec.split(":")
    return ["-c", f"import sys; from {module} import {function}; sys.argv[0] = 'refscore'; sys.exit({function}())"]


ENTRIES = {"python -m refscore": ["-m", "refscore"], "console script": _console_script()}
#: Modules whose import ends early in start-up: each is followed by more of refscore's imports.
MOMENTS = ("argparse", "refscore.errors", "refscore.vocabulary", "refscore.cli")


def _interrupt_after(entry: list[str], module: str) -> tuple[int, list[str], bool]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH")) if p)}
    process = subprocess.Popen([sys.executable, "-X", "importtime", *entry, *ARGS], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env)
    assert process.stderr is not None
    lines, sent = [], False
    for line in process.stderr:  # the child goes on importing while this reads
        lines.append(line)
        if line.startswith("import time:") and line.rstrip().split("|")[-1].strip() == module:
            process.send_signal(signal.SIGINT)
            sent = True
            break
    rest = process.communicate(timeout=240)[1]
    said = [line for line in (*lines, *rest.splitlines(True)) if not line.startswith("import time:")]
    return process.returncode, [line.rstrip("\n") for line in said if line.strip()], sent


@pytest.mark.timeout(600)
@pytest.mark.parametrize("entry", ENTRIES, ids=list(ENTRIES))
@pytest.mark.parametrize("module", MOMENTS)
def test_ctrl_c_during_start_up_imports_is_one_line_and_130(entry: str, module: str) -> None:
    code, said, sent = _interrupt_after(ENTRIES[entry], module)
    assert sent, f"{module} was never imported"
    assert not any("Traceback" in line or "KeyboardInterrupt" in line for line in said), "\n".join(said)
    assert code == 130, (code, said)
    assert said == ["refscore: interrupted"], said
