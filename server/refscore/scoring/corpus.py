"""Corpus CodeBLEU exactly as the ``codebleu`` package computes it, in one or several processes.

Over several processes (``corpus_stats_parallel``): the pairs split into contiguous chunks, each
chunk's statistics summed in a worker, the sums added in chunk order. Workers are forked where
that is safe (Linux, no other threads running in this process), else spawned. A tokenizer that
cannot be pickled (a lambda) cannot reach a worker: the corpus is then scored in this process.
Small corpora are too (starting processes would cost more than it saves).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Sequence

from .. import languages
from ..metrics.codebleu import DEFAULT_WEIGHTS, CodeBleuResult, PairStats, combine
from .codebleu import Tokenizer, corpus_stats, grammar_signature


def corpus_codebleu_compat(references: Sequence[Sequence[str]], predictions: Sequence[str], language: str,
                           weights: Sequence[float] = DEFAULT_WEIGHTS, tokenizer: Tokenizer | None = None,
                           workers: int = 1, keywords: frozenset[str] | None = None) -> CodeBleuResult:
    """Corpus CodeBLEU exactly as ``codebleu`` 0.7.0 computes it (deterministic dataflow order).

    ``workers`` > 1 splits a large corpus over that many processes (``corpus_stats_parallel``); the
    statistics are sums, so the result is the same up to floating-point rounding. ``keywords``:
    the weighted n-gram match's keyword list (default: the language's).
    """
    spec = languages.get(language)
    if workers != 1:
        total = corpus_stats_parallel(references, predictions, spec.name, tokenizer, workers, keywords)
    else:
        total = corpus_stats(references, predictions, spec.name, tokenizer, keywords)
    if total is None:
        raise ValueError("no predictions to score")
    return combine(total, weights, "compat", spec.name, "custom" if tokenizer else "ws", grammar_signature(spec))


#: Below this many pairs per worker, one process is faster.
MIN_PAIRS_PER_WORKER = 100


def corpus_stats_parallel(references: Sequence[Sequence[str]], predictions: Sequence[str], language: str,
                          tokenizer: Tokenizer | None, workers: int,
                          keywords: frozenset[str] | None = None) -> PairStats | None:
    """``corpus_stats`` with up to ``workers`` processes (0 or less: a ValueError)."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    pairs = list(zip(references, predictions))
    workers = min(workers, len(pairs) // MIN_PAIRS_PER_WORKER, os.cpu_count() or 1)
    if workers <= 1 or not _picklable(tokenizer):
        return corpus_stats(references, predictions, language, tokenizer, keywords)
    size = -(-len(pairs) // (workers * 4))  # a few chunks per worker even out their lengths
    chunks = [pairs[i:i + size] for i in range(0, len(pairs), size)]
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        sums = list(pool.map(_chunk_stats, [(chunk, language, tokenizer, keywords) for chunk in chunks]))
    return PairStats.total([part for part in sums if part is not None])


def _chunk_stats(job: tuple[list[tuple[Any, str]], str, Tokenizer | None, frozenset[str] | None]) -> PairStats | None:
    chunk, language, tokenizer, keywords = job
    return corpus_stats([refs for refs, _ in chunk], [prediction for _, prediction in chunk], language, tokenizer,
                        keywords)


def _picklable(value: Any) -> bool:
    try:
        pickle.dumps(value)
    except Exception:  # noqa: BLE001 - lambdas, closures, open handles...
        return False
    return True


def _context() -> multiprocessing.context.BaseContext:
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")
