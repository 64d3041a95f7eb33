"""Carrying out a set-up plan: each step a child process, every line of it in the log, events
(``plan``, ``step``, ``progress``, ``done``, ``failed``) to the caller, one line on failure, and
the half-made environment removed after a failure or a cancel."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from ..file_lock import FileLock
from .plan import MARKER, STARTED, Plan, Step, is_ready, lock_path

Event = dict[str, object]
Emit = Callable[[Event], None]

_PIP = re.compile(r"^\s*(Collecting|Downloading|Processing|Installing collected packages|Successfully installed)"
                  r"\s*:?\s*(.*)$")


class Cancelled(Exception):
    """The user stopped the set-up (Ctrl-C, SIGTERM)."""


def progress_line(line: str) -> str | None:
    """A short progress message from a line of pip's output, or None when it says nothing new."""
    match = _PIP.match(line)
    if match is None or match.group(1) == "Successfully installed":
        return None
    if match.group(1) == "Installing collected packages":
        return "installing the downloaded packages"
    what = re.sub(r"\s+\(from .*$", "", re.sub(r"https?://\S+/", "", match.group(2))).strip()
    return f"{match.group(1).lower()} {what}"[:100]


def failure_reason(lines: list[str], step: Step, code: int | None) -> str:
    """The one line to show: pip's last ERROR line, else the step's last line of output."""
    errors = [line for line in lines if re.match(r"^\s*(ERROR:|\w*Error:|error:)", line)]
    last = errors[-1] if errors else next((line for line in reversed(lines) if line.strip()), "")
    why = re.sub(r"^\s*ERROR:\s*", "", last).strip()[:300] or f"exit status {code}"
    return f"{step.title} failed: {why}"


def step_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The steps' environment: ours, without what would make the new interpreter load other libraries."""
    env = dict(os.environ if base is None else base, PIP_NO_INPUT="1", PYTHONUNBUFFERED="1")
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"):
        env.pop(name, None)
    return env


class Cancel:
    """A stop request, set from a signal handler (Ctrl-C, SIGTERM): it kills the running step's
    whole process group at once, and the install stops after it. Nothing is raised in the middle
    of starting a step, so no child is ever left running unseen."""

    def __init__(self) -> None:
        self.requested = False
        self._child: subprocess.Popen[str] | None = None

    def request(self, *_: object) -> None:
        self.requested = True
        if self._child is not None:
            _kill(self._child)

    def watch(self, child: subprocess.Popen[str] | None) -> None:
        self._child = child
        if child is not None and self.requested:  # the request came while the step was starting
            _kill(child)


def _kill(child: subprocess.Popen[str]) -> None:
    """Kill the step and whatever it started (venv runs ensurepip, pip runs builds)."""
    try:
        if os.name == "posix":
            os.killpg(child.pid, signal.SIGKILL)
        else:
            child.kill()
    except OSError:
        pass


def _run_step(step: Step, index: int, log: TextIO, emit: Emit, cancel: Cancel) -> tuple[int | None, list[str]]:
    log.write(f"$ {' '.join(step.argv)}\n")
    log.flush()
    lines: list[str] = []
    try:
        # a process group of its own, which a cancel kills whole
        child = subprocess.Popen(step.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 text=True, encoding="utf-8", errors="replace", env=step_env(),
                                 start_new_session=os.name == "posix")
    except OSError as error:
        return None, [f"ERROR: {step.argv[0]}: {error.strerror or error}"]
    cancel.watch(child)
    try:
        assert child.stdout is not None
        for raw in child.stdout:
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            lines.append(line)
            log.write(line + "\n")
            log.flush()
            shown = progress_line(line)
            if shown:
                emit({"event": "progress", "step": index, "message": shown})
        return child.wait(), lines
    except BaseException:
        _kill(child)
        raise
    finally:
        cancel.watch(None)
        child.wait()


def _remove(env: Path) -> None:
    """Remove a folder this command made (it holds STARTED or the marker), nothing else."""
    if (env / STARTED).exists() or (env / MARKER).exists():
        shutil.rmtree(env, ignore_errors=True)


def run_setup(plan: Plan, emit: Emit, force: bool = False, cancel: Cancel | None = None) -> bool:
    """Carry out ``plan``; True when the environment is ready. Raises Cancelled (after cleaning up)
    when ``cancel`` is requested or on KeyboardInterrupt; every other way out is a ``done`` or
    ``failed`` event. One set-up of an environment at a time (``lock_path``): a second one fails
    at once instead of removing the half-made environment under the first."""
    if plan.problems:
        emit({"event": "failed", "reason": "cannot start: " + "; ".join(plan.problems), "problems": list(plan.problems),
              "log": None})
        return False
    env = Path(plan.env)
    lock = FileLock(lock_path(env))
    try:  # the plan checked the places; this is what changed since, or what only writing tells
        env.parent.mkdir(parents=True, exist_ok=True)
        taken = lock.acquire(0)
    except OSError as error:
        emit({"event": "failed", "reason": f"cannot write beside {env} ({lock.path}): {error.strerror or error}",
              "log": None})
        return False
    if not taken:  # each would remove the environment the other is making
        emit({"event": "failed", "reason": f"another refscore setup is making {env}; wait until it ends "
              f"(its log: {plan.log})", "log": plan.log})
        return False
    try:
        return _make(plan, emit, force, cancel or Cancel())
    finally:
        lock.release()


def _make(plan: Plan, emit: Emit, force: bool, cancel: Cancel) -> bool:
    """``run_setup`` once it holds the environment's lock."""
    env = Path(plan.env)
    if is_ready(env) and not force:
        emit({"event": "done", "already": True, "env": plan.env, "python": plan.python, "seconds": 0.0,
              "log": plan.log})
        return True
    started = time.monotonic()
    try:
        log = open(plan.log, "w", encoding="utf-8")  # noqa: SIM115 - closed by the with below
    except OSError as error:
        emit({"event": "failed", "reason": f"cannot write the log {plan.log}: {error.strerror or error}",
              "log": None})
        return False
    with log:
        log.write(f"refscore setup, {datetime.now(timezone.utc).isoformat(timespec='seconds')}\n")
        log.write(f"{plan.question}\n" + "\n".join(plan.details) + "\n")
        _remove(env)
        try:
            env.mkdir(parents=True, exist_ok=True)
            (env / STARTED).write_text("refscore setup is making this environment\n", encoding="utf-8")
        except OSError as error:
            reason = f"cannot make {env}: {error.strerror or error}"
            log.write(f"FAILED: {reason}\n")
            emit({"event": "failed", "reason": reason, "log": plan.log})
            return False
        try:
            for index, step in enumerate(plan.steps, 1):
                if cancel.requested:
                    raise KeyboardInterrupt
                emit({"event": "step", "step": index, "steps": len(plan.steps), "title": step.title})
                code, lines = _run_step(step, index, log, emit, cancel)
                if cancel.requested:
                    raise KeyboardInterrupt
                if code != 0:
                    reason = failure_reason(lines, step, code)
                    log.write(f"FAILED: {reason}\n")
                    _remove(env)
                    emit({"event": "failed", "step": index, "title": step.title, "reason": reason, "log": plan.log})
                    return False
        except KeyboardInterrupt:  # a stop request (Cancel), or Ctrl-C where no handler asks for one
            log.write("CANCELLED\n")
            _remove(env)
            raise Cancelled() from None
        except Exception:
            _remove(env)
            raise
        (env / MARKER).write_text(json.dumps({
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"), "python": plan.python,
            "steps": [s.title for s in plan.steps]}, indent=2) + "\n", encoding="utf-8")
        (env / STARTED).unlink(missing_ok=True)
        seconds = round(time.monotonic() - started, 1)
        log.write(f"done in {seconds} s\n")
    emit({"event": "done", "already": False, "env": plan.env, "python": plan.python, "seconds": seconds,
          "log": plan.log})
    return True
