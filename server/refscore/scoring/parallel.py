"""Corpus CodeBLEU over several processes: the pairs split into contiguous chunks, each chunk's
statistics summed in a worker, the sums added in chunk order.

Workers are forked where that is safe (Linux, no other threads running in this process), else
spawned. A tokenizer that cannot be pickled (a lambda) cannot reach a worker: the corpus is then
scored in this process. Small corpora are too (starting processes would cost more than it saves).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Sequence

from ..metrics.codebleu import PairStats
from .codebleu import Tokenizer, corpus_stats

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
