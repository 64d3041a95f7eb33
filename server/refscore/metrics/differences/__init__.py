"""Where a candidate departs from its reference: CodeBLEU's explanations placed on the candidate
and one ranking of candidate spans (``rank_differences``). Pure: no I/O, no parsing (the
caller passes the analyses: ``scoring.differences``).

* ``align``: the token alignment (names read through a renaming);
* ``placing``: each CodeBLEU explanation's candidate span (or none: absent code);
* ``rank``: the weighted differences, one per candidate line, strongest first;
* ``reasons``: the words; ``model``: the typed results.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Sequence, TypeVar

from ...analysis.leaves import CodeToken
from ...analysis.positions import LinePositions
from ..codebertscore_result import BertScore
from ..codebleu import CodeBleuResult
from .align import Alignment, align
from .bounded import Kept
from .model import Difference, Differences, PlacedExplanation, range_dict
from .placing import NodeSpan, place
from .rank import Bases, Evidence, RawDifference, bases, rank

#: What a ranking says when the alignment was cut short to bound its work (``bounded``).
CAPPED_NOTE = "repetitive code: part of it was compared as whole runs of lines, to bound the work"

__all__ = ["CAPPED_NOTE", "Difference", "Differences", "PlacedExplanation", "rank_differences", "range_dict"]
T = TypeVar("T")


def _choose(alignments: Sequence[Alignment], bert: BertScore | None) -> int:
    """The reference to explain against: CodeBERTScore's choice, else the best aligned one."""
    if bert is not None and 0 <= bert.reference_index < len(alignments):
        return bert.reference_index
    return max(range(len(alignments)), key=lambda i: alignments[i].ratio)


def rank_differences(candidate: str, references: Sequence[str], candidate_tokens: Sequence[CodeToken],
                     reference_tokens: Sequence[Sequence[CodeToken]], candidate_nodes: Sequence[NodeSpan],
                     codebleu: CodeBleuResult | None = None, bert: BertScore | None = None) -> Differences:
    """The ranked differences of ``candidate`` from its reference, from the analyses of both
    (``analysis.leaves.code_tokens`` per text, the candidate's subtrees as (type, start, end)
    code-point spans) and the finished metric results; offsets into the texts as given."""
    if not references:
        return Differences(note="no reference")
    alignments = [_aligned(tokens, candidate_tokens) for tokens in reference_tokens]
    index = _choose(alignments, bert)
    alignment = alignments[index]
    explanations = codebleu.explanations if codebleu is not None else ()
    placed, made = _first_stage(alignment, explanations, candidate_nodes, index, references[index], candidate)
    evidence = Evidence(placed, *_similarities(bert, index))
    raw = rank(alignment, references[index], candidate, evidence, made)
    cand_lines, ref_lines = LinePositions(candidate), LinePositions(references[index])
    note = CAPPED_NOTE if alignment.capped else None
    return Differences(tuple(_finish(d, index, cand_lines, ref_lines) for d in raw), placed, note)


class _KeptByIdentity:
    """The last ``entries`` values made from some objects, found by those objects' identities
    (each entry holds its objects, so an identity is never reused while it is kept)."""

    def __init__(self, entries: int) -> None:
        self._kept: Kept[tuple[tuple, Any]] = Kept(entries)

    def __call__(self, objects: tuple, make: Callable[[], T], extra: Hashable = None) -> T:
        """What ``make()`` gave for these very ``objects`` (and ``extra``), else ``make()`` now."""
        return self._kept.get((*map(id, objects), extra), lambda: (objects, make()),
                              lambda found: all(kept is given for kept, given in zip(found[0], objects)))[1]

    def clear(self) -> None:
        self._kept.clear()


#: The last alignments made, by the token sequences' identities: the ranking again with
#: CodeBERTScore's similarities (the editor's finish stage) aligns the same two token sequences
#: (cached by text) again.
ALIGNED_KEPT = 8
_ALIGNED = _KeptByIdentity(ALIGNED_KEPT)
#: The last rankings' first stages (the explanations placed, ``rank.bases``), by the alignment's,
#: the explanations' and the texts' identities: the editor's finish stage ranks the same alignment
#: and explanations again, with CodeBERTScore's similarities, and only those change.
FIRST_KEPT = 8
_FIRST = _KeptByIdentity(FIRST_KEPT)


def _aligned(reference: Sequence[CodeToken], candidate: Sequence[CodeToken]) -> Alignment:
    """``align(reference, candidate)``, the same sequence objects' alignment reused."""
    return _ALIGNED((reference, candidate), lambda: align(reference, candidate))


def _first_stage(alignment: Alignment, explanations: Sequence, nodes: Sequence[NodeSpan], index: int,
                 reference: str, candidate: str) -> tuple[tuple[PlacedExplanation, ...], Bases]:
    """The explanations placed on the candidate and the ranking's first stage, kept."""
    def make() -> tuple[tuple[PlacedExplanation, ...], Bases]:
        placed = place(alignment, explanations, nodes, index)
        return placed, bases(alignment, reference, candidate, placed)

    return _FIRST((alignment, explanations, reference, candidate), make, index)


def _similarities(bert: BertScore | None, index: int) -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float]]]:
    if bert is None or bert.reference_index != index:
        return [], []
    return ([(t.start, t.end, t.similarity) for t in bert.candidate_tokens],
            [(t.start, t.end, t.similarity) for t in bert.reference_tokens])


def _finish(raw: RawDifference, index: int, cand: LinePositions, ref: LinePositions) -> Difference:
    (a, b), (c, d) = cand.range(raw.start, raw.end)
    (e, f), (g, h) = ref.range(raw.reference_start, raw.reference_end)
    return Difference(raw.kind, raw.start, raw.end, (a, b, c, d), index, raw.reference_start, raw.reference_end,
                      (e, f, g, h), raw.reason, raw.weight, raw.evidence)
