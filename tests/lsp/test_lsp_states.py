"""A status for every state (issue 43, items 7 and 8): a document with no reference is told so
with the way to set one; CodeBERTScore skipped says why; a daemon killed between two edits gives
one clear message and the model-loading progress while a new one starts. Real server, real
daemon and model, pytest-lsp client."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, daemon_pid, kill, own_daemon
from tests.lsp.harness import session

BOTH = {"metrics": ["codebleu", "codebertscore"]}


@pytest.mark.asyncio
async def test_a_document_without_a_reference_is_told_how_to_set_one(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely.py"
    lonely.write_text(samples.UNRELATED, encoding="utf-8")
    async with session(tmp_path) as s:
        doc = s.open(lonely)
        told = await s.wait_for(lambda: [t for t in s.document_statuses if t["uri"] == doc], what="documentStatus")
        assert s.diagnostics(doc) == []  # still no diagnostics: no noise in files that have no reference
        (tmp_path / "lonely.ref.py").write_text(samples.UNRELATED, encoding="utf-8")
        version = s.replace_all(doc, samples.UNRELATED + "\n")
        await s.wait_summary(doc, version)  # once it has one, the summary is the status
    assert told[0]["state"] == "noReference" and told[0]["version"] == 1
    assert "No reference for lonely.py: RefScore: Set Reference..." in told[0]["message"]
    assert "`" not in told[0]["message"]


@pytest.mark.asyncio
async def test_codebertscore_skipped_says_why(tmp_path: Path) -> None:
    text = "".join(f"value_{i} = {i} * 2 + {i % 7}\n" for i in range(12_000))
    (tmp_path / "big.ref.py").write_text(text.replace("* 2", "* 3"), encoding="utf-8")
    (tmp_path / "big.py").write_text(text, encoding="utf-8")
    async with session(tmp_path, settings=BOTH) as s:
        summary = await s.wait_summary(s.open(tmp_path / "big.py"), 1)
    assert "; CodeBERTScore skipped: " in summary.message and "characters" in summary.message
    assert summary.data["codebertscoreNote"].startswith("CodeBERTScore skipped: ")


@pytest.mark.asyncio
@pytest.mark.skipif(bert_unavailable() is not None, reason=bert_unavailable() or "")
async def test_a_daemon_killed_between_edits_is_said_at_once(tmp_path: Path) -> None:
    with own_daemon(tmp_path) as env:
        async with session(tmp_path, settings=BOTH, daemon=True, env=env) as s:
            doc = s.open(samples.write_pair(tmp_path, "task"))
            await s.wait_scored(doc)
            begins = _begins(s)
            pid = daemon_pid(env)
            assert pid is not None
            kill(pid)  # while idle: nothing in flight fails, the next request would start a new one silently
            version = s.insert(doc, 0, 0, "# after the daemon was killed\n")
            said = await s.wait_for(lambda: [m.message for m in s.client.messages if f"(pid {pid}) has stopped" in m.message],
                                    what="the message that the daemon stopped")
            await s.wait_scored(doc, version)
            assert daemon_pid(env) not in (None, pid)
            assert _begins(s) == begins + 1  # the new daemon's model load is shown as progress
    assert "a new one is starting" in said[0]


def _begins(s) -> int:
    return sum(type(v).__name__ == "WorkDoneProgressBegin" for reports in s.client.progress_reports.values()
               for v in reports)
