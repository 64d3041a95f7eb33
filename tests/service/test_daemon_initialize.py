"""The daemon's socket (issue 25, item 15): nothing but ``initialize`` is answered before the
handshake, on every transport (the Unix socket answered ``score`` at once); the listen backlog
holds a burst of connections while the daemon is busy (asyncio's 100 made 12 of 1,000 concurrent
connects fail with EAGAIN). A real daemon process."""

from __future__ import annotations

import os
import signal
import socket

from refscore.service import wire
from tests.support.daemons import refscore
from tests.service.test_daemon import Place, place, raw_connect  # noqa: F401 - the fixture

REQUEST = {"request": {"candidate": "x = 1\n", "references": ["x = 2\n"], "language": "python",
                       "metrics": ["codebleu"]}}


def test_score_before_initialize_is_refused_then_answered(place: Place) -> None:  # noqa: F811
    started = refscore("daemon", "start", "--no-preload", env=place.env)
    assert started.returncode == 0, started.stderr
    sock = raw_connect(place)
    stream = sock.makefile("rb")
    sock.sendall(wire.encode(wire.request(1, "score", REQUEST)))
    refused = wire.read_message(stream)
    assert refused["error"]["code"] == wire.UNAUTHORIZED and "initialize first" in refused["error"]["message"]
    sock.sendall(wire.encode(wire.request(2, "status", {})))
    assert wire.read_message(stream)["error"]["code"] == wire.UNAUTHORIZED
    sock.sendall(wire.encode(wire.request(3, "initialize", {})))
    assert wire.read_message(stream)["result"]["pid"] == place.info()["pid"]
    sock.sendall(wire.encode(wire.request(4, "score", REQUEST)))
    answer = wire.read_message(stream)
    assert "result" in answer, answer
    stream.close()
    sock.close()


def test_a_burst_of_connections_waits_in_the_backlog(place: Place) -> None:  # noqa: F811
    """600 connects while the daemon is stopped (SIGSTOP): every one is queued, none refused."""
    started = refscore("daemon", "start", "--no-preload", env=place.env)
    assert started.returncode == 0, started.stderr
    pid = place.info()["pid"]
    socks, refused = [], 0
    os.kill(pid, signal.SIGSTOP)
    try:
        for _ in range(600):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.setblocking(False)
            try:
                sock.connect(str(place.socket))
            except (BlockingIOError, ConnectionRefusedError):  # EAGAIN: the backlog is full
                refused += 1
            socks.append(sock)
    finally:
        os.kill(pid, signal.SIGCONT)
        for sock in socks:
            sock.close()
    assert refused == 0
