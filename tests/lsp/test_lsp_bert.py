"""End to end with the real scoring daemon and the embedded model: CodeBERTScore in the summary,
weak-token diagnostics, token hovers, the ``refscore/tokenScores`` heat map, inlay hints, lens F3,
model-loading progress, and a daemon killed mid-session. Skipped (with the reason) where
CodeBERTScore cannot run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, daemon_env, daemon_pid, kill, stop_daemon
from tests.lsp.harness import WAIT, session, uri
from tests.support.timing import hang_guard

REASON = bert_unavailable()
pytestmark = [pytest.mark.asyncio, pytest.mark.skipif(REASON is not None, reason=REASON or "")]
MODEL_WAIT = hang_guard(180)  # first model load on a cold 2-core machine

PREFIX = 'label = "ünïcödé 😀 résumé"\n'  # code, not a comment: the heat map leaves comments out


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@pytest.fixture
def daemon(tmp_path: Path):
    env = daemon_env(tmp_path)
    yield env
    stop_daemon(env)


async def test_codebertscore_end_to_end(tmp_path: Path, daemon: dict[str, str]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "task.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    cand = ws / "task.py"
    text = PREFIX + samples.CANDIDATE
    cand.write_text(text, encoding="utf-8")
    settings = {"metrics": ["codebleu", "codebertscore"], "weakTokens": {"threshold": 0.9, "maxCount": 3},
                "inlayHints": {"enabled": True}, "insertion": {"minChars": 40}}
    async with session(ws, settings=settings, init_options={"tokenScores": True}, daemon=True, env=daemon) as s:
        doc = s.open(cand)
        summary = await s.wait_for(lambda: (d := s.summary(doc)) and "CodeBERTScore P" in d.message and d,
                                   timeout=MODEL_WAIT, what="CodeBERTScore in the summary")
        bert = summary.data["codebertscore"]
        assert 0 < bert["f3"] <= 1 and 0 < bert["precision"] <= 1 and bert["model"] in summary.message
        assert "CodeBLEU" in summary.message

        weak = [d for d in s.diagnostics(doc) if d.code == "refscore.weak-token"]
        assert 1 <= len(weak) <= 3
        lines = text.splitlines()
        for diag in weak:
            assert diag.severity == types.DiagnosticSeverity.Information and diag.source == "refscore"
            assert diag.data["similarity"] < 0.9
            # the message names the candidate token, and the reference's whole word (issue 25, item 18)
            start, end = diag.range.start, diag.range.end
            assert start.line == end.line
            token = lines[start.line].encode("utf-16-le")[2 * start.character:2 * end.character].decode("utf-16-le")
            assert diag.message.startswith(f"{token.strip()!r} weakly aligned"), diag.message
            if "match" not in diag.data:  # its closest reference token is a word of a docstring: not named
                assert "closest" not in diag.message
                continue
            assert diag.data["match"]["text"] and diag.data["match"]["uri"] == uri(ws / "task.ref.py")
            matched = diag.data["match"]["text"]
            ref_line = samples.REFERENCE.splitlines()[diag.data["match"]["range"]["start"]["line"]]
            at = diag.data["match"]["range"]["start"]["character"]
            assert ref_line[at:at + len(matched)] == matched
            if matched[0].isalnum() or matched[0] == "_":  # never a piece of a longer word
                assert not (at > 0 and (ref_line[at - 1].isalnum() or ref_line[at - 1] == "_"))
                after = ref_line[at + len(matched):at + len(matched) + 1]
                assert not (after.isalnum() or after == "_"), (matched, ref_line)

        payload = await s.wait_for(lambda: [p for p in s.token_scores if p["uri"] == doc], what="tokenScores")
        tokens = payload[-1]["tokens"]
        assert payload[-1]["version"] == 1 and tokens
        assert all(-1 <= t["similarity"] <= 1 for t in tokens)
        first_line = [t for t in tokens if t["range"]["start"]["line"] == 0]
        # the token "résumé" sits after an astral emoji: its UTF-16 column counts the emoji as 2
        resume = [t for t in first_line if t["range"]["start"]["character"] == utf16(lines[0][: lines[0].index("r")])]
        assert resume, first_line

        fizz_line = 1
        hover = await s.hover(doc, fizz_line, lines[fizz_line].index("fizzbuzz") + 2)
        assert hover is not None and "similarity" in hover.contents.value
        assert "matched reference token" in hover.contents.value and uri(ws / "task.ref.py") in hover.contents.value

        lenses = await s.lenses(doc)
        assert any("F3" in lens.command.title for lens in lenses), [lens.command.title for lens in lenses]

        hints = await asyncio.wait_for(s.client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=doc),
            range=types.Range(types.Position(0, 0), types.Position(len(lines), 0)))), WAIT)
        assert hints and all("sim" in str(h.label) for h in hints)
        # padding comes from paddingLeft alone, never a leading space as well (issue 25, item 18)
        assert all(h.padding_left and not str(h.label).startswith(" ") for h in hints)

        # the model's first load was announced as work-done progress
        kinds = [type(v).__name__ for reports in s.client.progress_reports.values() for v in reports]
        assert "WorkDoneProgressBegin" in kinds and "WorkDoneProgressEnd" in kinds

        # a large insertion is scored on its own, with both metrics
        block = "\n\ndef total(values):\n    result = 0\n    for value in values:\n        result += value\n    return result\n"
        version = s.insert(doc, len(lines), 0, block)
        inserted = await s.wait_for(lambda: [d for d in s.diagnostics(doc) if d.code == "refscore.inserted-block"
                                             and "F3" in d.message], timeout=MODEL_WAIT, what="inserted block")
        assert inserted[0].data["f3"] > 0.5 and inserted[0].range.start.line >= len(lines)
        assert s.summary(doc).data["version"] == version

        # the daemon dies: CodeBLEU goes on, the server stays up and answers
        pid = daemon_pid(daemon)
        assert pid is not None
        kill(pid)
        version = s.replace_all(doc, text + "\n# edited after the daemon died\n")
        after = await s.wait_summary(doc, version=version, contains="CodeBLEU")
        await s.wait_for(lambda: (d := s.summary(doc)) and d.data["version"] == version
                         and d.data["codebertscoreState"] in ("done", "unavailable"), timeout=MODEL_WAIT,
                         what="CodeBERTScore answered or reported unavailable after the daemon died")
        assert after.code == "refscore.summary"
        assert await s.hover(doc, 0, 1) is not None
        assert s.client.error is None


async def test_score_text_uses_the_documents_model_settings(tmp_path: Path, daemon: dict[str, str]) -> None:
    """``refscore/scoreText`` scores a selection with the model and layer of its file (the
    settings travel in every request to the daemon), and a pragma line is never a token."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "task.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    cand = ws / "task.py"
    pragma = "# refscore: context=Running maximum\n"
    cand.write_text(pragma + samples.CANDIDATE, encoding="utf-8")
    settings = {"metrics": ["codebleu", "codebertscore"], "layer": 4}
    async with session(ws, settings=settings, init_options={"tokenScores": True}, daemon=True, env=daemon) as s:
        doc = s.open(cand)
        summary = await s.wait_for(lambda: (d := s.summary(doc)) and "CodeBERTScore P" in d.message and d,
                                   timeout=MODEL_WAIT, what="CodeBERTScore in the summary")
        assert summary.data["codebertscore"]["layer"] == 4
        answer = await asyncio.wait_for(s.client.protocol.send_request_async(
            "refscore/scoreText", {"uri": doc, "text": samples.CANDIDATE.splitlines()[0] + "\n    pass\n"}),
            MODEL_WAIT)
        assert answer.codebertscore.layer == 4
        assert answer.codebertscore.model == summary.data["codebertscore"]["model"]
        scored = await s.wait_for(lambda: s.token_scores and s.token_scores[-1], what="token scores")
        assert all(t["range"]["start"]["line"] >= 1 for t in scored["tokens"])  # line 0 is the pragma
