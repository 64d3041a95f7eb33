"""A client that advertises work-done progress but never answers
``window/workDoneProgress/create`` (or answers very late): the progress is decoration, so
CodeBERTScore must not wait for it. Before, the scoring task awaited the answer with no bound
and the document's CodeBERTScore stayed "pending" for as long as the client kept silent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, daemon_env, stop_daemon
from tests.lsp.harness import session
from tests.support.timing import hang_guard

REASON = bert_unavailable()
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(240),
              pytest.mark.skipif(REASON is not None, reason=REASON or "")]


async def test_an_unanswered_progress_request_does_not_hold_codebertscore(tmp_path: Path) -> None:
    env = daemon_env(tmp_path)
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    try:
        async with session(ws, settings={"metrics": ["codebleu", "codebertscore"]}, daemon=True, env=env) as s:
            asked: list[types.WorkDoneProgressCreateParams] = []
            answer = asyncio.Event()

            async def silent(params: types.WorkDoneProgressCreateParams) -> None:
                asked.append(params)
                await answer.wait()  # unanswered until CodeBERTScore came (or the test gave up)

            s.client.protocol.fm.features[types.WINDOW_WORK_DONE_PROGRESS_CREATE] = silent
            doc = s.open(cand)
            try:  # no clock: CodeBERTScore arrives while the request is still unanswered, or never
                await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "done",
                                 timeout=hang_guard(180), what="CodeBERTScore while the progress is unanswered")
            finally:
                answer.set()  # the handler answers (very late) and ends
            assert asked, "the server asked for a progress token"
    finally:
        stop_daemon(env)
