"""Metric runners: every metric's score for every item, through RefScore's own APIs.

Metric names (columns of the score table):

* ``bleu`` (CodeBLEU's n-gram component), ``weighted_ngram_match``, ``syntax_match``,
  ``dataflow_match`` (the package's components, via ``refscore.compat.calc_codebleu``),
  ``ngram_match_native``, ``weighted_ngram_match_native``, ``syntax_match_native``,
  ``dataflow_match_native`` (``score_codebleu``, what ``score`` serves; NaN when the dataflow
  does not apply, counted as 0 in the correlations, as the package's component does), ``codebleu_compat`` and
  ``codebleu_native`` (the two final-score rules);
* ``len_ratio``, ``ref_len`` (length features for the combined RefScore number, see ``length_features``);
* ``chrf``, ``chrfpp`` (sacrebleu chrF and chrF++, 0..1, on the paper-normalised text by default);
* ``tsed``, ``tsed_exact``, ``cand_errors``, ``ref_errors``, ``crystalbleu`` (``eval.signals``);
* ``cbs_<p|r|f1|f3>_L<layer>`` and ``..._ctx`` (CodeBERTScore with the embedded MiniLM at that
  layer, without / with the natural-language intent as context).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from .. import languages
from ..combined.inputs import TOKEN_STATS, bert_token_stats, length_inputs
from .data import Item, paper_normalise

CODEBLEU_METRICS = ("bleu", "weighted_ngram_match", "syntax_match", "dataflow_match",
                    "ngram_match_native", "weighted_ngram_match_native",
                    "syntax_match_native", "dataflow_match_native", "codebleu_compat",
                    "codebleu_native")
BERT_PARTS = ("p", "r", "f1", "f3")
#: Token-alignment statistics per CodeBERTScore variant (``combined.inputs.token_stats``): the
#: lowest and the lower-quartile token similarity of the candidate side (``p``: what the
#: reference lacks a match for) and of the reference side (``r``: what the candidate is missing).
BERT_STATS = tuple(TOKEN_STATS)
_RESULT_FIELD = {"p": "precision", "r": "recall", "f1": "f1", "f3": "f3"}
Scores = dict[str, list[float]]
Progress = Callable[[str], None]


@dataclass(frozen=True)
class BertColumns:
    """One hidden layer of the encoder the research tables sweep, and how its score-table columns
    are named (``cbs_<part>_L<layer>``, ``..._ctx`` with the intent as context). The layer travels
    through the tables, the fits and the reports as this value, read as ``.layer``."""

    layer: int

    def name(self, part: str, context: bool = False) -> str:
        """Column name of one CodeBERTScore variant (``f1``, ``pq25``...) at this layer."""
        return f"cbs_{part}_L{self.layer}" + ("_ctx" if context else "")

    @classmethod
    def sweep(cls, layers: Iterable[int]) -> list["BertColumns"]:
        """One value per swept layer, in the sweep's order."""
        return [cls(hidden) for hidden in layers]


def _package_language(language: str) -> str:
    """The registry's canonical name for a dataset's language (``js`` -> ``javascript``)."""
    return languages.get(language).name


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _maybe_normalise(texts: Sequence[str], normalise: bool) -> list[str]:
    return [paper_normalise(t) for t in texts] if normalise else list(texts)


def codebleu_scores(items: Sequence[Item], normalise: bool = False,
                    prepare: Callable[[str], str] | None = None) -> tuple[Scores, int]:
    """CodeBLEU components and both final-score rules; returns (scores, failures).

    ``normalise`` applies the paper's CodeBERTScore normaliser; ``prepare``, when given, is applied
    to every text instead (for example the paper's files' newline-to-space text)."""
    if prepare is not None:
        items = [replace(i, candidate=prepare(i.candidate), references=tuple(prepare(r) for r in i.references))
                 for i in items]
        normalise = False
    from ..compat import calc_codebleu
    from ..scoring.codebleu import score_codebleu

    out: Scores = {name: [] for name in CODEBLEU_METRICS}
    failures = 0
    for item in items:
        refs = _maybe_normalise(item.references, normalise)
        cand = paper_normalise(item.candidate) if normalise else item.candidate
        try:
            package = calc_codebleu([refs], [cand], _package_language(item.language))
            native = score_codebleu(refs, cand, item.language, explain=False)
        except Exception:  # noqa: BLE001 - one bad item must not end a long run; it is counted
            failures += 1
            for name in CODEBLEU_METRICS:
                out[name].append(0.0)
            continue
        comp = {c.name: c.score for c in native.components}
        out["bleu"].append(package["ngram_match_score"])
        out["weighted_ngram_match"].append(package["weighted_ngram_match_score"])
        out["syntax_match"].append(package["syntax_match_score"])
        out["dataflow_match"].append(package["dataflow_match_score"])
        out["ngram_match_native"].append(comp["ngram_match"] or 0.0)
        out["weighted_ngram_match_native"].append(comp["weighted_ngram_match"] or 0.0)
        out["syntax_match_native"].append(comp["syntax_match"] or 0.0)
        flow = comp["dataflow_match"]
        out["dataflow_match_native"].append(float("nan") if flow is None else flow)
        out["codebleu_compat"].append(package["codebleu"])
        out["codebleu_native"].append(native.score)
    return out, failures


def chrf_scores(items: Sequence[Item], normalise: bool = True) -> Scores:
    """sentence chrF and chrF++ (``refscore.metrics.chrf``: sacrebleu, char order 6, beta 2;
    word order 0 and 2), 0..1."""
    from ..metrics.chrf import CHRF_PLUS_WORD_ORDER, score_chrf

    return {"chrf": [score_chrf(item.candidate, item.references, normalise).score for item in items],
            "chrfpp": [score_chrf(item.candidate, item.references, normalise, CHRF_PLUS_WORD_ORDER).score
                       for item in items]}


def length_features(items: Sequence[Item]) -> Scores:
    """``len_ratio`` and ``ref_len`` per item (``combined.length_inputs``)."""
    rows = [length_inputs(item.candidate, item.references) for item in items]
    return {"len_ratio": [r["len_ratio"] for r in rows], "ref_len": [r["ref_len"] for r in rows]}


def _chunks(items: Sequence[Item], size: int) -> Iterable[list[int]]:
    """Indices of whole problems, grouped until a chunk holds at least ``size`` items."""
    chunk: list[int] = []
    last = None
    for index, item in enumerate(items):
        if chunk and item.problem != last and len(chunk) >= size:
            yield chunk
            chunk = []
        chunk.append(index)
        last = item.problem
    if chunk:
        yield chunk


def bert_scores(items: Sequence[Item], layers: Sequence[int], contexts: Sequence[bool],
                normalise: bool = False, chunk: int = 256, progress: Progress | None = _stderr,
                encoder: object | None = None) -> Scores:
    """CodeBERTScore P/R/F1/F3 per layer and context setting, one forward pass for all layers
    (the one path's layer list, ``embed.layer_stack.LayerStack``; ``encoder``: a stack to reuse)."""
    from ..embed.bertscorer import ScorePair
    from ..embed.layer_stack import LayerStack

    multi = encoder if isinstance(encoder, LayerStack) else LayerStack(layers)
    sweep = BertColumns.sweep(layers)
    out: Scores = {bert.name(p, c): [] for c in contexts for bert in sweep
                   for p in (*BERT_PARTS, *BERT_STATS)}
    order = sorted(range(len(items)), key=lambda i: items[i].problem)
    ordered = [items[i] for i in order]
    values: dict[str, dict[int, float]] = {name: {} for name in out}
    start, done = time.monotonic(), 0
    for block in _chunks(ordered, chunk):
        for context in contexts:
            pairs = [ScorePair(
                paper_normalise(ordered[i].candidate) if normalise else ordered[i].candidate,
                _maybe_normalise(ordered[i].references, normalise), ordered[i].language,
                ordered[i].context if context else None) for i in block]
            by_layer = multi.score_layers(pairs, layers)
            for bert in sweep:
                for i, res in zip(block, by_layer[bert.layer]):
                    for part in BERT_PARTS:
                        values[bert.name(part, context)][order[i]] = getattr(res, _RESULT_FIELD[part])
                    for stat, value in bert_token_stats(res).items():
                        values[bert.name(stat, context)][order[i]] = value
        multi.clear()
        done += len(block)
        if progress:
            progress(f"  cbs {done}/{len(items)} items ({time.monotonic() - start:.0f}s)")
    for name in out:
        out[name] = [values[name][i] for i in range(len(items))]
    return out
