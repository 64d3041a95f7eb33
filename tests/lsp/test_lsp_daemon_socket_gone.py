"""The daemon's socket file is removed while the daemon lives (a /tmp or $XDG_RUNTIME_DIR
cleaner, a user's ``rm``): an editor already connected keeps its connection, but a second editor
could not reach the daemon and could not start its own (the live one holds ``daemon.lock``),
so it waited the whole 60 s start-up time and then said "the scoring daemon did not answer
within 60 s"; ``refscore daemon status`` said "not running" and ``stop`` left it running, so no
new client could have CodeBERTScore until its idle timeout (15 min). Now a daemon whose socket
is gone notices within a second and stops in order, and the next client starts a fresh one."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, daemon_pid, stop_daemon
from tests.lsp.harness import session
from tests.support.timing import hang_guard

REASON = bert_unavailable()
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300),
              pytest.mark.skipif(REASON is not None, reason=REASON or "")]
MODEL_WAIT = hang_guard(180)


def bert_state(s, doc: str) -> str | None:
    summary = s.summary(doc)
    return summary.data.get("codebertscoreState") if summary is not None else None


async def _second_editor_after_removing(tmp_path: Path, place: Path, env: dict[str, str], name: str) -> None:
    """Editor A gets CodeBERTScore from the daemon; ``name`` is removed from the runtime folder;
    editor B then gets CodeBERTScore from a fresh daemon (before, it waited out the 60 s start-up
    time and got "unavailable": the state, not a clock, tells them apart on a busy machine)."""
    settings = {"metrics": ["codebleu", "codebertscore"]}
    first, second = samples.write_pair(tmp_path, "one"), samples.write_pair(tmp_path, "two")
    async with session(tmp_path, settings=settings, daemon=True, env=env) as a:
        doc = a.open(first)
        await a.wait_for(lambda: bert_state(a, doc) == "done", timeout=MODEL_WAIT, what="CodeBERTScore in A")
        old = daemon_pid(env)
        (place / "run" / name).unlink()
        async with session(tmp_path, settings=settings, daemon=True, env=env) as b:
            other = b.open(second)
            await b.wait_for(lambda: bert_state(b, other) in ("done", "unavailable"), timeout=MODEL_WAIT,
                             what="CodeBERTScore in B")
            summary = b.summary(other)
            assert bert_state(b, other) == "done", (summary.message, [m.message for m in b.client.messages])
            assert daemon_pid(env) not in (None, old)


async def test_a_second_editor_gets_codebertscore_after_the_socket_was_removed(tmp_path: Path) -> None:
    place = Path(tempfile.mkdtemp(prefix="rsg-"))  # short: a Unix socket path has at most 107 bytes
    env = {"REFSCORE_RUNTIME_DIR": str(place / "run"), "REFSCORE_LOG_DIR": str(place / "log")}
    try:
        await _second_editor_after_removing(tmp_path, place, env, "daemon.sock")
    finally:
        stop_daemon(env)
        shutil.rmtree(place, ignore_errors=True)


async def test_a_second_editor_gets_codebertscore_after_daemon_json_of_a_tcp_daemon_went(tmp_path: Path) -> None:
    """The same over TCP (no Unix sockets): clients find the port and token in ``daemon.json``,
    so a TCP daemon whose ``daemon.json`` is removed cannot be reached by new clients either."""
    import subprocess
    import sys

    from tests.lsp.harness import server_env

    place = Path(tempfile.mkdtemp(prefix="rsg-"))
    env = {"REFSCORE_RUNTIME_DIR": str(place / "run"), "REFSCORE_LOG_DIR": str(place / "log")}
    started = subprocess.run([sys.executable, "-m", "refscore", "daemon", "start", "--transport", "tcp"],
                             env=server_env(env), capture_output=True, text=True, timeout=MODEL_WAIT, check=False)
    assert started.returncode == 0, started.stderr
    try:
        await _second_editor_after_removing(tmp_path, place, env, "daemon.json")
    finally:
        stop_daemon(env)
        shutil.rmtree(place, ignore_errors=True)
