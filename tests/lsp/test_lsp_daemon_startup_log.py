"""A daemon that cannot start (a folder where its socket goes): the editor's "CodeBERTScore is
unavailable" message quotes what *this* start wrote to ``daemon.stderr``, once. That file is
appended to by every start, so before, the message quoted its last three lines, whatever start
wrote them: the same reason three times, or an old failure (from another day, another cause)
presented as today's."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.daemon import stop_daemon
from tests.lsp.harness import session

pytestmark = pytest.mark.asyncio
OLD = "refscore daemon: an old failure from an earlier start"


async def test_the_unavailable_message_quotes_only_this_start(tmp_path: Path) -> None:
    place = Path(tempfile.mkdtemp(prefix="rsl-"))  # short: a Unix socket path has at most 107 bytes
    run, log = place / "run", place / "log"
    run.mkdir(mode=0o700)
    (run / "daemon.sock").mkdir()
    log.mkdir()
    (log / "daemon.stderr").write_text(f"{OLD}\n{OLD}\n", encoding="utf-8")
    env = {"REFSCORE_RUNTIME_DIR": str(run), "REFSCORE_LOG_DIR": str(log)}
    cand = samples.write_pair(tmp_path, "task")
    try:
        async with session(tmp_path, settings={"metrics": ["codebleu", "codebertscore"]}, daemon=True, env=env) as s:
            doc = s.open(cand)
            await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "unavailable",
                             what="CodeBERTScore unavailable")
            shown = [m.message for m in s.client.messages if "CodeBERTScore is unavailable" in m.message]
            assert len(shown) == 1, s.client.messages
            assert "an old failure" not in shown[0], shown[0]
            assert shown[0].count("is a directory, not the daemon's socket") == 1, shown[0]
    finally:
        stop_daemon(env)
        shutil.rmtree(place, ignore_errors=True)
