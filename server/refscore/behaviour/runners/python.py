"""Python in the sandbox: functions called with each input (``harness/python_calls.py``), or
the whole program run with a standard input."""

from __future__ import annotations

import marshal
import os
import stat
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from ..calls import Call
from ..sandbox import BOX, Completed, Limits, Sandbox
from .records import run_resuming


@lru_cache(maxsize=None)
def interpreter(run_as_other_user: bool) -> tuple[str, tuple[str, ...]]:
    """(path, folders to show read-only) of the Python the sandbox runs: this one when another
    user can reach it, else the system's ``python3``."""
    own = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    if own.exists() and (not run_as_other_user or _reachable_by_others(own)):
        prefix = str(Path(sys.base_prefix).resolve())
        return str(own), (() if prefix.startswith("/usr") else (prefix,))
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(candidate):
            return candidate, ()
    return str(own), ()


def _reachable_by_others(path: Path) -> bool:
    path = path.resolve()
    for part in [*reversed(path.parents), path]:
        mode = part.stat().st_mode
        if not mode & stat.S_IXOTH:
            return False
    return True


def python_version() -> str:
    """``3.11`` of the interpreter the sandbox runs (for the signature): the name it resolves to
    (``/usr/bin/python3`` -> ``python3.11``), the one ``run_calls`` and ``run_program`` start."""
    name = Path(os.path.realpath(interpreter(_runs_as_other_user())[0])).name
    return name[len("python"):] if name.startswith("python") and "." in name else f"{sys.version_info[0]}.{sys.version_info[1]}"


def _runs_as_other_user() -> bool:
    """Whether runs are another user's: as root, sandboxed or not (``Sandbox.run`` gives each run
    a user of its own), so the interpreter must be one that user can reach."""
    return os.geteuid() == 0


def _harness() -> bytes:
    return resources.files("refscore.behaviour.harness").joinpath("python_calls.py").read_bytes()


def run_calls(sandbox: Sandbox, program: str, calls: Sequence[Call], call_seconds: float,
              wall_seconds: float, limits: Limits = Limits()) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The load line and one record per call of ``program``'s functions."""
    path, binds = interpreter(_runs_as_other_user())
    harness = _harness()
    per_run = Limits(**{**limits.__dict__, "wall_seconds": wall_seconds, "cpu_seconds": int(wall_seconds) + 2})

    def run(start: int) -> Completed:
        spec = {"calls": [{"f": c.function, "a": c.args} for c in calls[start:]], "call_seconds": call_seconds}
        files = {"program.py": program, "calls.bin": marshal.dumps(spec, 2), "harness.py": harness}
        return sandbox.run([path, "-I", "-S", "-X", "utf8", f"{BOX}/harness.py"], files, limits=per_run, binds=binds)

    if not calls:
        return {"load": "ok"}, []
    return run_resuming(run, len(calls))


def run_program(sandbox: Sandbox, program: str, stdin: str, wall_seconds: float,
                limits: Limits = Limits()) -> Completed:
    """``program`` run as a script with ``stdin``."""
    path, binds = interpreter(_runs_as_other_user())
    per_run = Limits(**{**limits.__dict__, "wall_seconds": wall_seconds, "cpu_seconds": int(wall_seconds) + 1})
    return sandbox.run([path, "-I", "-S", "-X", "utf8", f"{BOX}/program.py"], {"program.py": program},
                       stdin=stdin.encode("utf-8"), limits=per_run, binds=binds)
