"""Suite-wide set-up: the tests never touch the user's own scoring daemon.

Every test process and every subprocess it starts (``refscore score``, the LSP server) sees a
private runtime directory and log directory, so a daemon started by a test lives there, and the
session's end stops whatever daemon is still running in it.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

# A suite started in the background by a non-interactive shell (``bash scripts/test.sh &``) inherits
# SIGINT ignored, and an ignored signal stays ignored across exec: every CLI, daemon and server a
# test starts would ignore Ctrl-C, and the tests that press it would fail. Python's own handler here
# means each child starts with the default again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

_ROOT = Path(tempfile.mkdtemp(prefix="refscore-tests-"))
os.environ["REFSCORE_RUNTIME_DIR"] = str(_ROOT / "run")
os.environ["REFSCORE_LOG_DIR"] = str(_ROOT / "log")


@pytest.fixture(scope="session", autouse=True)
def _stop_suite_daemon():
    yield
    from tests.support.daemons import stop_daemon_in

    stop_daemon_in(_ROOT / "run")
    shutil.rmtree(_ROOT, ignore_errors=True)


_E2E = "tests/lsp/test_vscode_e2e.py::"
_OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The real-VS Code e2e tests by name, with their outcome and time, after every run that
    collected them (``.ci/run`` runs the whole suite through scripts/test.sh; this is how its summary
    shows that both e2e tests ran and passed)."""
    reports = [report for outcome in _OUTCOMES for report in terminalreporter.stats.get(outcome, [])
               if getattr(report, "nodeid", "").startswith(_E2E)]
    if not reports:
        return
    terminalreporter.write_sep("-", "VS Code e2e (code-server, headless Chromium)")
    for report in sorted(reports, key=lambda r: r.nodeid):
        outcome = "ERROR" if report.when != "call" and report.failed else report.outcome.upper()
        took = f" in {report.duration:.0f} s" if report.when == "call" else f" ({report.when})"
        why = f": {report.longrepr[2]}" if report.skipped and isinstance(report.longrepr, tuple) else ""
        terminalreporter.write_line(f"{outcome} {report.nodeid}{took}{why}")


#: Files that start real Ray clusters (a private one, a two-node one). They are marked
#: ``cluster``: scripts/test.sh runs them after the parallel run, alone, because a cluster on two
#: cores shared with another busy worker misses its deadlines; under a plain ``pytest -n 2`` they
#: still share one worker (each cluster takes a third of the memory for its object store).
_CLUSTER_FILES = ("test_ray_grade.py", "test_ray_private_cluster.py")
#: The slowest files, started first, so no worker is left running one of them alone at the end
#: (measured seconds on the 2-core CI machine; the rest keep their order).
_SLOW_FIRST = ("test_vscode_e2e.py",)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (the README's ``-n 2 --dist loadgroup``) each test file is one unit of
    work, so its module fixtures (a language server, a loaded model) are built once; the files in
    ``_CLUSTER_FILES`` share one unit and are marked ``cluster``; the slowest files go first."""
    for item in items:
        name = item.path.name
        if name in _CLUSTER_FILES:
            item.add_marker(pytest.mark.cluster)
        item.add_marker(pytest.mark.xdist_group("cluster" if name in _CLUSTER_FILES else name))
    rank = {name: index for index, name in enumerate(_SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
    scale_time_limits(config, items)


def scale_time_limits(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-timeout's per-test limit (a test's own ``timeout`` mark, else pyproject's ``timeout``)
    is a hang guard like the others: ``REFSCORE_TEST_SLOWDOWN`` scales it here, the one place (so a
    mark is written in plain seconds, never through ``hang_guard``)."""
    from tests.support.timing import slowdown

    factor = slowdown()
    if factor == 1:
        return
    default = float(config.getini("timeout") or 0)
    for item in items:
        marker = item.get_closest_marker("timeout")
        seconds = default if marker is None else float(marker.args[0] if marker.args else marker.kwargs["timeout"])
        if seconds > 0:
            item.add_marker(pytest.mark.timeout(seconds * factor), append=False)
