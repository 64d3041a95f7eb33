"""Pull diagnostics (LSP 3.17 ``textDocument/diagnostic``, issue 43 item 2), end to end with the
real ``refscore serve`` and a real pytest-lsp client: a client that announces pulls and
``workspace/diagnostic/refresh`` (VS Code's language client 9 and later) is offered the provider,
pulls the summary and the weak tokens, gets ``unchanged`` for an unchanged result, is asked to
pull again when an edit's result is ready and then pulls the new numbers; nothing is pushed to
it. A client without them (eglot 1.9, Neovim 0.11 without refresh) still gets pushes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, own_daemon
from tests.lsp.harness import WAIT, Session, session

pytestmark = pytest.mark.asyncio
BOTH = {"metrics": ["codebleu", "codebertscore"], "weakTokens": {"threshold": 0.99, "maxCount": 100}}


def pulling() -> types.ClientCapabilities:
    """VS Code's capabilities with what its language client 9+ announces for pull diagnostics."""
    caps = client_capabilities("visual-studio-code")
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(dynamic_registration=False)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


class Puller:
    """Pulls a document's diagnostics after the server's refresh requests (pytest-lsp counts them)."""

    def __init__(self, s: Session) -> None:
        self.s = s

    @property
    def refreshes(self) -> int:
        return self.s.client.diagnostic_refresh_count

    async def pull(self, doc: str, previous: str | None = None) -> types.DocumentDiagnosticReport:
        return await asyncio.wait_for(self.s.client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=doc), previous_result_id=previous)), WAIT)

    async def until(self, doc: str, ready, what: str) -> types.RelatedFullDocumentDiagnosticReport:
        """Pull after each refresh until the full report satisfies ``ready``."""
        seen = -1
        while True:
            await self.s.wait_for(lambda: self.refreshes > seen, what=f"a refresh for {what}")
            seen = self.refreshes
            report = await self.pull(doc)
            if isinstance(report, types.RelatedFullDocumentDiagnosticReport) and ready(report.items):
                return report


def _summary(items: list[types.Diagnostic]) -> types.Diagnostic | None:
    return next((d for d in items if d.code == "refscore.summary"), None)


def _ranked(items: list[types.Diagnostic]) -> types.Diagnostic | None:
    """The summary once its version's differences are ranked (it is published before them)."""
    found = _summary(items)
    return found if found is not None and found.data["differencesState"] == "done" else None


async def test_a_pulling_client_pulls_refreshes_and_is_never_pushed_to(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "task")
    async with session(tmp_path, settings={"behaviour": {"enabled": False}}, capabilities=pulling()) as s:
        provider = s.initialize_result.capabilities.diagnostic_provider
        assert provider is not None and provider.identifier == "refscore" and not provider.workspace_diagnostics
        puller = Puller(s)
        doc = s.open(cand)
        first = await puller.until(doc, lambda items: _ranked(items) is not None, "the first result")
        summary = _summary(first.items)
        assert "CodeBLEU" in summary.message and summary.data["version"] == 1
        assert first.result_id
        again = await puller.pull(doc, first.result_id)
        assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport) and again.result_id == first.result_id
        # a save of the text scored changes nothing: still unchanged, and no refresh before the edit's
        s.client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=doc)))
        saved = await puller.pull(doc, first.result_id)
        assert isinstance(saved, types.RelatedUnchangedDocumentDiagnosticReport)
        refreshes = puller.refreshes

        version = s.replace_all(doc, samples.CANDIDATE.replace("n % 3 == 0", "n % 4 == 0"))
        edited = await puller.until(doc, lambda items: (d := _ranked(items)) and d.data["version"] == version,
                                    "the edit's result")
        # one update per edit: its summary, then its ranked differences (``lsp.phases.ranking_phase``)
        assert edited.result_id != first.result_id and puller.refreshes == refreshes + 2
        assert _summary(edited.items).data["codebleu"] != summary.data["codebleu"]  # the new numbers
        assert not s.published  # nothing pushed: VS Code would show both copies


async def test_a_pull_between_an_edit_and_its_result_keeps_what_the_edit_did_not_touch(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "task")
    # the edit waits for a 10 s pause in typing: the pull right after it is answered from the last result
    async with session(tmp_path, settings={"debounceMs": 10_000}, capabilities=pulling()) as s:
        puller = Puller(s)
        doc = s.open(cand)
        first = await puller.until(doc, lambda items: _ranked(items) is not None, "the first result")
        before = sorted((d.range.start.line, d.range.start.character, d.message) for d in first.items
                        if d.code == "refscore.difference")
        assert before
        s.insert(doc, 0, 0, "# one\n# two\n")  # two lines typed at the top
        moved = await puller.pull(doc, first.result_id)
        assert isinstance(moved, types.RelatedFullDocumentDiagnosticReport) and moved.result_id != first.result_id
        assert _summary(moved.items).data["version"] == 1  # still the last result, seen from the new text
        after = sorted((d.range.start.line, d.range.start.character, d.message) for d in moved.items
                       if d.code == "refscore.difference")
        assert after == [(line + 2, character, message) for line, character, message in before]
        assert _summary(moved.items).range.start == types.Position(line=0, character=len("# one"))
        s.replace_range(doc, (0, 0), (2, 0), "")  # typed away again: the text scored, its own set
        back = await puller.pull(doc, first.result_id)
        assert isinstance(back, types.RelatedUnchangedDocumentDiagnosticReport)


@pytest.mark.skipif(bert_unavailable() is not None, reason=bert_unavailable() or "")
async def test_a_pull_answers_the_summary_and_the_weak_tokens(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    with own_daemon(tmp_path) as env:
        async with session(ws, settings=BOTH, daemon=True, env=env, capabilities=pulling()) as s:
            puller = Puller(s)
            doc = s.open(cand)
            report = await puller.until(
                doc, lambda items: (d := _summary(items)) and d.data["codebertscoreState"] == "done", "CodeBERTScore")
            assert "CodeBERTScore P" in _summary(report.items).message
            assert [d for d in report.items if d.code == "refscore.weak-token"]
            assert not s.published


@pytest.mark.parametrize("capabilities", ["visual-studio-code", "neovim"])
async def test_a_client_that_does_not_pull_is_pushed_to(tmp_path: Path, capabilities: str) -> None:
    """VS Code 1.65's capabilities announce no pull; Neovim 0.11's announce pulls without a refresh."""
    cand = samples.write_pair(tmp_path, "task")
    async with session(tmp_path, capabilities=capabilities) as s:
        assert s.initialize_result.capabilities.diagnostic_provider is None
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        assert "CodeBLEU" in summary.message and s.published
