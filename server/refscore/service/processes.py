"""The daemon as a process: starting it detached, its startup log, whether it lives, its exit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from . import paths


def spawn_daemon(args: Sequence[str] = ()) -> subprocess.Popen[bytes]:
    """Start ``refscore daemon run`` detached from this process (new session, no terminal).

    The child runs this very package (its folder is put first on ``PYTHONPATH``), so client and
    daemon agree on the code. Early output before logging is set up goes to ``daemon.stderr`` in
    the log directory.
    """
    package_parent = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH", "")) if p)
    log_directory = paths.ensure_log_dir()
    if env.get(paths.LOG_DIR_ENV):  # a relative one would name a folder inside the runtime folder
        env[paths.LOG_DIR_ENV] = str(log_directory)
    stderr = open(startup_log(), "ab")  # noqa: SIM115 - handed to the child
    kwargs: dict[str, Any] = {}
    if sys.platform == "win32":  # pragma: no cover
        kwargs["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        kwargs["start_new_session"] = True
    try:
        return subprocess.Popen([sys.executable, "-m", "refscore", "daemon", "run", *args],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                cwd=str(paths.runtime_dir()), env=env, close_fds=True, **kwargs)
    finally:
        stderr.close()


def startup_log() -> Path:
    return paths.log_dir() / "daemon.stderr"


def startup_log_size() -> int:
    """How many bytes ``daemon.stderr`` holds now (0 when it does not exist): where the output
    of a start about to be made begins, for ``log_tail``."""
    try:
        return startup_log().stat().st_size
    except OSError:
        return 0


def log_tail(lines: int = 3, since: int = 0) -> str:
    """``": "`` and the last ``lines`` lines of ``daemon.stderr`` from byte ``since`` on (what one
    start wrote: every start appends to the file), joined with ``" | "``; ``""`` when none."""
    try:
        with open(startup_log(), "rb") as file:
            file.seek(since)
            data = file.read()
    except OSError:
        return ""
    tail = data.decode("utf-8", errors="replace").strip().splitlines()[-lines:]
    return (": " + " | ".join(t.strip() for t in tail)) if tail else ""


def reap_in_background(process: subprocess.Popen[bytes]) -> None:
    """Collect the daemon's exit status whenever it exits, so it never lingers as a zombie."""
    threading.Thread(target=process.wait, name="refscore-daemon-reaper", daemon=True).start()


def pid_alive(pid: int | None) -> bool:
    """Whether process ``pid`` exists and has not exited (a zombie, exited but not yet reaped by
    its parent, counts as gone)."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    state = process_state(pid)
    if state is None:
        return not os.path.isdir("/proc")  # it vanished meanwhile; without /proc, trust kill()
    return state != "Z"


def process_state(pid: int | None) -> str | None:
    """The one-letter state of process ``pid`` from ``/proc`` (``R``, ``S``, ``T`` stopped, ...),
    or None when unknown (no such process, no ``/proc``)."""
    if not isinstance(pid, int) or pid <= 0:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def process_stopped(pid: int | None) -> bool:
    """Whether ``pid`` is stopped by a signal (SIGSTOP, SIGTSTP) or a tracer."""
    return process_state(pid) in ("T", "t")


def is_daemon_process(pid: int | None) -> bool:
    """Whether ``pid`` runs ``refscore daemon run`` (so a pid from ``daemon.json`` that the kernel
    has since given to another program is never signalled)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
    except OSError:
        return pid_alive(pid) and not os.path.isdir("/proc")  # without /proc, trust daemon.json
    return b"daemon" in argv and b"run" in argv and any(b"refscore" in a for a in argv)


def terminate(pid: int, grace: float = 5.0) -> bool:
    """End daemon ``pid`` that does not answer: SIGTERM (and SIGCONT, so a stopped one receives
    it), then SIGKILL after ``grace`` seconds. True once it has exited and released its lock."""
    for sig in (signal.SIGTERM, getattr(signal, "SIGCONT", None)):
        if sig is not None:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return wait_for_exit(pid, grace)
    if wait_for_exit(pid, grace):
        return True
    try:
        os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    except ProcessLookupError:
        pass
    return wait_for_exit(pid, grace)


def wait_for_exit(pid: int | None, timeout: float) -> bool:
    """Wait until the daemon has released the daemon lock (its last act) and ``pid`` is gone."""
    lock = paths.runtime_dir() / paths.LOCK_NAME
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not paths.lock_is_held(lock) and not pid_alive(pid):
            return True
        time.sleep(0.03)
    return False
