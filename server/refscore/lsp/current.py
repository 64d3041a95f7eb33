"""A result seen from the document's current text.

Hovers, lenses and inlay hints are answered from the last result while a newer version is being
scored, but a result's offsets belong to the text it scored. Between the two texts the common
prefix and suffix are unchanged and everything between them is the edit: a span before the edit
keeps its offsets, one after it moves by the edit's length, one that overlaps it is left out. So
no range is ever sent against text it was not computed on.

One stable update per edit (``same_inputs``, ``renumber``, ``carried_tokens``): a document
rescored with exactly the inputs of the result it shows (a save, autosave or format-on-save of
text already scored, a reference saved with the text the editor already had, a second window)
keeps that result. Nothing is withdrawn and republished, so the weak tokens never vanish and come
back and the numbers change only when the text, its references or the settings do. A newer
version of the same text gets the shown result under its version number: one publish, no
rescoring.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..analysis.positions import LinePositions
from ..metrics.differences import Difference, Differences
from ..parsing.shared_ends import shared_prefix, shared_suffix
from .positions import Positions
from .results import Result
from .uris import file_name
from .words import CodeToken

if TYPE_CHECKING:
    from .server import RefScoreServer

#: CodeBERTScore states of a finished result: one in another state (pending, or the daemon could
#: not be had) is scored again.
SETTLED = frozenset({"done", "off", "skipped"})


class View:
    """Maps a result's offsets to the current text and back; ``positions`` are the current text's."""

    def __init__(self, result: Result, text: str) -> None:
        self.result = result
        self.text = text
        self.same = text == result.text
        old = result.text
        self.prefix = len(old) if self.same else shared_prefix(old, text)
        limit = min(len(old), len(text)) - self.prefix
        self.suffix = 0 if self.same else shared_suffix(old, text, limit)
        self.delta = len(text) - len(old)
        self.tail = len(old) - self.suffix  # where the unchanged suffix starts in the old text

    @cached_property
    def positions(self) -> Positions:
        """The current text's position tables (made when first asked for: carrying tokens or
        differences reads only offsets)."""
        return self.result.positions if self.same else Positions(self.text, self.result.codec)

    def to_result(self, offset: int) -> int | None:
        """The result's offset of a current offset; None inside the edit."""
        if self.same or offset < self.prefix:
            return offset
        old = offset - self.delta
        return old if old >= self.tail else None

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """The current offsets of a result's span; None when the edit touched it."""
        if self.same or end <= self.prefix:
            return start, end
        if start >= self.tail:
            return start + self.delta, end + self.delta
        return None

    def range(self, start: int, end: int) -> types.Range | None:
        """The current range of a result's span; None when the edit touched it."""
        moved = self.span(start, end)
        return None if moved is None else self.positions.range(*moved)

    def offset(self, position: types.Position) -> int | None:
        """The result's offset of a current position; None inside the edit."""
        return self.to_result(self.positions.offset(position))


def view(server: "RefScoreServer", uri: str) -> View | None:
    """The document's last result seen from its current text; None without a result or document."""
    result = server.loop.results.get(uri)
    document = server.document(uri)
    if result is None or document is None:
        return None
    return View(result, document.source)


def same_inputs(shown: Result | None, text: str, prepared: Any, settings: Any, scored_with: Any) -> bool:
    """Whether ``shown`` (the document's last result, made with the settings ``scored_with``) is
    already the finished answer for ``text`` with ``prepared``'s references and ``settings``."""
    if shown is None or shown.bert_state not in SETTLED or shown.problem is not None \
            or shown.carried_differences is not None:  # its differences not ranked yet
        return False
    return (shown.text == text and prepared.problem is None and shown.reference_texts == prepared.texts
            and shown.reference_uris == prepared.uris and shown.choice == prepared.choice
            and _name(shown.spec) == _name(prepared.spec) and scored_with == settings)


def _name(spec: Any) -> str | None:
    return getattr(spec, "name", None)


def renumber(shown: Result, version: int) -> Result:
    """``shown`` as the result of ``version`` (the same text): what it computed is kept."""
    return keeping_ranked(shown, version=version)


def keeping_ranked(shown: Result, **changes: Any) -> Result:
    """``shown.derive(**changes)`` with the differences and code tokens ``shown`` made kept: for
    changes that are none of their inputs (the version of the same text, the functions' scores)."""
    made = shown.derive(**changes)
    for key in ("differences", "code_tokens"):
        if key in shown.__dict__:
            made.__dict__[key] = shown.__dict__[key]
    return made


def kept_message(uri: str, version: int) -> str:
    """The log line of a rescoring that found nothing to redo (clients log it; nothing is shown)."""
    return f"RefScore: {file_name(uri)} v{version} unchanged since it was scored: its result stays"


def carried_tokens(shown: Result | None, result: Result) -> tuple[Any, ...]:
    """The code tokens of ``shown`` (the document's last result) that the edit to ``result``'s
    text did not touch, moved to their offsets there; none when the references changed. Shown
    while ``result``'s CodeBERTScore is pending, so an edit's first publish does not withdraw
    the weak tokens it did not touch (they come back, or go, with the new result)."""
    if shown is None or not shown.code_tokens or shown.reference_texts != result.reference_texts:
        return ()
    seen = View(shown, result.text)
    if seen.same:
        return tuple(shown.code_tokens)
    tail, delta = seen.tail, seen.delta
    kept = [t for t in shown.code_tokens if t.end <= seen.prefix]
    kept.extend(CodeToken(t.start + delta, t.end + delta, t.text, t.similarity, t.match_start, t.match_end,
                          t.match_text) for t in shown.code_tokens if t.start >= tail)
    return tuple(kept)


def carried_differences(shown: Result | None, result: Result) -> Differences:
    """The ranked differences of ``shown`` (the document's last result) that the edit to
    ``result``'s text did not touch, moved to their offsets and ranges there, in their order;
    none when the references changed. Shown with ``result``'s summary, which is published before
    its own differences are ranked: an edit never withdraws the differences it did not touch."""
    if shown is None or shown.problem is not None or shown.reference_texts != result.reference_texts:
        return Differences()
    found = shown.differences
    if not found.differences or result.text == shown.text:
        return Differences(found.differences, note=found.note)
    seen = View(shown, result.text)
    old_lines, new_lines = shown.positions.lines, result.positions.lines  # line numbers only: any codec
    tail, delta = seen.tail, seen.delta
    # the lines after the edit's last one are the same text: a span there moves by whole lines
    first = old_lines.position(tail)[0] + 1
    whole_lines = old_lines.starts[first] if first < old_lines.line_count else len(shown.text) + 1
    shift = new_lines.position(tail + delta)[0] + 1 - first
    exact: LinePositions | None = None  # a span on the edit's last line: its columns move too (UTF-16)
    moved = []
    for item in found.differences:
        if item.end <= seen.prefix:
            moved.append(item)
            continue
        if item.start < tail:
            continue  # the edit touched it
        if item.start >= whole_lines:
            a, b, c, d = item.range
            span = (a + shift, b, c + shift, d)
        else:
            exact = exact or LinePositions(result.text)
            (a, b), (c, d) = exact.range(item.start + delta, item.end + delta)
            span = (a, b, c, d)
        moved.append(Difference(item.kind, item.start + delta, item.end + delta, span, item.reference_index,
                                item.reference_start, item.reference_end, item.reference_range, item.reason,
                                item.weight, item.evidence))
    return Differences(tuple(moved), note=found.note)
