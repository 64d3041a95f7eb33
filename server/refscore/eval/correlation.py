"""Agreement statistics: the paper's grouped Kendall tau, pooled Spearman and Pearson.

Kendall tau (CodeBERTScore paper, after Stanchev et al.'s "variant B"): inside each problem take
every pair of items whose human values differ (pairs the humans tie are skipped); the pair is
concordant when the metric orders it as the humans do, discordant when it orders it the other
way, and a tie when the metric scores differ by less than ``tie`` (the paper's code uses 0.001
for both sides). Counts are summed over all problems: ``tau = (C - D) / (C + D + T)``.
Counting unordered pairs gives the same value as the paper's ordered pairs (each counted twice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

#: Differences below this count as ties (the paper's ``kendalls_tau_darr`` threshold).
TIE_THRESHOLD = 1e-3


@dataclass(frozen=True)
class TauResult:
    """Pooled Kendall tau and its pair counts."""

    tau: float | None  # None when no pair has differing human values
    concordant: int
    discordant: int
    ties: int

    @property
    def pairs(self) -> int:
        """Pairs that count (humans not tied)."""
        return self.concordant + self.discordant + self.ties


def _group_counts(human: np.ndarray, metric: np.ndarray, tie: float) -> tuple[int, int, int]:
    dh = human[:, None] - human[None, :]
    dm = metric[:, None] - metric[None, :]
    upper = np.triu(np.ones(dh.shape, dtype=bool), k=1)
    counted = upper & (np.abs(dh) >= tie)
    metric_tie = np.abs(dm) < tie
    agree = np.sign(dh) == np.sign(dm)
    ties = int(np.count_nonzero(counted & metric_tie))
    conc = int(np.count_nonzero(counted & ~metric_tie & agree))
    disc = int(np.count_nonzero(counted & ~metric_tie & ~agree))
    return conc, disc, ties


def grouped_kendall_tau(human: Sequence[float], metric: Sequence[float], groups: Sequence[object],
                        tie: float = TIE_THRESHOLD) -> TauResult:
    """The paper's tau: pairs within each group only, counts pooled over groups."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    g = np.asarray(groups, dtype=object)
    if not len(h) == len(m) == len(g):
        raise ValueError("human, metric and groups must have the same length")
    conc = disc = ties = 0
    order: dict[object, list[int]] = {}
    for index, group in enumerate(g.tolist()):
        order.setdefault(group, []).append(index)
    for indices in order.values():
        if len(indices) < 2:
            continue
        idx = np.asarray(indices)
        c, d, t = _group_counts(h[idx], m[idx], tie)
        conc, disc, ties = conc + c, disc + d, ties + t
    total = conc + disc + ties
    return TauResult((conc - disc) / total if total else None, conc, disc, ties)


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank."""
    x = np.asarray(values, dtype=float)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=float)
    sorted_x = x[order]
    start = 0
    while start < len(x):
        end = start
        while end + 1 < len(x) and sorted_x[end + 1] == sorted_x[start]:
            end += 1
        ranks[order[start:end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return ranks


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r over all items (None when either side is constant or empty)."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if len(a) != len(b):
        raise ValueError("x and y must have the same length")
    if len(a) < 2:
        return None
    a = a - a.mean()
    b = b - b.mean()
    denom = math.sqrt(float(a @ a) * float(b @ b))
    return float(a @ b) / denom if denom > 0 else None


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho over all items: Pearson of average ranks."""
    return pearson(average_ranks(x), average_ranks(y))


@dataclass(frozen=True)
class Agreement:
    """All three statistics for one metric on one dataset."""

    tau: float | None
    spearman: float | None
    pearson: float | None
    pairs: int
    items: int

    def as_dict(self) -> dict[str, float | int | None]:
        """JSON form."""
        return {"tau": self.tau, "spearman": self.spearman, "pearson": self.pearson,
                "pairs": self.pairs, "items": self.items}


def agreement(human: Sequence[float], metric: Sequence[float], groups: Sequence[object],
              tie: float = TIE_THRESHOLD) -> Agreement:
    """Grouped tau plus pooled Spearman and Pearson."""
    tau = grouped_kendall_tau(human, metric, groups, tie)
    return Agreement(tau.tau, spearman(metric, human), pearson(metric, human), tau.pairs, len(human))
