"""Paired bootstrap over problems: how sure is a held-out difference between two scores?

Each replicate resamples every dataset's problems with replacement (the same problems for both
scores) and recomputes the grouped Kendall tau (from per-problem pair counts) and the pooled
Spearman. HumanEval's languages number the same tasks, so a replicate draws HumanEval tasks once
for all its languages (a task drawn twice is drawn twice in each): the mean over languages is one
statistic of one task sample. The interval is the 2.5th to 97.5th percentile of the replicated
differences.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .correlation import TIE_THRESHOLD, _group_counts
from .cv import Table
from .data import CONALA, HUMANEVAL_LANGUAGES

REPLICATES = 500


def _groups(problem: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(problem, kind="stable")
    cuts = np.flatnonzero(np.diff(problem[order])) + 1
    return np.split(order, cuts)


def _picks(tables: Sequence[Table], replicates: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each table's resampled group indices, shape (replicates, problems drawn). HumanEval tables
    share one draw of task ids; a task a language lacks points at its empty last group."""
    picks: dict[str, np.ndarray] = {}
    humaneval = [t for t in tables if t.dataset in HUMANEVAL_LANGUAGES]
    tasks = np.unique(np.concatenate([t.problem for t in humaneval])) if humaneval else np.array([], int)
    drawn = tasks[rng.integers(0, len(tasks), size=(replicates, len(tasks)))] if len(tasks) else None
    for table in tables:
        ids = np.unique(table.problem)  # _groups' order
        if table.dataset in HUMANEVAL_LANGUAGES and drawn is not None:
            at = np.searchsorted(ids, drawn).clip(0, len(ids) - 1)
            picks[table.dataset] = np.where(ids[at] == drawn, at, len(ids))
        else:
            picks[table.dataset] = rng.integers(0, len(ids), size=(replicates, len(ids)))
    return picks


def _counts(target: np.ndarray, score: np.ndarray, groups: Sequence[np.ndarray]) -> np.ndarray:
    return np.array([_group_counts(target[g], score[g], TIE_THRESHOLD) if len(g) > 1 else (0, 0, 0)
                     for g in groups], dtype=float)


def _avg_ranks(x: np.ndarray) -> np.ndarray:
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return ((ends - counts + 1 + ends) / 2.0)[inverse]


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = _avg_ranks(a), _avg_ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    denom = np.sqrt((ra @ ra) * (rb @ rb))
    return float(ra @ rb / denom) if denom > 0 else 0.0


def _tau(counts: np.ndarray) -> np.ndarray:
    """Tau per replicate from summed (C, D, T) rows, shape (replicates, 3)."""
    total = counts.sum(axis=1)
    return np.where(total > 0, (counts[:, 0] - counts[:, 1]) / np.maximum(total, 1), 0.0)


def paired_differences(tables: Sequence[Table], first: Mapping[str, np.ndarray],
                       second: Mapping[str, np.ndarray], replicates: int = REPLICATES,
                       seed: int = 0) -> dict[str, list[float]]:
    """[estimate, low, high] of (first - second) for HumanEval mean tau, HumanEval mean pooled
    Spearman and CoNaLa tau (keys present for the datasets given)."""
    rng = np.random.default_rng(seed)
    picks = _picks(tables, replicates, rng)
    he_tau, he_sp, conala = [], [], None
    for table in tables:
        groups = _groups(table.problem) + [np.array([], dtype=int)]  # the last: a task not here
        pick = picks[table.dataset]
        a, b = np.nan_to_num(first[table.dataset]), np.nan_to_num(second[table.dataset])
        ca, cb = _counts(table.target, a, groups), _counts(table.target, b, groups)
        full = _tau(ca.sum(axis=0)[None])[0] - _tau(cb.sum(axis=0)[None])[0]
        taus = _tau(ca[pick].sum(axis=1)) - _tau(cb[pick].sum(axis=1))
        if table.dataset == CONALA:
            conala = (full, taus)
        elif table.dataset in HUMANEVAL_LANGUAGES:
            he_tau.append((full, taus))
            sp = np.empty(replicates)
            for r in range(replicates):
                rows = np.concatenate([groups[i] for i in pick[r]])
                sp[r] = _spearman(a[rows], table.target[rows]) - _spearman(b[rows], table.target[rows])
            he_sp.append((_spearman(a, table.target) - _spearman(b, table.target), sp))
    out: dict[str, list[float]] = {}
    for name, parts in (("humaneval_tau", he_tau), ("humaneval_spearman", he_sp)):
        if parts:
            est = float(np.mean([p[0] for p in parts]))
            reps = np.mean([p[1] for p in parts], axis=0)
            out[name] = [est, float(np.percentile(reps, 2.5)), float(np.percentile(reps, 97.5))]
    if conala is not None:
        out["conala_tau"] = [float(conala[0]), float(np.percentile(conala[1], 2.5)),
                             float(np.percentile(conala[1], 97.5))]
    return out


def metric_intervals(tables: Sequence[Table], metrics: Sequence[str], replicates: int = REPLICATES,
                     seed: int = 0) -> dict[str, dict[str, list[float]]]:
    """95% intervals of each metric's own agreement: HumanEval mean tau (tasks drawn once for all
    languages, as ``paired_differences``) and CoNaLa tau; a metric missing from a HumanEval
    language gets no HumanEval interval."""
    rng = np.random.default_rng(seed)
    picks = _picks(tables, replicates, rng)
    groups = {table.dataset: _groups(table.problem) + [np.array([], dtype=int)] for table in tables}
    humaneval = [t for t in tables if t.dataset in HUMANEVAL_LANGUAGES]
    out: dict[str, dict[str, list[float]]] = {}
    for metric in metrics:
        entry: dict[str, list[float]] = {}
        he = [_tau(_counts(t.target, np.nan_to_num(t.columns[metric]), groups[t.dataset])[picks[t.dataset]].sum(axis=1))
              for t in humaneval if metric in t.columns]
        if he and len(he) == len(humaneval):
            reps = np.mean(he, axis=0)
            entry["humaneval_tau"] = [float(np.percentile(reps, 2.5)), float(np.percentile(reps, 97.5))]
        for table in tables:
            if table.dataset == CONALA and metric in table.columns:
                reps = _tau(_counts(table.target, np.nan_to_num(table.columns[metric]),
                                    groups[CONALA])[picks[CONALA]].sum(axis=1))
                entry["conala_tau"] = [float(np.percentile(reps, 2.5)), float(np.percentile(reps, 97.5))]
        if entry:
            out[metric] = entry
    return out
