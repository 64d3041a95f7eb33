"""A client that advertises work-done progress but never answers
``window/workDoneProgress/create`` (or answers very late): the progress is decoration, so
CodeBERTScore must not wait for it. Before, the scoring task awaited the answer with no bound
and the document's CodeBERTScore stayed "pending" for as long as the client kept silent."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, daemon_env, stop_daemon
from tests.lsp.harness import session

REASON = bert_unavailable()
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(240),
              pytest.mark.skipif(REASON is not None, reason=REASON or "")]
SILENT_S = 30.0  # how long the client keeps the create request unanswered


async def test_an_unanswered_progress_request_does_not_hold_codebertscore(tmp_path: Path) -> None:
    env = daemon_env(tmp_path)
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    try:
        async with session(ws, settings={"metrics": ["codebleu", "codebertscore"]}, daemon=True, env=env) as s:
            asked: list[float] = []

            async def silent(params: types.WorkDoneProgressCreateParams) -> None:
                asked.append(time.monotonic())
                await asyncio.sleep(SILENT_S)

            s.client.protocol.fm.features[types.WINDOW_WORK_DONE_PROGRESS_CREATE] = silent
            started = time.monotonic()
            doc = s.open(cand)
            await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "done",
                             timeout=SILENT_S + 60, what="CodeBERTScore")
            assert asked, "the server asked for a progress token"
            assert time.monotonic() - started < SILENT_S - 5
            await asyncio.sleep(max(0.0, asked[0] + SILENT_S + 0.5 - time.monotonic()))  # the handler ends
    finally:
        stop_daemon(env)
