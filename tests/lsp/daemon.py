"""The real scoring daemon for the CodeBERTScore tests: isolated per test, always stopped."""

from __future__ import annotations

import importlib
import os
import signal
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def bert_unavailable() -> str | None:
    """Why the CodeBERTScore tests cannot run here (None when they can)."""
    try:
        service = importlib.import_module("refscore.service")
        service.connect_daemon  # noqa: B018
        importlib.import_module("refscore.embed.bertscorer")
        registry = importlib.import_module("refscore.embed.registry")
        registry.resolve_model("python")
    except Exception as error:  # noqa: BLE001
        return f"CodeBERTScore through the daemon is unavailable: {type(error).__name__}: {error}"
    return None


def daemon_env(tmp: Path) -> dict[str, str]:
    """Environment giving the server's daemon its own runtime and log folders."""
    (tmp / "run").mkdir(exist_ok=True)
    (tmp / "log").mkdir(exist_ok=True)
    return {"REFSCORE_RUNTIME_DIR": str(tmp / "run"), "REFSCORE_LOG_DIR": str(tmp / "log")}


def daemon_pid(env: dict[str, str]) -> int | None:
    """The pid of the daemon serving ``env``'s runtime folder (None when none runs)."""
    from refscore.service import DaemonClient

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with DaemonClient(autostart=False) as client:
            return client.connect().get("pid")
    except Exception:  # noqa: BLE001
        return None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def stop_daemon(env: dict[str, str]) -> None:
    """Kill the daemon of ``env`` if one runs, and wait until it is gone."""
    pid = daemon_pid(env)
    if pid is None:
        return
    kill(pid)


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


@contextmanager
def silent_daemon(deadline_s: float) -> Iterator[dict[str, str]]:
    """A "daemon" that holds the lock and accepts connections but never answers (a hung one);
    yields the environment that points a client at it (``REFSCORE_DAEMON_DEADLINE``: ``deadline_s``)."""
    import json
    import shutil
    import socket
    import tempfile

    from refscore.service.paths import FileLock

    place = Path(tempfile.mkdtemp(prefix="rsx-"))  # short: a Unix socket path has at most 107 bytes
    run = place / "run"
    run.mkdir(mode=0o700)
    lock = FileLock(run / "daemon.lock")
    assert lock.acquire(0)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(run / "daemon.sock"))
    silent.listen(8)
    (run / "daemon.json").write_text(json.dumps({"pid": os.getpid(), "transport": "unix",
                                                 "address": str(run / "daemon.sock"), "protocol": 1}))
    try:
        yield {"REFSCORE_RUNTIME_DIR": str(run), "REFSCORE_LOG_DIR": str(place / "log"),
               "REFSCORE_DAEMON_DEADLINE": str(deadline_s)}
    finally:
        (run / "daemon.json").unlink()  # it names this process: nothing may try to stop it
        silent.close()
        lock.release()
        shutil.rmtree(place, ignore_errors=True)


@contextmanager
def own_daemon(tmp: Path) -> Iterator[dict[str, str]]:
    """The environment of a daemon private to one test (runtime and log folders under ``tmp``),
    stopped at the end."""
    env = daemon_env(tmp)
    try:
        yield env
    finally:
        stop_daemon(env)
