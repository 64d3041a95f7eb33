"""The scoring service: one daemon per user holds the model; every front end asks it.

* ``client.DaemonClient``: the ``Scorer`` interface answered by the daemon (auto-started);
  ``processes``: starting the daemon detached, and watching it exit.
* ``daemon.run_daemon``: the daemon process (``refscore daemon run``); ``requests``: checking
  what clients send it.
* ``engine.Engine``: the daemon's work (CodeBLEU thread pool, CodeBERTScore batcher, caches);
  ``reports``: its model-failure messages and status of models and caches.
* ``get_scorer``: what a front end calls to get "the" scorer.

Importing this package is cheap (no torch, no asyncio server).
"""

from __future__ import annotations

import os
from typing import Any

from .client import (
    DaemonClient,
    DaemonConnectionLost,
    DaemonError,
    DaemonUnavailable,
    RemoteError,
    RequestCancelled,
)

NO_DAEMON_ENV = "REFSCORE_NO_DAEMON"

__all__ = ["DaemonClient", "DaemonConnectionLost", "DaemonError", "DaemonUnavailable", "NO_DAEMON_ENV",
           "RemoteError", "RequestCancelled", "daemon_disabled", "get_scorer"]


def daemon_disabled() -> bool:
    """True when ``$REFSCORE_NO_DAEMON`` is set to something other than ``0``/empty."""
    return os.environ.get(NO_DAEMON_ENV, "") not in ("", "0")


def get_scorer(*, autostart: bool = True, fallback: bool = True, **client_options: Any) -> Any:
    """The daemon's client, connected (the daemon started first when ``autostart`` and none runs).

    When the daemon cannot be had (disabled by ``$REFSCORE_NO_DAEMON``, not running and
    ``autostart`` off, or failing to start): a ``LocalScorer`` if ``fallback``, else
    ``DaemonUnavailable`` is raised.
    """
    try:
        if daemon_disabled():
            raise DaemonUnavailable(f"the daemon is disabled by ${NO_DAEMON_ENV}")
        client = DaemonClient(autostart=autostart, **client_options)
        client.connect()
        return client
    except (DaemonUnavailable, OSError):
        if not fallback:
            raise
    from ..scoring.scorer import LocalScorer

    return LocalScorer()
