"""Incremental edits in documents with characters Python's ``str.splitlines`` takes for line
breaks but LSP does not (a form feed page break, U+2028 in a string, NEL in a comment): LSP lines
end only at ``\\n``, ``\\r\\n`` or ``\\r``, so an edit the client places on line N must land on the
client's line N, and the score is the score of the text the editor shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from refscore.scoring.codebleu import score_codebleu
from tests.lsp import samples
from tests.lsp.harness import session

pytestmark = pytest.mark.asyncio


def _client_line(text: str, needle: str) -> tuple[int, int]:
    """(line, column) of ``needle`` as an LSP client counts lines (``\\n`` only here)."""
    before = text[:text.index(needle)]
    return before.count("\n"), len(before) - (before.rfind("\n") + 1)


@pytest.mark.parametrize("odd", ["\x0c", "\u2028", "\x85", "\x1c", "\x0b"])
async def test_edit_after_a_non_lsp_line_break_lands_on_the_client_line(tmp_path: Path, odd: str) -> None:
    text = samples.CANDIDATE.replace("\n\n\ndef add_all", f"\n\n# page {odd} break\n\ndef add_all")
    cand = samples.write_pair(tmp_path, "ff", candidate=text)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        line, column = _client_line(text, "s = s + x")
        version = s.replace_range(doc, (line, column), (line, column + len("s = s + x")), "s += x")
        expected_text = text.replace("s = s + x", "s += x")
        summary = await s.wait_summary(doc, version=version)
        expected = score_codebleu([samples.REFERENCE], expected_text, "python").score
        assert summary.data["codebleu"]["score"] == pytest.approx(expected)
        # one more edit: delete the whole line after the odd character's line
        line, _ = _client_line(expected_text, "    s = 0\n")
        version = s.replace_range(doc, (line, 0), (line + 1, 0), "")
        expected_text = expected_text.replace("    s = 0\n", "")
        summary = await s.wait_summary(doc, version=version)
        expected = score_codebleu([samples.REFERENCE], expected_text, "python").score
        assert summary.data["codebleu"]["score"] == pytest.approx(expected)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
async def test_a_column_past_the_line_end_stops_at_the_end(tmp_path: Path, newline: str) -> None:
    """LSP: a character past the line's length means the line's end, not the next line, and
    never the point between a CR and its LF."""
    text = samples.CANDIDATE.replace("\n", newline)
    cand = samples.write_pair(tmp_path, "past", candidate=text)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        first = samples.CANDIDATE.splitlines()[0]
        version = s.insert(doc, 0, len(first) + 1, "pass")  # one past the end: the end
        summary = await s.wait_summary(doc, version=version)
        expected_text = text.replace(first, first + "pass", 1)
        expected = score_codebleu([samples.REFERENCE], expected_text, "python").score
        assert summary.data["codebleu"]["score"] == pytest.approx(expected)


async def test_a_file_with_lone_cr_line_breaks_gets_the_differences_of_its_lf_copy(tmp_path: Path) -> None:
    """Classic Mac line breaks (``\\r`` alone) are line breaks to LSP and to every range RefScore
    sends: the ranked differences must be those of the same file with ``\\n`` (one per line, the
    reference line quoted), not one difference quoting the whole reference as a single line."""
    found = {}
    for name, newline in (("lf", "\n"), ("cr", "\r")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "d.ref.py").write_text(samples.REFERENCE.replace("\n", newline), encoding="utf-8", newline="")
        cand = folder / "d.py"
        cand.write_text(samples.CANDIDATE.replace("\n", newline), encoding="utf-8", newline="")
        async with session(folder) as s:
            doc = s.open(cand, text=samples.CANDIDATE.replace("\n", newline))
            await s.wait_summary(doc)
            found[name] = [(d.range, d.message) for d in s.diagnostics(doc) if d.code == "refscore.difference"]
    assert len(found["lf"]) >= 2
    assert found["cr"] == found["lf"]
