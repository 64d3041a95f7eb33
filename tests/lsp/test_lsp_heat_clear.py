"""End to end with the real daemon: a client that draws the ``refscore/tokenScores`` heat map
(the Neovim handler of docs/editor.md) is told when a document will have no token scores any more:
CodeBERTScore switched off in the settings, or the document's reference gone (a problem). An empty
``tokens`` list clears what it drew; before, the old colours stayed on the text. A daemon that
answers but cannot score (a layer outside the model) makes CodeBERTScore unavailable, with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, daemon_env, stop_daemon
from tests.lsp.harness import session
from tests.support.timing import hang_guard

REASON = bert_unavailable()
pytestmark = [pytest.mark.asyncio, pytest.mark.skipif(REASON is not None, reason=REASON or "")]
MODEL_WAIT = hang_guard(180)
BOTH = {"metrics": ["codebleu", "codebertscore"]}


@pytest.fixture
def daemon(tmp_path: Path):
    env = daemon_env(tmp_path)
    yield env
    stop_daemon(env)


def payloads(s, doc: str) -> list[dict]:
    return [p for p in s.token_scores if p["uri"] == doc]


async def test_heat_is_cleared_when_no_token_scores_will_come(tmp_path: Path, daemon: dict[str, str]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    other = samples.write_pair(ws, "other")
    async with session(ws, settings=BOTH, init_options={"tokenScores": True}, daemon=True, env=daemon) as s:
        doc, doc2 = s.open(cand), s.open(other)
        for d in (doc, doc2):
            await s.wait_for(lambda d=d: payloads(s, d) and payloads(s, d)[-1]["tokens"], timeout=MODEL_WAIT,
                             what="token scores")
        # the reference goes away: a problem, and no heat on the text any more
        await s.command("refscore.setReference", doc2, "missing.py")
        await s.wait_for(lambda: any(d.code == "refscore.problem" for d in s.diagnostics(doc2)), what="problem")
        await s.wait_for(lambda: payloads(s, doc2)[-1]["tokens"] == [], what="heat cleared after the problem")
        # CodeBERTScore switched off: CodeBLEU only, and the heat cleared
        s.client.set_configuration({"metrics": ["codebleu"]}, section="refscore")
        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "off", what="off")
        last = await s.wait_for(lambda: payloads(s, doc)[-1]["tokens"] == [] and payloads(s, doc)[-1],
                                what="heat cleared after switching CodeBERTScore off")
        assert last["version"] == 1
        cleared = len(payloads(s, doc))
        s.replace_all(doc, samples.CANDIDATE + "\n")  # no token scores before, none now: nothing more is sent
        await s.wait_summary(doc, version=2)
        assert len(payloads(s, doc)) == cleared


async def test_a_layer_outside_the_model_is_unavailable_with_its_reason(tmp_path: Path, daemon: dict[str, str]) -> None:
    """The daemon answers but cannot score (``refscore.layer`` 99 on a 6-layer model): the summary
    says CodeBERTScore is unavailable and why (its state said ``done`` with no numbers), and the
    heat map is cleared."""
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    async with session(ws, settings=BOTH, init_options={"tokenScores": True}, daemon=True, env=daemon) as s:
        doc = s.open(cand)
        await s.wait_for(lambda: payloads(s, doc) and payloads(s, doc)[-1]["tokens"], timeout=MODEL_WAIT,
                         what="token scores")
        s.client.set_configuration({**BOTH, "layer": 99}, section="refscore")
        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        summary = await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] not in
                                   ("pending", "done") and d, what="CodeBERTScore unavailable")
        assert summary.data["codebertscoreState"] == "unavailable" and "codebertscore" not in summary.data
        assert "layer 99: all-MiniLM-L6-v2 has hidden layers 0 to 6" in summary.message and "CodeBLEU" in summary.message
        hover = await s.hover(doc, 0, 1)
        assert "CodeBERTScore unavailable: " in hover.contents.value and "layer 99" in hover.contents.value
        await s.wait_for(lambda: payloads(s, doc)[-1]["tokens"] == [], what="heat cleared")
