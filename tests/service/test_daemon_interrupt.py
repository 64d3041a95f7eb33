"""Ctrl-C and the foreground daemon, with real processes: ``daemon run`` stops cleanly and exits
130 with one line (it exited 0 in silence, while the README documents 130 for "interrupted"),
Ctrl-C during ``daemon start`` does not leave the daemon it spawned running, and ``daemon run``
while a daemon runs says so (it exited 75 in silence)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from refscore.vocabulary import EXIT_INTERRUPTED

from tests.support.daemons import alive, daemon_pids_in, wait_until
from tests.support.timing import hang_guard
from tests.service.test_daemon import Place, place  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]


def _refscore(spot: Place, *args: str) -> subprocess.Popen[str]:
    env = {**spot.env, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), spot.env.get("PYTHONPATH"))
                                                       if p)}
    return subprocess.Popen([sys.executable, "-m", "refscore", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_ctrl_c_on_daemon_run_is_130_one_line_and_a_clean_stop(place: Place) -> None:  # noqa: F811
    process = _refscore(place, "daemon", "run", "--idle-timeout", "120")
    try:
        assert wait_until(lambda: (place.run / "daemon.json").exists() and place.socket.exists())
        time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == EXIT_INTERRUPTED, (process.returncode, out, err)
    assert err.strip().splitlines() == [f"refscore daemon: interrupted; stopped (pid {process.pid})"], err
    assert not place.socket.exists() and not (place.run / "daemon.json").exists()
    assert "stopping (signal SIGINT)" in place.log_text()


#: A ``sitecustomize`` that holds a ``daemon run`` process at its start (opening a FIFO nobody
#: writes to): ``daemon start`` is then surely still waiting for it when the test presses Ctrl-C
#: (a daemon that got ready first, on a busy machine, made this test race the clock).
HOLD_DAEMON = """
import os
with open("/proc/self/cmdline", "rb") as own:
    words = own.read().split(b"\\0")
if b"daemon" in words and b"run" in words:
    open(os.environ["REFSCORE_TEST_HOLD"], "rb")
"""


def test_ctrl_c_during_daemon_start_stops_the_daemon_it_spawned(place: Place, tmp_path: Path) -> None:  # noqa: F811
    (tmp_path / "sitecustomize.py").write_text(HOLD_DAEMON, encoding="utf-8")
    os.mkfifo(tmp_path / "hold")
    place.env.update(REFSCORE_TEST_HOLD=str(tmp_path / "hold"),
                     PYTHONPATH=os.pathsep.join(p for p in (str(tmp_path), place.env.get("PYTHONPATH")) if p))
    process = _refscore(place, "daemon", "start", "--no-preload", "--idle-timeout", "120")
    try:
        assert wait_until(lambda: daemon_pids_in(place.run) != [], timeout=60, interval=0.01)
        [pid] = daemon_pids_in(place.run)
        assert not place.socket.exists()  # held at its start: ``daemon start`` is waiting for it
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == EXIT_INTERRUPTED, (process.returncode, out, err)
    assert err.strip().splitlines() == [f"refscore daemon: interrupted; the daemon it was starting (pid {pid}) "
                                        "was stopped"], err
    assert wait_until(lambda: not alive(pid), timeout=hang_guard())
    assert daemon_pids_in(place.run) == [] and not place.socket.exists()


def test_daemon_run_while_one_runs_says_so(place: Place) -> None:  # noqa: F811
    started = subprocess.run([sys.executable, "-m", "refscore", "daemon", "start", "--no-preload", "--idle-timeout",
                              "120"], capture_output=True, text=True, env=place.env, timeout=120)
    assert started.returncode == 0, started.stderr
    pid = place.info()["pid"]
    process = _refscore(place, "daemon", "run", "--idle-timeout", "120")
    out, err = process.communicate(timeout=120)
    assert process.returncode == 75, (out, err)
    assert err.strip().splitlines() == [f"refscore daemon: already running (pid {pid}); `refscore daemon stop` "
                                        "first to run one here"], err
    assert alive(pid) and place.socket.exists()
