"""Cross-validation by whole problems: fold assignment and honest model selection.

A fold holds whole problems (a HumanEval task, in every language at once, or a CoNaLa intent),
never single completions, so nothing learnt about a problem leaks into its own held-out score:
HumanEval's languages are translations of one task (the same ``sample_idx``, intent and tests),
so a task held out in Python is held out in Java, JavaScript and C++ too. Problems are shuffled
per stratum (HumanEval, CoNaLa) with a fixed seed and dealt round-robin, so every fold holds
about the same share of every dataset.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from .correlation import agreement, grouped_kendall_tau
from .data import HUMANEVAL_LANGUAGES

ProblemKey = tuple[str, int]


def problem_folds(problems: Sequence[ProblemKey], k: int, seed: int) -> dict[ProblemKey, int]:
    """Fold index (0..k-1) of every problem, stratified by dataset (a HumanEval task: one fold in every language)."""
    if k < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    by_stratum: dict[str, set[int]] = {}
    for dataset, problem in dict.fromkeys(problems):
        by_stratum.setdefault(_stratum(dataset), set()).add(problem)
    fold_of: dict[tuple[str, int], int] = {}
    for stratum in sorted(by_stratum):
        ids = sorted(by_stratum[stratum])
        random.Random(f"{seed}:{stratum}").shuffle(ids)
        for index, problem in enumerate(ids):
            fold_of[(stratum, problem)] = index % k
    return {key: fold_of[(_stratum(key[0]), key[1])] for key in dict.fromkeys(problems)}


def _stratum(dataset: str) -> str:
    """The problems ``dataset`` shares: every HumanEval language numbers the same tasks."""
    return "humaneval" if dataset in HUMANEVAL_LANGUAGES else dataset


@dataclass
class Table:
    """Scores of one dataset: targets, problem ids and metric columns (NaN = not applicable)."""

    dataset: str
    target: np.ndarray
    problem: np.ndarray
    columns: dict[str, np.ndarray]

    def subset(self, mask: np.ndarray) -> "Table":
        """Rows where ``mask`` is true."""
        return Table(self.dataset, self.target[mask], self.problem[mask],
                     {k: v[mask] for k, v in self.columns.items()})

    def fold_of(self, folds: Mapping[ProblemKey, int]) -> np.ndarray:
        """Fold index of each row."""
        return np.array([folds[(self.dataset, int(p))] for p in self.problem], dtype=int)


def mean_tau(tables: Sequence[Table], column: Callable[[Table], np.ndarray]) -> float:
    """Mean over datasets of the grouped tau of ``column(table)`` (datasets without pairs skipped)."""
    taus = []
    for table in tables:
        result = grouped_kendall_tau(table.target, np.nan_to_num(column(table)), table.problem)
        if result.tau is not None:
            taus.append(result.tau)
    return float(np.mean(taus)) if taus else float("nan")


def split(tables: Sequence[Table], folds: Mapping[ProblemKey, int], fold: int,
          ) -> tuple[list[Table], list[Table]]:
    """(training tables, held-out tables) for one fold."""
    train, test = [], []
    for table in tables:
        f = table.fold_of(folds)
        train.append(table.subset(f != fold))
        test.append(table.subset(f == fold))
    return train, test


def select_column(tables: Sequence[Table], candidates: Sequence[str],
                  folds: Mapping[ProblemKey, int], k: int) -> dict[str, object]:
    """For each fold pick the candidate column with the best mean tau on the training problems;
    score the pick on the held-out problems (out-of-fold predictions pooled per dataset)."""
    picks: list[str] = []
    held: dict[str, np.ndarray] = {t.dataset: np.full(len(t.target), np.nan) for t in tables}
    for fold in range(k):
        train, _ = split(tables, folds, fold)
        best = max(candidates, key=lambda c: (mean_tau(train, lambda t: t.columns[c]), c))
        picks.append(best)
        for table in tables:
            mask = table.fold_of(folds) == fold
            held[table.dataset][mask] = table.columns[best][mask]
    overall = max(candidates, key=lambda c: (mean_tau(tables, lambda t: t.columns[c]), c))
    return {"picks": picks, "chosen_on_all": overall,
            "held_out": held_out_agreement(tables, held)}


def held_out_agreement(tables: Sequence[Table], held: Mapping[str, np.ndarray]) -> dict[str, dict]:
    """Agreement of out-of-fold scores per dataset, plus the HumanEval mean."""
    out: dict[str, dict] = {}
    for table in tables:
        out[table.dataset] = agreement(table.target, np.nan_to_num(held[table.dataset]),
                                       table.problem).as_dict()
    return out
