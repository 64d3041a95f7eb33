"""Suite-wide set-up: the tests never touch the user's own scoring daemon.

Every test process and every subprocess it starts (``refscore score``, the LSP server) sees a
private runtime directory and log directory, so a daemon started by a test lives there, and the
session's end stops whatever daemon is still running in it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

_ROOT = Path(tempfile.mkdtemp(prefix="refscore-tests-"))
os.environ["REFSCORE_RUNTIME_DIR"] = str(_ROOT / "run")
os.environ["REFSCORE_LOG_DIR"] = str(_ROOT / "log")


@pytest.fixture(scope="session", autouse=True)
def _stop_suite_daemon():
    yield
    from tests.support.daemons import stop_daemon_in

    stop_daemon_in(_ROOT / "run")
    shutil.rmtree(_ROOT, ignore_errors=True)
