"""The server exits promptly on ``shutdown`` + ``exit`` while work is still in flight: here its
daemon thread waits on a daemon that accepts connections but never answers (the handshake
deadline is set to 90 s). Before, the process lingered until that wait ended, because the
interpreter joins its worker threads at exit; an editor closing meanwhile saw a hung server."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.daemon import silent_daemon
from tests.lsp.harness import session
from tests.support.timing import hang_guard


@pytest.mark.asyncio
async def test_exit_does_not_wait_for_work_in_flight(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "task")
    with silent_daemon(hang_guard(300)) as env:  # its deadline well past the exit's own guard below
        async with session(tmp_path, settings={"metrics": ["codebleu", "codebertscore"]}, daemon=True, env=env) as s:
            doc = s.open(cand)
            summary = await s.wait_summary(doc)
            assert summary.data["codebertscoreState"] == "pending"  # the daemon thread is waiting
            process = s.client._server
            await asyncio.wait_for(s.client.shutdown_session(), hang_guard())  # shutdown, exit, and the process ends
            assert process.returncode == 0


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.parametrize("shutdown,code", [(True, 0), (False, 1)])
def test_exit_code_says_whether_shutdown_came_first(tmp_path: Path, shutdown: bool, code: int) -> None:
    """LSP: exit with 0 when a shutdown request came before ``exit``, else with 1."""
    import subprocess
    import sys

    messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}},
                {"jsonrpc": "2.0", "method": "initialized", "params": {}}]
    if shutdown:
        messages.append({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    messages.append({"jsonrpc": "2.0", "method": "exit"})
    done = subprocess.run([sys.executable, "-m", "refscore", "serve", "--no-daemon"],
                          input=b"".join(_frame(m) for m in messages), capture_output=True, timeout=60,
                          env={**os.environ, "REFSCORE_RUNTIME_DIR": str(tmp_path / "run")})
    assert done.returncode == code, done.stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in done.stderr


@pytest.mark.asyncio
async def test_an_editor_that_leaves_before_the_reply_gets_one_log_line(tmp_path: Path) -> None:
    """An editor quitting sends ``shutdown`` (or has a hover in flight) and closes its end of the
    server's stdout without waiting for the answer (Neovim's ``:qa`` does). Writing that answer
    then fails with EPIPE: the log gets one line saying the client left, not four unhandled-error
    lines (``Error sending data. BrokenPipeError``, ``exception calling callback for <Future ...>``),
    and the server still ends on ``exit``."""
    from lsprotocol import types

    from tests.lsp.harness import server_command

    log = tmp_path / "serve.log"
    cand = samples.write_pair(tmp_path, "task")
    async with session(tmp_path, command=[*server_command(), "--log-file", str(log)]) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        process = s.client._server
        output = process._transport.get_pipe_transport(1)
        end = output.get_extra_info("pipe")
        output.close()  # the editor stops reading: its end of the server's output is closed at the
        # loop's next turn; a request sent before that could be answered into the pipe's buffer
        await s.wait_for(lambda: end.closed, what="the editor's end of the server's output closed")
        s.client.protocol.send_request(types.TEXT_DOCUMENT_HOVER, types.HoverParams(
            types.TextDocumentIdentifier(uri=doc), types.Position(0, 1)))
        s.client.protocol.send_request(types.SHUTDOWN, None)
        # the answers fail to go out (an event, not a wait of so many seconds: a busy machine may
        # take longer), then the editor's ``exit``
        await s.wait_for(lambda: log.exists() and "closed the connection" in log.read_text(encoding="utf-8"),
                         what="the server's log line about the client leaving")
        s.client.protocol.notify(types.EXIT, None)
        await asyncio.wait_for(process.wait(), hang_guard())
    lines = [line for line in log.read_text(encoding="utf-8").splitlines() if "Broken pipe" in line
             or "BrokenPipe" in line or "callback" in line or "closed the connection" in line]
    assert len(lines) == 1 and "the client closed the connection" in lines[0], lines


@pytest.mark.parametrize("where", ["missing/serve.log", "."])
def test_a_log_file_that_cannot_be_written_is_a_usage_error(tmp_path: Path, where: str) -> None:
    """``--log-file`` in a folder that does not exist, or naming a folder: one line saying which
    file cannot be written and why, exit 2 (a usage error), not "internal error ... please report
    it" (exit 5), which sent the user to file a bug for a typo in their editor's config."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "refscore", "serve", "--no-daemon", "--log-file",
                           str(tmp_path / where)], input=b"", capture_output=True, timeout=60,
                          env={**os.environ, "REFSCORE_RUNTIME_DIR": str(tmp_path / "run")})
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 2, err
    assert "internal error" not in err and "log file" in err and str(tmp_path / where) in err, err
    assert len(err.strip().splitlines()) == 1, err
