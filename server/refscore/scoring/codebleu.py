"""CodeBLEU over texts: analyse (cached), gather pair statistics, combine.

``score_codebleu`` is the native API (one candidate, one or more references, explanations with
source ranges; against several references a candidate scores what it scores against the best
one); ``corpus_stats`` gives the package's pair statistics of a corpus
(``scoring.corpus.corpus_codebleu_compat`` combines them as ``codebleu.calc_codebleu`` does).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Callable, Sequence

from .. import languages
from ..analysis.comments import strip_compat, strip_compat_times
from ..analysis.document import (StructureAnalysis, TokenAnalysis, analyse_structure, analyse_tokens,
                                 analyse_tokens_with, comparable_keys, gc_paused, reference_structure,
                                 reference_tokens)
from ..analysis.text import OffsetMap
from ..metrics.codebleu import DEFAULT_WEIGHTS, CodeBleuResult, Explanation, PairStats, combine
from ..metrics.dataflow import unmatched_indices
from ..metrics.ngram import bleu_stats, missing_runs
from ..metrics.overlap import clipped_overlap
from ..metrics.syntax import match_syntax, unmatched_subtrees
from ..metrics.weighted_ngram import weighted_stats

Tokenizer = Callable[[str], Sequence[str]]


def _pair_stats(ref_tokens: Sequence[TokenAnalysis], cand_tokens: TokenAnalysis,
                structures: Sequence[tuple[StructureAnalysis, StructureAnalysis]],
                keywords: frozenset[str], unmatched: bool = False) -> tuple[PairStats, list[list[int]]]:
    """Statistics of one candidate against its references, and (``unmatched``) per reference the
    positions of its dataflow edges the candidate does not match."""
    syntax_matched = syntax_total = flow_matched = flow_total = 0
    flows = []
    for ref_structure, cand_structure in structures:
        syntax = match_syntax(*comparable_keys(ref_structure, cand_structure))
        syntax_matched += syntax.matched
        syntax_total += syntax.total
        ref_norm = ref_structure.normalized_dataflow
        if unmatched:
            missing = unmatched_indices(ref_norm, cand_structure.normalized_dataflow)
            flows.append(missing)
            flow_matched += len(ref_norm) - len(missing)
        else:
            # each reference edge in turn takes an unused equal candidate edge: per distinct edge,
            # the smaller count (the multisets are kept on the analyses)
            flow_matched += clipped_overlap(ref_structure.dataflow_counts, cand_structure.dataflow_counts)
        flow_total += len(ref_norm)
    overlaps = None
    if len(ref_tokens) == 1:  # the n-gram overlaps both n-gram components count
        ref_counts, cand_counts = ref_tokens[0].counts, cand_tokens.counts
        overlaps = [clipped_overlap(ref_counts[n], cand_counts[n]) for n in range(len(cand_counts))]
    stats = PairStats(
        bleu_stats(ref_tokens, cand_tokens, overlaps=overlaps),
        weighted_stats(ref_tokens, cand_tokens, keywords, overlaps=overlaps),
        syntax_matched, syntax_total, flow_matched, flow_total,
    )
    return stats, flows


def corpus_stats(references: Sequence[Sequence[str]], predictions: Sequence[str], language: str,
                 tokenizer: Tokenizer | None = None, keywords: frozenset[str] | None = None) -> PairStats | None:
    """The package's pair statistics, summed over the corpus (None for an empty corpus)."""
    with gc_paused():
        return _corpus_stats(references, predictions, language, tokenizer, keywords)


def _corpus_stats(references: Sequence[Sequence[str]], predictions: Sequence[str], language: str,
                  tokenizer: Tokenizer | None, keywords: frozenset[str] | None) -> PairStats | None:
    spec = languages.get(language)
    keywords = spec.keywords if keywords is None else keywords
    name = spec.name
    pair_stats: list[PairStats] = []
    previous: Sequence[str] | None = None  # a corpus lists a problem's candidates one after another:
    ref_tokens: list[TokenAnalysis] = []   # the previous pair's references are analysed already
    ref_structures: list[StructureAnalysis] = []
    for refs, prediction in zip(references, predictions):
        if previous is None or not _same_texts(refs, previous):
            stripped = [r.strip() for r in refs]
            ref_tokens = [analyse_tokens_with(r, tokenizer) for r in stripped]
            ref_structures = [analyse_structure(strip_compat(r, name), name, "compat") for r in stripped]
            previous = refs
        prediction = prediction.strip()
        cand_tokens = analyse_tokens_with(prediction, tokenizer)
        structures = [
            (ref_structure, analyse_structure(strip_compat_times(prediction, name, index + 1), name, "compat"))
            for index, ref_structure in enumerate(ref_structures)
        ]
        pair_stats.append(_pair_stats(ref_tokens, cand_tokens, structures, keywords)[0])
    return PairStats.total(pair_stats)


def _same_texts(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether two reference lists hold the same texts (the same objects, most often)."""
    return a is b or (len(a) == len(b) and all(x is y or x == y for x, y in zip(a, b)))


def score_codebleu(references: Sequence[str], candidate: str, language: str,
                   weights: Sequence[float] = DEFAULT_WEIGHTS, explain: bool = True) -> CodeBleuResult:
    """Native CodeBLEU of one candidate against one or more references (its score against the best
    one, with that reference's explanations); against an empty or blank reference it is 0."""
    with gc_paused():
        return _score_codebleu(references, candidate, language, weights, explain)


def _score_codebleu(references: Sequence[str], candidate: str, language: str,
                    weights: Sequence[float], explain: bool) -> CodeBleuResult:
    spec = languages.get(language)
    if not references:
        raise ValueError("at least one reference is needed")
    ref_tokens = [reference_tokens(r) for r in references]
    cand_tokens = analyse_tokens(candidate)
    cand_structure = analyse_structure(candidate, spec.name, "native")
    ref_structures = [reference_structure(r, spec.name, "native") for r in references]
    grammar = grammar_signature(spec)
    best: tuple[CodeBleuResult, int, list[list[int]]] | None = None
    for index, (tokens, structure) in enumerate(zip(ref_tokens, ref_structures)):
        # several references are several acceptable answers: the candidate's score is its score
        # against the one it is closest to (the package pools their statistics: compat rule)
        stats, flows = _pair_stats([tokens], cand_tokens, [(structure, cand_structure)], spec.keywords,
                                   unmatched=explain)
        if not references[index].strip():  # nothing to compare with: every component 0, not an
            stats = replace(stats, syntax_matched=0, syntax_total=0)  # empty tree matching an empty one
        result = combine(stats, weights, "native", spec.name, "ws", grammar)
        if best is None or result.score > best[0].score:
            best = (result, index, flows)
    assert best is not None
    result, index, flows = best
    if not explain:
        return result
    explanations = _explain([references[index]], [ref_tokens[index]], cand_tokens, [ref_structures[index]],
                            cand_structure, flows, first_index=index)
    return replace(result, explanations=tuple(explanations))


def _explain(references: Sequence[str], ref_tokens: Sequence[TokenAnalysis], cand_tokens: TokenAnalysis,
             ref_structures: Sequence[StructureAnalysis], cand_structure: StructureAnalysis,
             flows: Sequence[list[int]], first_index: int = 0) -> list[Explanation]:
    """What each reference has that the candidate lacks: n-grams, subtrees, dataflow edges
    (``first_index``: the first reference's index among the request's references)."""
    found: list[Explanation] = []
    for index, (text, tokens, structure, missing) in enumerate(zip(references, ref_tokens, ref_structures, flows),
                                                               start=first_index):
        notes = _reference_notes(structure, index)
        runs = notes.runs
        for run in missing_runs(tokens, cand_tokens):
            span = (run.start, run.end)
            note = runs.get(span)
            if note is None:
                if len(runs) >= _RUNS_MAX:
                    runs.clear()
                note = runs[span] = Explanation("ngram_match", _shorten(text[run.start:run.end]), index,
                                                run.start, run.end)
            found.append(note)
        offsets = notes.offsets
        for subtree in unmatched_subtrees(structure.subtrees, cand_structure.subtree_keys):
            start, end = offsets.from_byte(subtree.start_byte), offsets.from_byte(subtree.end_byte)
            found.append(Explanation("syntax_match", f"{subtree.type}: {_shorten(text[start:end])}", index, start, end))
        edges = notes.edges()
        found.extend([edges[position] for position in missing])
    return found


class _ReferenceNotes:
    """Explanations of one reference (analysis, index) that do not depend on the candidate: its
    offset map, one explanation per dataflow edge, and those of the n-gram runs seen so far."""

    __slots__ = ("structure", "index", "offsets", "runs", "_edges")

    def __init__(self, structure: StructureAnalysis, index: int) -> None:
        self.structure = structure  # kept alive: the cache is keyed by its id
        self.index = index
        self.offsets = OffsetMap(structure.text)
        self.runs: dict[tuple[int, int], Explanation] = {}
        self._edges: list[Explanation] | None = None

    def edges(self) -> list[Explanation]:
        if self._edges is None:
            offset = self.offsets.from_byte
            self._edges = [
                Explanation("dataflow_match", f"{name} {relation} {', '.join(parents) or '(definition)'}",
                            self.index, offset(start), offset(end))
                for name, _, relation, parents, _, start, end in self.structure.flow_edges
            ]
        return self._edges


_NOTES: dict[tuple[int, int], _ReferenceNotes] = {}
_NOTES_LOCK = threading.Lock()
_NOTES_MAX = 64
_RUNS_MAX = 4096


def _reference_notes(structure: StructureAnalysis, index: int) -> _ReferenceNotes:
    """The cached notes of a reference analysis (a few dozen kept, least recently used dropped)."""
    key = (id(structure), index)
    with _NOTES_LOCK:
        notes = _NOTES.pop(key, None)
        if notes is None or notes.structure is not structure:
            notes = _ReferenceNotes(structure, index)
        _NOTES[key] = notes
        while len(_NOTES) > _NOTES_MAX:
            del _NOTES[next(iter(_NOTES))]
    return notes


def _shorten(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def grammar_signature(spec: languages.LanguageSpec) -> str:
    """The grammar part of a CodeBLEU signature (``tree-sitter-python==0.23.6``)."""
    return f"{spec.grammar_module.replace('_', '-')}=={spec.grammar_version}"
