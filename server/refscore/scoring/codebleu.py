"""CodeBLEU over texts: analyse (cached), gather pair statistics, combine.

``score_codebleu`` is the native API (one candidate, one or more references, explanations with
source ranges); ``corpus_codebleu_compat`` reproduces ``codebleu.calc_codebleu``.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .. import languages
from ..analysis.comments import strip_compat, strip_compat_times
from ..analysis.document import (StructureAnalysis, TokenAnalysis, analyse_structure, analyse_tokens,
                                 analyse_tokens_with, comparable_keys, gc_paused)
from ..analysis.text import OffsetMap
from ..metrics.codebleu import DEFAULT_WEIGHTS, CodeBleuResult, Explanation, PairStats, combine
from ..metrics.dataflow import DataflowMatch, count_matched, match_normalized
from ..metrics.ngram import bleu_stats, missing_runs
from ..metrics.syntax import match_syntax, unmatched_subtrees
from ..metrics.weighted_ngram import weighted_stats

Tokenizer = Callable[[str], Sequence[str]]


def _pair_stats(ref_tokens: Sequence[TokenAnalysis], cand_tokens: TokenAnalysis,
                structures: Sequence[tuple[StructureAnalysis, StructureAnalysis]],
                keywords: frozenset[str], unmatched: bool = False) -> tuple[PairStats, list[DataflowMatch]]:
    """Statistics of one candidate against its references, and (``unmatched``) the per-reference
    dataflow matches with their unmatched edges."""
    syntax_matched = syntax_total = flow_matched = flow_total = 0
    flows = []
    for ref_structure, cand_structure in structures:
        syntax = match_syntax(*comparable_keys(ref_structure, cand_structure))
        syntax_matched += syntax.matched
        syntax_total += syntax.total
        ref_norm = ref_structure.normalized_dataflow
        if unmatched:
            flow = match_normalized(ref_structure.flow_edges, ref_norm, cand_structure.normalized_dataflow)
            flows.append(flow)
            flow_matched += flow.matched
        else:
            flow_matched += count_matched(ref_norm, cand_structure.normalized_dataflow)
        flow_total += len(ref_norm)
    stats = PairStats(
        bleu_stats(ref_tokens, cand_tokens),
        weighted_stats(ref_tokens, cand_tokens, keywords),
        syntax_matched, syntax_total, flow_matched, flow_total,
    )
    return stats, flows


def corpus_codebleu_compat(references: Sequence[Sequence[str]], predictions: Sequence[str], language: str,
                           weights: Sequence[float] = DEFAULT_WEIGHTS, tokenizer: Tokenizer | None = None) -> CodeBleuResult:
    """Corpus CodeBLEU exactly as ``codebleu`` 0.7.0 computes it (deterministic dataflow order)."""
    with gc_paused():
        return _corpus_codebleu_compat(references, predictions, language, weights, tokenizer)


def _corpus_codebleu_compat(references: Sequence[Sequence[str]], predictions: Sequence[str], language: str,
                            weights: Sequence[float], tokenizer: Tokenizer | None) -> CodeBleuResult:
    spec = languages.get(language)
    total: PairStats | None = None
    for refs, prediction in zip(references, predictions):
        refs = [r.strip() for r in refs]
        prediction = prediction.strip()
        ref_tokens = [analyse_tokens_with(r, tokenizer) for r in refs]
        cand_tokens = analyse_tokens_with(prediction, tokenizer)
        structures = [
            (analyse_structure(strip_compat(ref, spec.name), spec.name, "compat"),
             analyse_structure(strip_compat_times(prediction, spec.name, index + 1), spec.name, "compat"))
            for index, ref in enumerate(refs)
        ]
        stats, _ = _pair_stats(ref_tokens, cand_tokens, structures, spec.keywords)
        total = stats if total is None else total + stats
    if total is None:
        raise ValueError("no predictions to score")
    return combine(total, weights, "compat", spec.name, "custom" if tokenizer else "ws", _grammar(spec))


def score_codebleu(references: Sequence[str], candidate: str, language: str,
                   weights: Sequence[float] = DEFAULT_WEIGHTS, explain: bool = True) -> CodeBleuResult:
    """Native CodeBLEU of one candidate against one or more references, with explanations."""
    with gc_paused():
        return _score_codebleu(references, candidate, language, weights, explain)


def _score_codebleu(references: Sequence[str], candidate: str, language: str,
                    weights: Sequence[float], explain: bool) -> CodeBleuResult:
    spec = languages.get(language)
    if not references:
        raise ValueError("at least one reference is needed")
    ref_tokens = [analyse_tokens(r) for r in references]
    cand_tokens = analyse_tokens(candidate)
    cand_structure = analyse_structure(candidate, spec.name, "native")
    ref_structures = [analyse_structure(r, spec.name, "native") for r in references]
    stats, flows = _pair_stats(ref_tokens, cand_tokens, [(r, cand_structure) for r in ref_structures],
                               spec.keywords, unmatched=explain)
    explanations = _explain(references, ref_tokens, cand_tokens, ref_structures, cand_structure, flows) if explain else ()
    return combine(stats, weights, "native", spec.name, "ws", _grammar(spec), explanations)


def _explain(references: Sequence[str], ref_tokens: Sequence[TokenAnalysis], cand_tokens: TokenAnalysis,
             ref_structures: Sequence[StructureAnalysis], cand_structure: StructureAnalysis,
             flows: Sequence[DataflowMatch]) -> list[Explanation]:
    """What each reference has that the candidate lacks: n-grams, subtrees, dataflow edges."""
    found: list[Explanation] = []
    for index, (text, tokens, structure, flow) in enumerate(zip(references, ref_tokens, ref_structures, flows)):
        for run in missing_runs(tokens, cand_tokens):
            found.append(Explanation("ngram_match", _shorten(text[run.start:run.end]), index, run.start, run.end))
        offsets = OffsetMap(text)
        for subtree in unmatched_subtrees(structure.subtrees, cand_structure.subtree_keys):
            start, end = offsets.from_byte(subtree.start_byte), offsets.from_byte(subtree.end_byte)
            found.append(Explanation("syntax_match", f"{subtree.type}: {_shorten(text[start:end])}", index, start, end))
        for edge in flow.unmatched:
            start, end = offsets.from_point(*edge.start), offsets.from_point(*edge.end)
            parents = ", ".join(edge.parent_names) or "(definition)"
            found.append(Explanation("dataflow_match", f"{edge.name} {edge.relation} {parents}", index, start, end))
    return found


def _shorten(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _grammar(spec: languages.LanguageSpec) -> str:
    return f"{spec.grammar_module.replace('_', '-')}=={spec.grammar_version}"
