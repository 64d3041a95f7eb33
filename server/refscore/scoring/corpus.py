"""Corpus CodeBLEU exactly as the ``codebleu`` package computes it, in one or several processes."""

from __future__ import annotations

from typing import Sequence

from .. import languages
from ..metrics.codebleu import DEFAULT_WEIGHTS, CodeBleuResult, combine
from .codebleu import Tokenizer, corpus_stats, grammar_signature


def corpus_codebleu_compat(references: Sequence[Sequence[str]], predictions: Sequence[str], language: str,
                           weights: Sequence[float] = DEFAULT_WEIGHTS, tokenizer: Tokenizer | None = None,
                           workers: int = 1, keywords: frozenset[str] | None = None) -> CodeBleuResult:
    """Corpus CodeBLEU exactly as ``codebleu`` 0.7.0 computes it (deterministic dataflow order).

    ``workers`` > 1 splits a large corpus over that many processes (``parallel``); the
    statistics are sums, so the result is the same up to floating-point rounding. ``keywords``:
    the weighted n-gram match's keyword list (default: the language's).
    """
    spec = languages.get(language)
    if workers != 1:
        from .parallel import corpus_stats_parallel  # multiprocessing only when asked

        total = corpus_stats_parallel(references, predictions, spec.name, tokenizer, workers, keywords)
    else:
        total = corpus_stats(references, predictions, spec.name, tokenizer, keywords)
    if total is None:
        raise ValueError("no predictions to score")
    return combine(total, weights, "compat", spec.name, "custom" if tokenizer else "ws", grammar_signature(spec))
