"""Helpers for tests that run real scoring daemons in private runtime directories."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from refscore.service.processes import pid_alive as alive

from tests.support.timing import hang_guard


def daemon_pids_in(run_dir: Path, variable: str = "REFSCORE_RUNTIME_DIR") -> list[int]:
    """Pids of live ``refscore daemon run`` processes whose environment sets ``variable`` to
    ``run_dir`` (their runtime directory, by default)."""
    needle = f"{variable}={run_dir}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and b"daemon" in cmdline and b"run" in cmdline and needle in environ:
            pids.append(int(entry.name))
    return sorted(pids)


def worker_pids_in(run_dir: Path, marker: bytes = b"spawn_main") -> list[int]:
    """Live multiprocessing children (``marker`` in their command line: a worker process; ``b"multiprocessing"``
    also its resource tracker) of a process whose environment sets ``REFSCORE_RUNTIME_DIR`` to ``run_dir``."""
    needle = f"REFSCORE_RUNTIME_DIR={run_dir}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if marker in cmdline and needle in environ and alive(int(entry.name)):
            pids.append(int(entry.name))
    return pids


def stop_daemon_in(run_dir: Path, timeout: float = 10.0) -> None:
    """Stop every daemon using ``run_dir`` (SIGTERM, then SIGKILL)."""
    pids = daemon_pids_in(run_dir) if Path("/proc").is_dir() else []
    try:
        info = json.loads((run_dir / "daemon.json").read_text())
        if isinstance(info.get("pid"), int) and info["pid"] not in pids:
            pids.append(info["pid"])
    except (OSError, ValueError):
        pass
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    for pid in pids:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def wait_until(predicate, timeout: float | None = None, interval: float = 0.05) -> bool:
    """Whether ``predicate()`` became true within ``timeout`` seconds (a hang guard by default)."""
    timeout = hang_guard() if timeout is None else timeout
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def python(code: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with ``env``."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)


def refscore(*args: str, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "refscore", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)
