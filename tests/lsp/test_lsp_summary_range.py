"""Issue 43, item 6: the summary squiggle underlines no code. Its range is zero-width at the end
of the first non-blank line (VS Code draws it one character wide after the line; Neovim shows the
sign and virtual text; eglot widens it to the line's last character, tests/lsp/test_lsp_eglot.py);
a hover anywhere on that line still shows the summary, over the whole line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.harness import session

pytestmark = pytest.mark.asyncio


async def test_the_summary_sits_past_the_first_code_lines_end(tmp_path: Path) -> None:
    (tmp_path / "task.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    cand = tmp_path / "task.py"
    cand.write_text("\n   \n" + samples.CANDIDATE, encoding="utf-8")
    first = samples.CANDIDATE.splitlines()[0]
    async with session(tmp_path) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        assert summary.range.start == summary.range.end  # nothing underlined
        assert (summary.range.start.line, summary.range.start.character) == (2, len(first))
        for character in (0, len(first)):
            hover = await s.hover(doc, 2, character)
            assert hover is not None and "CodeBLEU" in hover.contents.value
            assert (hover.range.start.character, hover.range.end.character) == (0, len(first))
