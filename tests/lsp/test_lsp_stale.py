"""End to end: between an edit and its new result, hovers and code lenses are answered from the
last result, but always with ranges in the document's *current* text (a result's ranges belong
to the text it scored): spans the edit touched are left out, spans after it are moved with it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from refscore.lsp.current import View
from refscore.lsp.references import ReferenceChoice
from refscore.lsp.results import Result

from tests.lsp import samples
from tests.lsp.harness import session

SLOW = {"debounceMs": 8000}  # the edits below wait this long for their own result


def inside(text: str, rng: types.Range) -> bool:
    """Whether ``rng`` is a range of ``text`` (UTF-16 columns; ASCII here)."""
    lines = text.split("\n")
    return all(p.line < len(lines) and p.character <= len(lines[p.line]) for p in (rng.start, rng.end))


async def edit_twice(s, doc: str, first: str, second: str) -> None:
    """Two edits in a row: the second cancels the first's scoring and waits for the debounce."""
    s.replace_all(doc, first)
    s.replace_all(doc, second)
    await asyncio.sleep(0.3)


@pytest.mark.asyncio
async def test_a_shrunk_document_gets_no_range_past_its_end(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "s")
    async with session(tmp_path, settings=SLOW) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        assert len(await s.lenses(doc)) == 2
        await edit_twice(s, doc, "x = 1\ny = 2\n", "x = 1\n")
        assert s.summary(doc).data["version"] == 1  # the new version is not scored yet
        for line, character in ((0, 1), (0, 4), (3, 8), (10, 4)):
            hover = await s.hover(doc, line, character)
            assert hover is None or hover.range is None or inside("x = 1\n", hover.range), (line, hover.range)
        lenses = await s.lenses(doc)
        assert all(inside("x = 1\n", lens.range) for lens in lenses), [lens.range for lens in lenses]
        assert lenses == []  # both functions were replaced


@pytest.mark.asyncio
async def test_spans_after_an_edit_move_with_it(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "s")
    moved = "# one\n# two\n" + samples.CANDIDATE
    async with session(tmp_path, settings=SLOW) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        before = await s.hover(doc, 10, 6)  # `add_all` in `def add_all(items):`
        assert before is not None and before.contents.value.startswith("**add\\_all(items):**")
        await edit_twice(s, doc, "# one\n" + samples.CANDIDATE, moved)
        assert s.summary(doc).data["version"] == 1
        after = await s.hover(doc, 12, 6)  # the same word, two lines down now
        assert after is not None and after.contents.value == before.contents.value
        assert (after.range.start.line, after.range.start.character) == (12, before.range.start.character)
        assert (after.range.end.line, after.range.end.character) == (12, before.range.end.character)
        assert await s.hover(doc, 0, 2) is None or (await s.hover(doc, 0, 2)).range.start.line == 0
        lenses = await s.lenses(doc)
        assert [lens.range.start.line for lens in lenses] == [2, 12]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\n\r😀é ", max_size=40), st.integers(0, 40), st.integers(0, 40),
       st.text(alphabet="ab\n😀", max_size=8))
def test_mapped_spans_hold_the_same_text(old: str, a: int, b: int, inserted: str) -> None:
    """Any single edit: a span the view keeps has the same text in both versions, no more
    characters are left out than the edit replaced (where it was is ambiguous in ``aa`` -> ``a``),
    and an offset it maps back points at the same character."""
    start, end = sorted((min(a, len(old)), min(b, len(old))))
    new = old[:start] + inserted + old[end:]
    seen = View(Result("file:///a.py", 1, old, None, ReferenceChoice((), "command")), new)
    for i in range(len(old) + 1):
        for j in range(i, min(len(old), i + 4) + 1):
            moved = seen.span(i, j)
            if moved is not None:
                assert new[moved[0]:moved[1]] == old[i:j]
    kept = sum(seen.span(i, i + 1) is not None for i in range(len(old)))
    assert kept >= len(old) - (end - start)  # never more left out than the edit replaced
    for k in range(len(new)):
        back = seen.to_result(k)
        if back is not None:
            assert old[back] == new[k]
