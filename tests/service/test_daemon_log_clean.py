"""`refscore daemon stop` leaves a clean log: a stop used to add `ERROR asyncio: Exception in
callback ...` and a CancelledError traceback for a connection still open (Python 3.11's stream
callback reads the exception of a cancelled handler task). Real daemon processes."""

from __future__ import annotations

import socket

import pytest

from tests.support.daemons import refscore
from tests.service.test_daemon import EXAMPLES, place  # noqa: F401 - the fixture

pytestmark = pytest.mark.timeout(300)


def test_stop_with_clients_connected_logs_no_traceback(place) -> None:  # noqa: F811
    for _ in range(3):
        assert refscore("daemon", "start", "--no-preload", env=place.env).returncode == 0
        scored = refscore("score", str(EXAMPLES / "python" / "reference.py"),
                          str(EXAMPLES / "python" / "candidate_close.py"), "--metrics", "codebleu", env=place.env)
        assert scored.returncode == 0, scored.stderr
        idle = [socket.socket(socket.AF_UNIX) for _ in range(3)]  # editors that keep their connection
        for client in idle:
            client.connect(str(place.socket))
        try:
            assert refscore("daemon", "stop", env=place.env).returncode == 0
        finally:
            for client in idle:
                client.close()
    log = place.log_text()
    assert log.count("stopped after serving") == 3
    assert "Traceback" not in log and " ERROR " not in log, log
