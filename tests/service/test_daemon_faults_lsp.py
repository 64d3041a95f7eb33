"""The editor with a stopped scoring daemon (issue 16, fault 6), through a real language server:
CodeBERTScore is reported unavailable with "not responding (pid N)" instead of staying pending
(a hung one holds no edit's CodeBLEU back meanwhile),
CodeBLEU goes on, and the server still shuts down and exits when asked."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.daemon import daemon_env, daemon_pid, silent_daemon, stop_daemon
from tests.lsp.harness import server_env, session
from tests.support.timing import hang_guard

pytestmark = pytest.mark.asyncio
BOUND = 120.0  # generous: the point is that it ends, not how fast


async def test_a_stopped_daemon_is_reported_and_the_server_still_exits(tmp_path: Path) -> None:
    env = daemon_env(tmp_path)
    started = subprocess.run([sys.executable, "-m", "refscore", "daemon", "start", "--no-preload"],
                             env=server_env(env), capture_output=True, text=True, timeout=BOUND)
    assert started.returncode == 0, started.stderr
    pid = daemon_pid(env)
    assert pid is not None
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "task.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    cand = ws / "task.py"
    cand.write_text(samples.CANDIDATE, encoding="utf-8")
    os.kill(pid, signal.SIGSTOP)
    try:
        settings = {"metrics": ["codebleu", "codebertscore"]}
        async with session(ws, settings=settings, daemon=True, env=env) as s:
            doc = s.open(cand)
            summary = await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "unavailable"
                                       and d, timeout=BOUND, what="CodeBERTScore reported unavailable")
            assert "CodeBLEU" in summary.message
            hover = await s.hover(doc, 0, 1)
            assert hover is not None and f"not responding (pid {pid})" in hover.contents.value, hover
            # shutdown + exit, then the process ends by itself (not terminated by the harness)
            await asyncio.wait_for(s.client.shutdown_session(), BOUND)
            assert s.client._server.returncode == 0
    finally:
        os.kill(pid, signal.SIGCONT)
        stop_daemon(env)


async def test_a_daemon_stopped_while_in_use_is_reported_as_unavailable_with_its_reason(tmp_path: Path) -> None:
    """The daemon is stopped (SIGSTOP) after the editor has used it: the one message is
    "CodeBERTScore is unavailable: the scoring daemon is not responding (pid N): ...", the
    words docs/editor.md and docs/daemon.md promise, not "CodeBERTScore failed: the scoring
    daemon stopped answering (the scoring daemon is not responding (pid N) ...)"."""
    env = daemon_env(tmp_path)
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    pid = None
    try:
        async with session(ws, settings={"metrics": ["codebleu", "codebertscore"]}, daemon=True, env=env) as s:
            doc = s.open(cand)
            await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "done",
                             timeout=BOUND, what="CodeBERTScore")
            pid = daemon_pid(env)
            os.kill(pid, signal.SIGSTOP)
            version = s.insert(doc, 0, 0, "# edited\n")
            await s.wait_for(lambda: (d := s.summary(doc)) and d.data["version"] == version
                             and d.data["codebertscoreState"] == "unavailable", timeout=BOUND,
                             what="CodeBERTScore reported unavailable")
            shown = [m.message for m in s.client.messages if "not responding" in m.message]
            assert len(shown) == 1, s.client.messages
            assert shown[0].startswith(f"CodeBERTScore is unavailable: the scoring daemon is not responding "
                                       f"(pid {pid}): it is stopped"), shown[0]
            assert "stopped answering" not in shown[0], shown[0]
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGCONT)
        stop_daemon(env)


async def test_codebleu_of_an_edit_does_not_wait_for_a_hung_daemons_handshake(tmp_path: Path) -> None:
    """A daemon that accepts the connection but never answers (deadlocked, swapped out): while
    the server's daemon thread waits out the handshake deadline (a hang guard here), an edit's
    CodeBLEU comes meanwhile, CodeBERTScore still pending: no clock, the order of the events. Before, connecting held the lock the in-process CodeBLEU scorer takes too, so
    every edit's summary waited for the deadline: the editor looked frozen."""
    cand = samples.write_pair(tmp_path, "task")
    with silent_daemon(hang_guard(60)) as env:
        async with session(tmp_path, settings={"metrics": ["codebleu", "codebertscore"], "debounceMs": 0},
                           daemon=True, env=env) as s:
            doc = s.open(cand)
            await s.wait_summary(doc, version=1)
            await asyncio.sleep(1.0)  # the daemon thread is in the handshake now
            version = s.insert(doc, 0, 0, "# edited\n")
            edited = await s.wait_summary(doc, version=version)
            # before: it came after the deadline, CodeBERTScore given up ("not responding")
            assert edited.data["codebertscoreState"] == "pending", (edited.message, edited.data)
