"""JavaScript in the sandbox under node: functions called with each input
(``harness/js_calls.js``), or the whole program run with a standard input. TypeScript reaches
here already turned into JavaScript (``js_typescript``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from ..calls import Call
from ..sandbox import BOX, Completed, Limits, Sandbox
from .records import run_resuming

#: node's own flags: a heap below the sandbox's address-space limit (so a program that fills it
#: fails as node's out-of-memory, not as a failed allocation anywhere), one V8 worker thread (the
#: sandbox's process limit counts threads: node then needs 5, not 8 or more), no warnings.
NODE_FLAGS = ("--max-old-space-size=512", "--v8-pool-size=1", "--no-warnings")


@lru_cache(maxsize=None)
def node_path() -> str | None:
    """The node executable (``/usr/bin/node`` first), None when there is none."""
    for candidate in ("/usr/bin/node", "/usr/local/bin/node"):
        if os.path.exists(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("node") or shutil.which("nodejs")


def _binds(path: str) -> tuple[str, ...]:
    """Folders the sandbox must show for node at ``path`` (its install prefix when outside /usr)."""
    real = Path(path).resolve()
    if str(real).startswith("/usr/"):
        return ()
    return (str(real.parent.parent),) if real.parent.name == "bin" else (str(real.parent),)


def reachable_by_others(path: str) -> bool:
    """Whether every folder up to ``path`` lets another user through (a root host runs the
    sandbox as a user of its own)."""
    real = Path(path).resolve()
    try:
        return all(part.stat().st_mode & stat.S_IXOTH for part in [*reversed(real.parents), real])
    except OSError:
        return False


def _argv(path: str, script: str) -> list[str]:
    return [path, *NODE_FLAGS, f"{BOX}/{script}"]


@lru_cache(maxsize=8)
def node_version(sandbox: Sandbox) -> str:
    """The major version of the node the sandbox runs (``20``), for the signature."""
    path = node_path()
    if path is None:
        return "none"
    completed = sandbox.run([path, "--version"], {}, limits=Limits(wall_seconds=10), binds=_binds(path))
    match = re.match(r"v?(\d+)", completed.stdout.decode("ascii", "replace").strip())
    return match.group(1) if match else "unknown"


def _harness() -> bytes:
    return resources.files("refscore.behaviour.harness").joinpath("js_calls.js").read_bytes()


def run_calls(sandbox: Sandbox, program: str, calls: Sequence[Call], call_seconds: float,
              wall_seconds: float, limits: Limits = Limits()) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The load line and one record per call of ``program``'s functions (``program`` is
    JavaScript that a ``vm.Script`` takes: no ``import``/``export``)."""
    path = node_path()
    if path is None:
        return {"load": "error", "e": "NodeMissing", "m": "node is not installed"}, []
    harness = _harness()
    per_run = Limits(**{**limits.__dict__, "wall_seconds": wall_seconds, "cpu_seconds": int(wall_seconds) + 2})

    def run(start: int) -> Completed:
        spec = {"calls": [{"f": c.function, "a": c.args} for c in calls[start:]], "call_seconds": call_seconds}
        files = {"program.js": program, "calls.json": json.dumps(spec), "js_calls.js": harness}
        return sandbox.run(_argv(path, "js_calls.js"), files, limits=per_run, binds=_binds(path))

    if not calls:
        return {"load": "ok"}, []
    return run_resuming(run, len(calls))


def syntax_error(sandbox: Sandbox, program: str) -> str | None:
    """``SyntaxError at line 3 (missing ) after argument list)`` when ``node --check`` refuses
    ``program``, else None."""
    path = node_path()
    if path is None:
        return None
    completed = sandbox.run([path, "--check", f"{BOX}/program.js"], {"program.js": program},
                            limits=Limits(wall_seconds=10), binds=_binds(path))
    if completed.returncode == 0 or completed.timed_out:
        return None
    lines = completed.stderr.decode("utf-8", "replace").splitlines()
    line = next((m.group(1) for m in (re.match(rf"^{BOX}/program\.js:(\d+)$", x) for x in lines[:1]) if m), None)
    message = next((x[len("SyntaxError:"):].strip() for x in lines if x.startswith("SyntaxError:")), None)
    if message is None:
        return None
    return "SyntaxError" + (f" at line {line}" if line else "") + f" ({message[:120]})"


def run_program(sandbox: Sandbox, program: str, stdin: str, wall_seconds: float,
                limits: Limits = Limits()) -> Completed:
    """``node program.js`` with ``stdin``."""
    path = node_path() or "node"
    per_run = Limits(**{**limits.__dict__, "wall_seconds": wall_seconds, "cpu_seconds": int(wall_seconds) + 1})
    return sandbox.run(_argv(path, "program.js"), {"program.js": program}, stdin=stdin.encode("utf-8"),
                       limits=per_run, binds=_binds(path))
