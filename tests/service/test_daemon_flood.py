"""A flood of idle connections (issue 45, item 9): under ``ulimit -n 64`` with 150 connections
that never initialise, asyncio's accept loop logged a traceback per failed accept (38,000 in
8 s), burned a core, and ``daemon status`` said "not responding"; idle connections never timed
out. A real daemon process, started with the file limit lowered."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

from tests.support.daemons import refscore
from tests.service.test_daemon import Place, place, raw_connect  # noqa: F401 - the fixture


def _low_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))


def _start(place: Place, limit_files: bool) -> None:  # noqa: F811
    started = subprocess.run([sys.executable, "-m", "refscore", "daemon", "start", "--no-preload",
                              "--idle-timeout", "600"], capture_output=True, text=True, env=place.env, timeout=180,
                             preexec_fn=_low_file_limit if limit_files else None)
    assert started.returncode == 0, started.stderr


def test_a_flood_under_a_low_file_limit_is_one_log_line_and_status_answers(place: Place) -> None:  # noqa: F811
    _start(place, limit_files=True)
    idle = [raw_connect(place) for _ in range(150)]  # more than the daemon has descriptors for
    try:
        status = refscore("daemon", "status", "--json", env=place.env)
        assert status.returncode == 0, status.stdout + status.stderr
        assert json.loads(status.stdout)["responding"] is True
    finally:
        for sock in idle:
            sock.close()
    log = place.log_text()
    assert "Traceback" not in log and "out of system resource" not in log
    said = [line for line in log.splitlines() if "cannot accept a connection" in line]
    assert 1 <= len(said) <= 2, said  # once, and at most once a minute after


def test_a_connection_that_never_initialises_is_closed(place: Place) -> None:  # noqa: F811
    place.env["REFSCORE_DAEMON_INIT_TIMEOUT"] = "1"
    _start(place, limit_files=False)
    silent = raw_connect(place)
    silent.settimeout(60)
    assert silent.recv(1) == b""  # the daemon hung up on it
    greeted = raw_connect(place)  # an initialised one stays: status still answers on it after the timeout
    status = refscore("daemon", "status", env=place.env)
    assert status.returncode == 0, status.stderr
    greeted.close()
    silent.close()
    assert "sent no initialize within 1 s" in place.log_text()


def test_the_file_limit_is_really_low_in_the_daemon(place: Place) -> None:  # noqa: F811
    """The flood test means something only if the daemon really had 64 descriptors."""
    _start(place, limit_files=True)
    pid = place.info()["pid"]
    with open(f"/proc/{pid}/limits", encoding="utf-8") as limits:
        line = next(row for row in limits if row.startswith("Max open files"))
    assert line.split()[3] == "64", line
    assert len(os.listdir(f"/proc/{pid}/fd")) < 64
