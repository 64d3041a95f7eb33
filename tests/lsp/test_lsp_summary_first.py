"""The summary first, then the ranked differences (issue 43, item 2): an edit's new CodeBLEU is
published as soon as it is scored, with the last version's differences that the edit did not
touch where they now are (``differencesState: pending``); the version's own ranking follows in a
second publish (``done``). Nothing the edit left alone disappears between the two."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from refscore import languages
from refscore.analysis.positions import LinePositions
from refscore.lsp.current import carried_differences
from refscore.lsp.references import ReferenceChoice
from refscore.lsp.requests import request_for
from refscore.lsp.results import Result
from refscore.lsp.scorers import Scorers
from refscore.lsp.settings import Settings
from refscore.metrics.differences import Difference, Differences
from refscore.scoring.differences import find_differences
from tests.lsp.harness import REPO, session

SAMPLE = REPO / "client-vscode" / "e2e" / "workspace"
DIFFERENCE = "refscore.difference"


def _differences(diagnostics: list[types.Diagnostic]) -> list[tuple[int, int, str]]:
    return sorted((d.range.start.line, d.range.start.character, d.message) for d in diagnostics
                  if d.code == DIFFERENCE)


def _state(diagnostics: list[types.Diagnostic]) -> str | None:
    summary = next((d for d in diagnostics if d.code == "refscore.summary"), None)
    return None if summary is None else summary.data["differencesState"]


@pytest.mark.asyncio
async def test_an_edit_publishes_its_summary_with_the_untouched_differences_then_its_own(tmp_path: Path) -> None:
    for name in ("totals.py", "totals.ref.py"):
        shutil.copy(SAMPLE / name, tmp_path / name)
    async with session(tmp_path, settings={"behaviour": {"enabled": False}}) as s:
        doc = s.open(tmp_path / "totals.py")
        await s.wait_summary(doc)  # ranked
        opened = [(v, diags) for uri, v, diags in s.published if uri == doc]
        assert [_state(d) for _, d in opened] == ["pending", "done"]  # the first open too: summary, then ranking
        assert _differences(opened[0][1]) == []  # nothing to carry yet
        before = _differences(s.diagnostics(doc))
        assert before
        mark = len(s.published)
        version = s.insert(doc, 0, 0, "# one\n# two\n")  # every difference moves down two lines
        await s.wait_summary(doc, version)
    mine = [diags for uri, v, diags in s.published[mark:] if uri == doc and v == version]
    assert [_state(d) for d in mine] == ["pending", "done"]
    moved = [(line + 2, character, message) for line, character, message in before]
    assert _differences(mine[0]) == moved  # carried: where they now are
    assert _differences(mine[1]) == moved  # ranked again: a comment changes none of them


def _result(text: str, reference: str = "r = 1\n") -> Result:
    return Result("file:///c.py", 1, text, languages.get("python"), ReferenceChoice((Path("/r.py"),), "settings"),
                  (reference,), ("file:///r.py",))


def _difference(start: int, end: int, range_: tuple[int, int, int, int]) -> Difference:
    return Difference("changed", start, end, range_, 0, 0, 1, (0, 0, 0, 1), "differs", 0.5)


def test_carried_differences_keep_those_before_the_edit_move_those_after_and_drop_those_it_touched() -> None:
    old = "a = 1\nb = 2\nc = 3\n"
    shown = _result(old)
    shown.__dict__["differences"] = Differences((
        _difference(0, 1, (0, 0, 0, 1)),      # 'a': before the edit
        _difference(6, 7, (1, 0, 1, 1)),      # 'b': the edit replaces it
        _difference(12, 13, (2, 0, 2, 1)),    # 'c': after it
    ), note="kept note")
    new = "a = 1\nzz\nzz = 2\nc = 3\n"        # 'b' became 'zz\nzz': 'c' moves down a line and on 4 characters
    carried = carried_differences(shown, _result(new))
    assert [(d.start, d.end, d.range) for d in carried.differences] == [(0, 1, (0, 0, 0, 1)), (16, 17, (3, 0, 3, 1))]
    assert new[16:17] == "c" and carried.note == "kept note"
    assert carried_differences(shown, _result(new, reference="r = 2\n")) == Differences()  # another reference
    assert carried_differences(None, _result(new)) == Differences()


def test_a_result_carrying_differences_says_pending_until_ranked() -> None:
    result = _result("a = 1\n")
    result.carried_differences = Differences((_difference(0, 1, (0, 0, 0, 1)),))
    assert result.differences_state == "pending" and result.differences is result.carried_differences
    assert result.derive(carried_differences=None).differences_state == "done"


@pytest.mark.parametrize("line_break", ["\n", "\r\n"])
def test_carried_differences_are_where_an_exact_count_puts_them_after_any_edit(line_break: str) -> None:
    """Spans after the edit move by whole lines where the edit ends on an earlier line, and are
    counted again on the edit's own last line: either way, the code each one covers and its range
    (UTF-16 columns, here with characters outside the BMP) are those of the new text."""

    function = (REPO / "examples" / "python" / "reference.py").read_text(encoding="utf-8")  # running_max
    candidate = "\n".join(function.replace("running_max", f"running_max_{i}") for i in range(12))
    reference = candidate.replace("best", "current").replace("value > current", "current < value")
    candidate = candidate.replace("\n", line_break).replace("result = []", "result = []  # 𝛴 ok", 2)
    shown = _result(candidate, reference)
    shown.report = Scorers(allow_daemon=False).codebleu(request_for(Settings(), candidate, (reference,), "python",
                                                                    None, ("codebleu",)))
    found = find_differences(candidate, (reference,), shown.report, "python").differences
    assert len(found) >= 10
    shown.__dict__["differences"] = Differences(found)
    rng = random.Random(7)
    for _ in range(200):
        at = rng.randrange(len(candidate) + 1)
        cut = rng.choice([0, 0, 1, 3, 12])
        typed = rng.choice(["", "x", line_break, f"# 𝛴{line_break}", f"a{line_break}b{line_break}", "  "])
        new = candidate[:at] + typed + candidate[at + cut:]
        carried = carried_differences(shown, _result(new, reference)).differences
        exact = LinePositions(new)
        for item in carried:
            original = next(d for d in found if d.reason == item.reason and d.end - d.start == item.end - item.start
                            and new[item.start:item.end] == candidate[d.start:d.end])
            (a, b), (c, d) = exact.range(item.start, item.end)
            assert item.range == (a, b, c, d), (at, cut, typed, item, original)
        assert len(carried) <= len(found)
