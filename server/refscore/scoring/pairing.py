"""Which part of the reference a piece of the candidate should be compared with.

* per function: the reference function of the same name, else the best-aligned unused one (by
  CodeBLEU, from the shared Scorer);
* for an arbitrary text (an inserted block, ``refscore/scoreText``): the best-scoring region
  among the reference's top-level functions and the whole reference.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from ..languages import LanguageSpec
from .report import ScoreReport, ScoreRequest
from ..analysis.functions import Function, top_level_functions

#: At most this many (candidate, reference) function pairs are scored to align unnamed matches.
MAX_ALIGNMENT_PAIRS = 120

ScoreMany = Callable[[list[ScoreRequest]], list[ScoreReport]]


@dataclass(frozen=True)
class Region:
    """A span of one reference: the whole text or one of its functions."""

    reference_index: int
    start: int
    end: int
    name: str | None  # the function's name, None for the whole reference


@dataclass(frozen=True)
class FunctionPair:
    """A candidate function, the reference region it is compared with, how it was chosen, and its
    scores (frozen: a published result is never changed; ``replace`` makes the next one)."""

    function: Function
    region: Region | None
    matched_by: str  # "name", "alignment" or "none"
    codebleu: float | None = None
    f3: float | None = None
    f1: float | None = None


def _codebleu(report: ScoreReport) -> float:
    return report.codebleu.score if report.codebleu is not None else -1.0


def pair_functions(text: str, references: Sequence[str], spec: LanguageSpec, score_many: ScoreMany,
                   weights: tuple[float, float, float, float], rule: str = "native") -> list[FunctionPair]:
    """Pair each top-level candidate function with a reference function and score the pair
    (CodeBLEU under ``rule``, the request's: the functions score as the whole file does)."""
    ours = top_level_functions(text, spec)
    if not ours or not references:
        return []
    theirs = [(0, f) for f in top_level_functions(references[0], spec)]
    for index, ref in enumerate(references[1:], start=1):
        theirs.extend((index, f) for f in top_level_functions(ref, spec))
    pairs: list[FunctionPair] = []
    used: set[tuple[int, int]] = set()
    for function in ours:
        same = next(((i, f) for i, f in theirs if f.name == function.name and (i, f.start) not in used), None)
        same = same or next(((i, f) for i, f in theirs if f.short_name == function.short_name
                             and (i, f.start) not in used), None)
        if same is not None:
            used.add((same[0], same[1].start))
            pairs.append(FunctionPair(function, _region(*same), "name"))
        else:
            pairs.append(FunctionPair(function, None, "none"))
    unmatched = [k for k, p in enumerate(pairs) if p.region is None]
    free = [(i, f) for i, f in theirs if (i, f.start) not in used]
    if unmatched and free and len(unmatched) * len(free) <= MAX_ALIGNMENT_PAIRS:
        requests = [_request(text[pairs[k].function.start:pairs[k].function.end], references[i][f.start:f.end],
                             spec, weights, rule) for k in unmatched for i, f in free]
        scores = [_codebleu(r) for r in score_many(requests)]
        ranked = sorted(((scores[a * len(free) + b], a, b) for a in range(len(unmatched)) for b in range(len(free))),
                        reverse=True)
        taken_a: set[int] = set()
        taken_b: set[int] = set()
        for score, a, b in ranked:
            if a in taken_a or b in taken_b or score < 0:
                continue
            taken_a.add(a)
            taken_b.add(b)
            pairs[unmatched[a]] = replace(pairs[unmatched[a]], region=_region(*free[b]), matched_by="alignment")
    scored = [k for k, p in enumerate(pairs) if p.region is not None]
    reports = score_many([_request(*pair_texts(pairs[k], text, references), spec, weights, rule) for k in scored])
    for k, report in zip(scored, reports):
        pairs[k] = replace(pairs[k], codebleu=report.codebleu.score if report.codebleu is not None else None)
    return pairs


def pair_texts(pair: FunctionPair, text: str, references: Sequence[str]) -> tuple[str, str]:
    """The candidate function's text and its reference region's text (the pair must have a region)."""
    assert pair.region is not None
    region = pair.region
    return text[pair.function.start:pair.function.end], references[region.reference_index][region.start:region.end]


def best_region(snippet: str, references: Sequence[str], spec: LanguageSpec, score_many: ScoreMany,
                weights: tuple[float, float, float, float]) -> tuple[Region, ScoreReport] | None:
    """The reference region (a function or the whole text) that ``snippet`` scores best against.
    A snippet that defines one function is compared with its namesake when the reference has one
    (as function lenses pair by name first): a short ``def fizzbuzz`` scored best against a short
    unrelated reference function."""
    regions = [Region(i, 0, len(ref), None) for i, ref in enumerate(references)]
    for index, ref in enumerate(references):
        regions.extend(Region(index, f.start, f.end, f.name) for f in top_level_functions(ref, spec)[:60])
    if not regions:
        return None
    reports = score_many([_request(snippet, references[r.reference_index][r.start:r.end], spec, weights)
                          for r in regions])
    defined = top_level_functions(snippet, spec)
    short = defined[0].short_name if len(defined) == 1 else None
    namesakes = [k for k, r in enumerate(regions) if short is not None and r.name is not None
                 and r.name.rsplit(".", 1)[-1] == short]
    best = max(namesakes or range(len(regions)), key=lambda k: (_codebleu(reports[k]), regions[k].name is not None))
    return regions[best], reports[best]


def _region(index: int, function: Function) -> Region:
    return Region(index, function.start, function.end, function.name)


def _request(candidate: str, reference: str, spec: LanguageSpec,
             weights: tuple[float, float, float, float], rule: str = "native") -> ScoreRequest:
    return ScoreRequest(candidate=candidate, references=(reference,), language=spec.name,
                        metrics=("codebleu",), weights=weights, explain=False, codebleu_rule=rule)
