"""The scoring service: one daemon per user holds the model; every front end asks it.

* ``client.DaemonClient``: the ``Scorer`` interface answered by the daemon (auto-started);
  ``reach``: finding, starting or replacing the daemon and its handshake; ``connection``: one
  socket with every wait bounded, and the errors a client sees;
  ``processes``: starting the daemon detached, watching it exit, ending one that does not answer.
* ``daemon.run_daemon``: the daemon process (``refscore daemon run``); ``daemon_rpc``: its
  connections and the methods clients call; ``requests``: checking what clients send it.
* ``engine.Engine``: the daemon's work (CodeBLEU thread pool, CodeBERTScore batcher, caches);
  ``lanes`` and ``worker``: large requests in lanes of their own, CodeBLEU in a killable process;
  ``model_loads``: its models loaded once, failures remembered, the status of models and caches.
* ``connect_daemon``: a connected client (``refscore.engines.open_scorer`` is what front ends call).

Importing this package is cheap (no torch, no asyncio server).
"""

from __future__ import annotations

import os
from typing import Any

from .client import DaemonClient, DaemonDidNotExit
from .connection import (DaemonConnectionLost, DaemonError, DaemonNotResponding, DaemonNotRunning, DaemonUnavailable,
                         RemoteError, RequestCancelled)

NO_DAEMON_ENV = "REFSCORE_NO_DAEMON"

__all__ = ["DaemonClient", "DaemonConnectionLost", "DaemonDidNotExit", "DaemonError", "DaemonNotResponding",
           "DaemonNotRunning", "DaemonUnavailable", "NO_DAEMON_ENV", "RemoteError", "RequestCancelled",
           "connect_daemon", "daemon_disabled"]


def daemon_disabled() -> bool:
    """True when ``$REFSCORE_NO_DAEMON`` is set to something other than ``0``/empty."""
    return os.environ.get(NO_DAEMON_ENV, "") not in ("", "0")


def connect_daemon(*, autostart: bool = True, **client_options: Any) -> DaemonClient:
    """The daemon's client, connected (the daemon started first when ``autostart`` and none runs).

    Raises ``DaemonUnavailable`` when it cannot be had (disabled by ``$REFSCORE_NO_DAEMON``, not
    running and ``autostart`` off, or failing to start). Front ends call
    ``refscore.engines.open_scorer``, which decides what to do then."""
    if daemon_disabled():
        raise DaemonNotRunning(f"the daemon is disabled by ${NO_DAEMON_ENV}")
    client = DaemonClient(autostart=autostart, **client_options)
    try:
        client.connect()
    except OSError as error:
        client.close()
        raise DaemonUnavailable(f"the scoring daemon could not be reached: {error}") from error
    except BaseException:
        client.close()
        raise
    return client
