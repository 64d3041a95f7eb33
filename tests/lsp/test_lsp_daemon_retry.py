"""The scoring daemon could not be started (here: its runtime folder was a symbolic link, which
RefScore refuses): CodeBERTScore is unavailable with the reason, and once the cause is gone an
edit brings it back, as docs/editor.md says ("the next edit tries the daemon again"); the server
never tried again after a failed start, only after a daemon died. Attempts are at most one per
``scorers.RETRY_AFTER_S`` seconds, so a daemon that cannot start is not spawned at every keystroke."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from refscore.lsp.scorers import RETRY_AFTER_S
from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, stop_daemon
from tests.lsp.harness import session
from tests.support.timing import hang_guard

REASON = bert_unavailable()
pytestmark = [pytest.mark.asyncio, pytest.mark.skipif(REASON is not None, reason=REASON or "")]
MODEL_WAIT = hang_guard(180)


async def test_a_daemon_that_could_not_start_is_tried_again(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir(mode=0o700)
    run = tmp_path / "run"
    run.symlink_to(real, target_is_directory=True)
    env = {"REFSCORE_RUNTIME_DIR": str(run), "REFSCORE_LOG_DIR": str(tmp_path / "log")}
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    try:
        async with session(ws, settings={"metrics": ["codebleu", "codebertscore"]}, daemon=True, env=env) as s:
            doc = s.open(cand)
            first = await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "unavailable"
                                     and d, timeout=MODEL_WAIT, what="CodeBERTScore unavailable")
            assert "CodeBLEU" in first.message
            run.unlink()  # the user fixes the cause
            run.mkdir(mode=0o700)
            await asyncio.sleep(RETRY_AFTER_S)
            version = s.replace_all(doc, samples.CANDIDATE + "\n# edited\n")
            back = await s.wait_for(lambda: (d := s.summary(doc)) and d.data["version"] == version
                                    and "CodeBERTScore P" in d.message and d, timeout=MODEL_WAIT,
                                    what="CodeBERTScore after the cause was fixed")
            assert back.data["codebertscoreState"] == "done"
            assert len([m for m in s.client.messages if "CodeBERTScore is unavailable" in m.message]) == 1
    finally:
        stop_daemon(env)
