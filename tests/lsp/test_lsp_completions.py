"""End to end: a large single insertion is scored on its own against the best-matching reference
region (transient diagnostic), and ``refscore/scoreText`` scores any text without editing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from refscore.scoring.codebleu import score_codebleu
from tests.lsp import samples
from tests.lsp.harness import WAIT, session, uri

pytestmark = pytest.mark.asyncio

BLOCK = "\n\ndef total(values):\n    result = 0\n    for value in values:\n        result += value\n    return result\n"


def total_function() -> str:
    start = samples.REFERENCE.index("def total")
    return samples.REFERENCE[start:]


async def test_large_insertion_scored_against_best_region(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "t")
    lines = samples.CANDIDATE.splitlines()
    async with session(tmp_path, settings={"insertion": {"minChars": 40}}) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        small = s.insert(doc, 0, 0, "# tiny\n")  # below the threshold: no block diagnostic
        await s.wait_summary(doc, version=small)
        assert not [d for d in s.diagnostics(doc) if d.code == "refscore.inserted-block"]
        version = s.insert(doc, len(lines) + 1, 0, BLOCK)
        await s.wait_summary(doc, version=version)
        block = [d for d in s.diagnostics(doc) if d.code == "refscore.inserted-block"]
        assert len(block) == 1, s.diagnostics(doc)
        diag = block[0]
        assert "inserted block" in diag.message and "CodeBLEU" in diag.message and "total" in diag.message
        assert diag.range.start.line == len(lines) + 1
        assert diag.data["reference"] == uri(tmp_path / "t.ref.py")
        assert diag.data["referenceLine"] == samples.REFERENCE[: samples.REFERENCE.index("def total")].count("\n")
        expected = score_codebleu([total_function()], BLOCK, "python").score
        assert diag.data["codebleu"] == pytest.approx(expected)
        later = s.insert(doc, 0, 0, "#")  # transient: the next edit clears it
        await s.wait_summary(doc, version=later)
        assert not [d for d in s.diagnostics(doc) if d.code == "refscore.inserted-block"]


async def test_score_text_request(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "t")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        before = list(s.published)
        answer = await asyncio.wait_for(s.client.protocol.send_request_async(
            "refscore/scoreText", {"uri": doc, "text": BLOCK}), WAIT)
        assert answer.region.function == "total"
        assert answer.region.uri == uri(tmp_path / "t.ref.py")
        assert answer.codebleu.score == pytest.approx(score_codebleu([total_function()], BLOCK, "python").score)
        assert answer.codebertscore is None  # CodeBERTScore is off in this session
        assert s.published == before  # the document was not touched
        unknown = await asyncio.wait_for(s.client.protocol.send_request_async(
            "refscore/scoreText", {"uri": uri(tmp_path / "nope.py"), "text": "x"}), WAIT)
        assert "no reference" in unknown.error
        bad = await asyncio.wait_for(s.client.protocol.send_request_async(
            "refscore/scoreText", {"uri": doc}), WAIT)
        assert "takes" in bad.error


async def test_score_text_compares_a_function_with_its_namesake(tmp_path: Path) -> None:
    """A completion defining ``fizzbuzz`` is scored against the reference's ``fizzbuzz``, even
    when a short unrelated reference function gets a higher CodeBLEU (``total`` did)."""
    cand = samples.write_pair(tmp_path, "t")
    text = "def fizzbuzz(n):\n    return n\n"
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        answer = await asyncio.wait_for(s.client.protocol.send_request_async(
            "refscore/scoreText", {"uri": doc, "text": text}), WAIT)
        assert answer.region.function == "fizzbuzz"
        reference = samples.REFERENCE[: samples.REFERENCE.index("\n\n\ndef total") + 1]
        assert answer.codebleu.score == pytest.approx(score_codebleu([reference], text, "python").score)
        assert (answer.region.range.start.line, answer.region.range.end.line) == (0, 8)


async def test_an_inserted_block_stays_until_the_next_edit(tmp_path: Path) -> None:
    """Rescoring the same version (settings changed, the reference edited) keeps the block's
    diagnostic: it is cleared by the document's next edit only (it went at any rescoring)."""
    cand = samples.write_pair(tmp_path, "t")
    lines = samples.CANDIDATE.splitlines()
    async with session(tmp_path, settings={"insertion": {"minChars": 40}}) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        version = s.insert(doc, len(lines) + 1, 0, BLOCK)
        await s.wait_for(lambda: [d for d in s.diagnostics(doc) if d.code == "refscore.inserted-block"], what="block")
        s.client.set_configuration({"metrics": ["codebleu"], "insertion": {"minChars": 40},
                                    "codebleu": {"weights": [1, 1, 1, 2]}}, section="refscore")
        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        rescored = await s.wait_for(lambda: (d := s.summary(doc)) and "w:0.2,0.2,0.2,0.4" in d.data["codebleu"]["signature"]
                                    and d, what="rescored with the new weights")
        assert rescored.data["version"] == version
        assert [d for d in s.diagnostics(doc) if d.code == "refscore.inserted-block"]
        later = s.insert(doc, 0, 0, "#")
        await s.wait_summary(doc, version=later)
        assert not [d for d in s.diagnostics(doc) if d.code == "refscore.inserted-block"]
