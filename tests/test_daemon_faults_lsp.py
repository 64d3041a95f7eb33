"""The editor with a stopped scoring daemon (issue 16, fault 6), through a real language server:
CodeBERTScore is reported unavailable with "not responding (pid N)" instead of staying pending,
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
from tests.lsp.daemon import daemon_env, daemon_pid, stop_daemon
from tests.lsp.harness import server_env, session

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
