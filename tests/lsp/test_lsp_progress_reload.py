"""The model loads again in a new daemon (the old one exited after its idle timeout, or died):
the client sees the "loading the CodeBERTScore model" progress again, as docs/editor.md promises
for every load. Before, the server announced only the first load of its session, so after a
coffee break the summary sat at "CodeBERTScore pending" for the seconds of a load, silently."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, daemon_env, daemon_pid, stop_daemon
from tests.lsp.harness import session
from tests.support.timing import hang_guard

REASON = bert_unavailable()
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(400),
              pytest.mark.skipif(REASON is not None, reason=REASON or "")]
MODEL_WAIT = hang_guard(180)


def _begins(s) -> int:
    return sum(type(v).__name__ == "WorkDoneProgressBegin" for reports in s.client.progress_reports.values()
               for v in reports)


async def test_a_daemon_started_after_an_idle_exit_shows_the_model_loading_again(tmp_path: Path) -> None:
    env = {**daemon_env(tmp_path), "REFSCORE_DAEMON_IDLE": "3"}  # exits 3 s after its last request
    both = {"metrics": ["codebleu", "codebertscore"]}
    try:
        async with session(tmp_path, settings=both, daemon=True, env=env) as s:
            doc = s.open(samples.write_pair(tmp_path, "task"))
            await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "done",
                             timeout=MODEL_WAIT, what="CodeBERTScore")
            assert _begins(s) == 1
            await s.wait_for(lambda: daemon_pid(env) is None, timeout=hang_guard(), what="the daemon's idle exit")
            version = s.insert(doc, 0, 0, "# back from a break\n")
            await s.wait_for(lambda: (d := s.summary(doc)) and d.data["version"] == version
                             and d.data["codebertscoreState"] == "done", timeout=MODEL_WAIT,
                             what="CodeBERTScore from a new daemon")
            await asyncio.sleep(0.2)
            assert _begins(s) == 2, s.client.progress_reports
    finally:
        stop_daemon(env)
