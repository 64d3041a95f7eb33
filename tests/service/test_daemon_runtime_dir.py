"""Where the daemon lives (issue 25, item 15), with real daemon processes.

* One rule: ``$XDG_RUNTIME_DIR/refscore`` when ``$XDG_RUNTIME_DIR`` is set. A 0777 one is refused
  in one line (exit 6), never swapped for platformdirs' shared ``/tmp/runtime-<uid>`` fallback,
  so after ``chmod 700`` ``daemon status`` and ``stop`` find the daemon that runs.
* A daemon killed (``kill -9``) under a run gives one "scoring in this process" note, not two.

``REFSCORE_RUNTIME_DIR`` is removed from these tests' environment (it would override the rule);
``TMPDIR`` points into the test's folder, so a fallback, were there one, would land there too.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from refscore.errors import EXIT_UNSAFE_RUNTIME_DIR
from refscore.service.client import DaemonClient

from tests.support.daemons import (
    alive,
    daemon_pids_in,
    refscore,
    stop_daemon_in,
    wait_until,
)
from tests.support.timing import hang_guard
from tests.service.test_daemon import Place, big_python


@pytest.fixture
def xdg(monkeypatch: pytest.MonkeyPatch):
    """A private $XDG_RUNTIME_DIR and $TMPDIR in a fresh folder; every daemon started with them
    is stopped at the end."""
    root = Path(tempfile.mkdtemp(prefix="rsx-"))
    Place(root, monkeypatch)  # log dir, no idle/transport overrides
    monkeypatch.delenv("REFSCORE_RUNTIME_DIR")
    (root / "xdg").mkdir(mode=0o700)
    (root / "tmp").mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root / "xdg"))
    monkeypatch.setenv("TMPDIR", str(root / "tmp"))
    yield root
    for pid in daemon_pids_in(root / "xdg", "XDG_RUNTIME_DIR"):
        os.kill(pid, signal.SIGKILL)
    stop_daemon_in(root / "xdg" / "refscore")
    shutil.rmtree(root, ignore_errors=True)


def test_a_world_writable_xdg_runtime_dir_is_refused_not_moved(xdg: Path) -> None:
    env = dict(os.environ)
    os.chmod(xdg / "xdg", 0o777)
    for args in (("daemon", "start", "--no-preload", "--idle-timeout", "120"), ("daemon", "status"),
                 ("daemon", "stop")):
        result = refscore(*args, env=env)
        assert result.returncode == EXIT_UNSAFE_RUNTIME_DIR, (args, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "writable by other users" in lines[0] and "chmod 700" in lines[0], lines
    assert daemon_pids_in(xdg / "xdg", "XDG_RUNTIME_DIR") == []  # no daemon anywhere
    assert list((xdg / "tmp").iterdir()) == [] and list((xdg / "xdg").iterdir()) == []
    os.chmod(xdg / "xdg", 0o700)  # the cause fixed: the same place is used by every command
    started = refscore("daemon", "start", "--no-preload", "--idle-timeout", "120", env=env)
    assert started.returncode == 0, started.stderr
    assert (xdg / "xdg" / "refscore" / "daemon.sock").exists()
    [pid] = daemon_pids_in(xdg / "xdg", "XDG_RUNTIME_DIR")
    status = refscore("daemon", "status", env=env)
    assert status.returncode == 0 and str(pid) in status.stdout, status.stdout + status.stderr
    stopped = refscore("daemon", "stop", env=env)
    assert stopped.returncode == 0, stopped.stderr
    assert wait_until(lambda: not alive(pid), timeout=hang_guard())
    assert refscore("daemon", "status", env=env).returncode == 1


def test_a_group_writable_runtime_dir_is_refused(xdg: Path) -> None:
    own = xdg / "xdg" / "refscore"
    own.mkdir(mode=0o700)
    os.chmod(own, 0o770)
    result = refscore("daemon", "start", "--no-preload", env=dict(os.environ))
    assert result.returncode == EXIT_UNSAFE_RUNTIME_DIR, result.stderr
    assert "writable by other users (mode 0o770)" in result.stderr and str(own) in result.stderr
    assert list(own.iterdir()) == []


def test_a_killed_daemon_gives_one_fallback_note(xdg: Path) -> None:
    env = dict(os.environ)
    assert refscore("daemon", "start", "--no-preload", "--idle-timeout", "120", env=env).returncode == 0
    [pid] = daemon_pids_in(xdg / "xdg", "XDG_RUNTIME_DIR")
    reference, candidate = xdg / "ref.py", xdg / "cand.py"
    reference.write_text(big_python(2500, 1))
    candidate.write_text(big_python(2500, 2))
    run = subprocess.Popen([sys.executable, "-m", "refscore", "score", str(reference), str(candidate),
                            "--metrics", "codebleu", "--json"], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with DaemonClient(autostart=False, deadline=hang_guard()) as client:  # a CLI a look took seconds
            in_flight = wait_until(lambda: _in_flight(client) or run.poll() is not None, timeout=hang_guard())
            in_flight = in_flight and run.poll() is None
        os.kill(pid, signal.SIGKILL)
        out, err = run.communicate(timeout=hang_guard(300))
    finally:
        if run.poll() is None:
            run.kill()
    assert in_flight, "the request never reached the daemon"
    assert run.returncode == 0, err
    assert err.count("scoring in this process") == 1, err
    assert '"codebleu_native"' in out


def _in_flight(client: DaemonClient) -> bool:
    """Whether the daemon has a request in flight (asked over the client's one connection)."""
    try:
        return client.status()["queue"]["in_flight"] >= 1
    except (KeyError, TypeError):
        return False


def test_a_relative_runtime_dir_is_refused_and_a_relative_xdg_one_ignored(xdg: Path) -> None:
    """A relative REFSCORE_RUNTIME_DIR named a different folder from every working folder (the
    daemon runs in its own: it made ``rrr/rrr`` and start failed, exit 5); a relative
    $XDG_RUNTIME_DIR is ignored, as the XDG spec says: runtime-<uid>/refscore in $TMPDIR."""
    work = xdg / "work"
    work.mkdir()
    env = {**os.environ, "REFSCORE_RUNTIME_DIR": "rrr"}
    result = subprocess.run([sys.executable, "-m", "refscore", "daemon", "start", "--no-preload"], cwd=work,
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == EXIT_UNSAFE_RUNTIME_DIR, result.stderr
    assert "relative path" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert list(work.iterdir()) == []
    env = {**os.environ, "XDG_RUNTIME_DIR": "xdg"}
    started = subprocess.run([sys.executable, "-m", "refscore", "daemon", "start", "--no-preload",
                              "--idle-timeout", "60"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    assert (xdg / "tmp" / f"runtime-{os.getuid()}" / "refscore" / "daemon.sock").exists()
    status = subprocess.run([sys.executable, "-m", "refscore", "daemon", "stop"], cwd=xdg, env=env,
                            capture_output=True, text=True, timeout=120)
    assert status.returncode == 0, status.stderr


def test_a_relative_log_dir_names_one_folder(xdg: Path) -> None:
    """A relative REFSCORE_LOG_DIR split the logs: daemon.stderr in the caller's folder,
    daemon.log inside the runtime folder (the daemon runs there), and status showed the relative
    path. Now both are in the caller's folder and status names it absolutely."""
    work = xdg / "work"
    work.mkdir()
    env = {**os.environ, "REFSCORE_LOG_DIR": "lll"}
    started = subprocess.run([sys.executable, "-m", "refscore", "daemon", "start", "--no-preload",
                              "--idle-timeout", "60"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    assert wait_until(lambda: (work / "lll" / "daemon.log").exists(), timeout=hang_guard())
    assert not (xdg / "xdg" / "refscore" / "lll").exists()
    status = subprocess.run([sys.executable, "-m", "refscore", "daemon", "status"], cwd=work, env=env,
                            capture_output=True, text=True, timeout=120)
    assert str(work / "lll" / "daemon.log") in status.stdout, status.stdout


def test_status_json_with_an_unsafe_runtime_dir_is_a_json_error(xdg: Path) -> None:
    """``daemon status --json`` printed nothing on stdout for an unsafe runtime directory (only the
    stderr line): a script reading the JSON got no object to read."""
    import json

    os.chmod(xdg / "xdg", 0o777)
    result = refscore("daemon", "status", "--json", env=dict(os.environ))
    assert result.returncode == EXIT_UNSAFE_RUNTIME_DIR, (result.stdout, result.stderr)
    status = json.loads(result.stdout)
    assert status["running"] is None and status["exit_code"] == EXIT_UNSAFE_RUNTIME_DIR
    assert "writable by other users" in status["error"] and "chmod 700" in status["error"]
    assert result.stderr.strip().splitlines() == [f"refscore: {status['error']}"]
