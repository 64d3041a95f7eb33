"""Issue 43's own example in the editor, end to end (real ``refscore serve``, real pytest-lsp
client, trusted workspace, the real sandbox): a candidate ``average`` that returns 0 for an
empty list gets the diagnostic "for `average([])` this returns `0`, the reference raises
ZeroDivisionError"; fixing it withdraws the diagnostic."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.lsp.harness import session
from tests.behaviour.test_behaviour_raises import AVERAGE, GUARDED
from tests.lsp.test_lsp_behaviour import _wait_lens

pytestmark = [pytest.mark.asyncio,
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="behaviour runs in a bubblewrap sandbox")]


async def test_returning_zero_for_an_empty_list_is_named_with_the_references_exception(tmp_path: Path) -> None:
    (tmp_path / "average.ref.py").write_text(AVERAGE, encoding="utf-8")
    cand = tmp_path / "average.py"
    cand.write_text(GUARDED, encoding="utf-8")
    async with session(tmp_path, init_options={"workspaceTrusted": True}) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        found = await s.wait_for(lambda: [d for d in s.diagnostics(doc) if d.code == "refscore.behaviour"],
                                 what="a behaviour diagnostic")
        assert len(found) == 1 and found[0].range.start.line == 0
        assert found[0].message.startswith("for `average([])` this returns `0`, the reference raises "
                                           "ZeroDivisionError (differs on 1 of ")
        assert found[0].data["agreed"] == found[0].data["inputs"] - 1
        inputs = found[0].data["inputs"]
        version = s.replace_all(doc, AVERAGE)  # the fix: it raises as the reference does
        await s.wait_summary(doc, version)
        await _wait_lens(s, doc, 0, f"behaves like `average` on {inputs}/{inputs} inputs")
        assert not [d for d in s.diagnostics(doc) if d.code == "refscore.behaviour"]
