"""Where a candidate departs from its reference: CodeBLEU's explanations placed on the candidate
and one ranking of candidate spans (``rank_differences``). Pure: no I/O, no parsing (the
caller passes the analyses: ``scoring.differences``).

* ``align``: the token alignment (names read through a renaming);
* ``placing``: each CodeBLEU explanation's candidate span (or none: absent code);
* ``rank``: the weighted differences, one per candidate line, strongest first;
* ``reasons``: the words; ``model``: the typed results.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

from ...analysis.leaves import CodeToken
from ...analysis.positions import LinePositions
from ..codebertscore_result import BertScore
from ..codebleu import CodeBleuResult
from .align import Alignment, align
from .model import Difference, Differences, PlacedExplanation, range_dict
from .placing import NodeSpan, place
from .rank import Bases, Evidence, RawDifference, bases, rank

#: What a ranking says when the alignment was cut short to bound its work (``bounded``).
CAPPED_NOTE = "repetitive code: part of it was compared as whole runs of lines, to bound the work"

__all__ = ["CAPPED_NOTE", "Difference", "Differences", "PlacedExplanation", "rank_differences", "range_dict"]


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


#: The last alignments made, by the token sequences' identities (each entry holds its sequences,
#: so an identity is never reused meanwhile): the ranking again with CodeBERTScore's similarities
#: (the editor's finish stage) aligns the same two token sequences (cached by text) again.
_ALIGNED: "OrderedDict[tuple[int, int], tuple[Sequence[CodeToken], Sequence[CodeToken], Alignment]]" = OrderedDict()
_ALIGNED_LOCK = threading.Lock()
ALIGNED_KEPT = 8


def _aligned(reference: Sequence[CodeToken], candidate: Sequence[CodeToken]) -> Alignment:
    """``align(reference, candidate)``, the same sequence objects' alignment reused."""
    key = (id(reference), id(candidate))
    with _ALIGNED_LOCK:
        found = _ALIGNED.get(key)
        if found is not None and found[0] is reference and found[1] is candidate:
            _ALIGNED.move_to_end(key)
            return found[2]
    made = align(reference, candidate)
    with _ALIGNED_LOCK:
        _ALIGNED[key] = (reference, candidate, made)
        while len(_ALIGNED) > ALIGNED_KEPT:
            _ALIGNED.popitem(last=False)
    return made


#: The last rankings' first stages (the explanations placed, ``rank.bases``), by the alignment's and
#: the explanations' identities (each entry holds both): the editor's finish stage ranks the same
#: alignment and explanations again, with CodeBERTScore's similarities, and only those change.
_FIRST: "OrderedDict[tuple[int, int, int], tuple[Alignment, Sequence, str, str, tuple[PlacedExplanation, ...], Bases]]" = OrderedDict()
_FIRST_LOCK = threading.Lock()
FIRST_KEPT = 8


def _first_stage(alignment: Alignment, explanations: Sequence, nodes: Sequence[NodeSpan], index: int,
                 reference: str, candidate: str) -> tuple[tuple[PlacedExplanation, ...], Bases]:
    """The explanations placed on the candidate and the ranking's first stage, kept."""
    key = (id(alignment), id(explanations), index)
    with _FIRST_LOCK:
        found = _FIRST.get(key)
        if (found is not None and found[0] is alignment and found[1] is explanations
                and found[2] == reference and found[3] == candidate):
            _FIRST.move_to_end(key)
            return found[4], found[5]
    placed = place(alignment, explanations, nodes, index)
    made = bases(alignment, reference, candidate, placed)
    with _FIRST_LOCK:
        _FIRST[key] = (alignment, explanations, reference, candidate, placed, made)
        while len(_FIRST) > FIRST_KEPT:
            _FIRST.popitem(last=False)
    return placed, made


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
