"""The combined RefScore number's fit: a pairwise ranking ridge over inputs picked by forward selection,
then a calibration across problems.

Ranking (what Kendall tau rewards): inside each problem, every pair of items whose targets
differ gives a difference of standardised inputs ``d`` (better minus worse); the weights ``w``
minimise ``sum (1 - w.d)^2 + lam |w|^2`` with each dataset's pairs weighing the same in total.
The sums ``sum d d^T`` and ``sum d`` are kept per problem (for pass/fail targets in closed form
from per-class sums, without listing the pairs), so a fit on any set of problems and inputs is
one small linear solve. Calibration (what pooled Spearman and a pass mark need): a logistic
regression of the target on the ranking score and the problem-level inputs (``ref_len``); its
weight on the ranking score is kept positive, so it never reorders a problem's candidates.

Inputs are chosen by forward selection on an inner cross-validation by problem (criterion: mean
over the datasets of tau and pooled Spearman, averaged), then the ridge strength on the same
inner folds. Only training problems are ever seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..combined.inputs import CALIBRATION
from .correlation import TIE_THRESHOLD, grouped_kendall_tau, spearman
from .cv import Table, problem_folds
from .data import CONALA
from .features import available, matrix
from .metrics import BertColumns

LAMBDAS = (0.001, 0.01, 0.1, 1.0, 10.0)
SELECTION_LAMBDA = 0.01
MAX_INPUTS = 8
MIN_GAIN = 0.001
INNER_FOLDS = 4
#: Inner-CV selection criterion (``agreement_criterion``).
CRITERION = "datasets"
CALIBRATION_L2 = 1e-3


@dataclass
class Rows:
    """All items of the tables in one array set (rows keep table order)."""

    x: np.ndarray  # (n, pool) raw inputs
    calib: np.ndarray  # (n, len(CALIBRATION)) problem-level inputs
    target: np.ndarray  # fitted target: HumanEval 0/1, CoNaLa grade / 4
    raw_target: np.ndarray
    dataset: np.ndarray  # index into ``names``
    problem: np.ndarray  # problem id (within its dataset)
    names: list[str]
    pool: list[str]
    calib_names: tuple[str, ...] = CALIBRATION  # the calibration inputs every table has

    def keys(self) -> list[tuple[str, int]]:
        """(dataset, problem) of every row."""
        return [(self.names[d], int(p)) for d, p in zip(self.dataset, self.problem)]


@dataclass
class PairStats:
    """Pairwise sufficient statistics per problem over the whole pool (raw inputs)."""

    gram: np.ndarray  # (problems, pool, pool): sum d d^T
    vec: np.ndarray  # (problems, pool): sum d
    pairs: np.ndarray  # (problems,)
    dataset: np.ndarray  # (problems,)
    keys: list[tuple[str, int]]

    def subset(self, keep: np.ndarray) -> "PairStats":
        """The problems where ``keep`` is true."""
        return PairStats(self.gram[keep], self.vec[keep], self.pairs[keep], self.dataset[keep],
                         [k for k, flag in zip(self.keys, keep) if flag])


def build_rows(tables: Sequence[Table], pool: Sequence[str], bert: BertColumns) -> Rows:
    """Stack the tables; ``pool`` is cut to the inputs every table has (CodeBERTScore inputs read
    ``bert``'s columns)."""
    usable = list(pool)
    for table in tables:
        usable = available(table, usable, bert)
    calib = tuple(c for c in CALIBRATION if all(available(t, [c], bert) for t in tables))
    xs, cs, ys, raw, ds, ps = [], [], [], [], [], []
    for index, table in enumerate(tables):
        xs.append(matrix(table, usable, bert))
        cs.append(matrix(table, list(calib), bert))
        ys.append(table.target / 4.0 if table.dataset == CONALA else table.target)
        raw.append(table.target)
        ds.append(np.full(len(table.target), index))
        ps.append(table.problem)
    return Rows(np.vstack(xs), np.vstack(cs), np.concatenate(ys), np.concatenate(raw),
                np.concatenate(ds), np.concatenate(ps), [t.dataset for t in tables], usable, calib)


def problem_stats(rows: Rows) -> PairStats:
    """Per-problem pair statistics (closed form for 0/1 targets, listed pairs otherwise)."""
    grams, vecs, pairs_of, datasets, keys = [], [], [], [], []
    order = np.lexsort((rows.problem, rows.dataset))
    ids = np.column_stack([rows.dataset[order], rows.problem[order]])
    cuts = np.flatnonzero(np.any(np.diff(ids, axis=0) != 0, axis=1)) + 1
    for idx in np.split(order, cuts):
        x, t = rows.x[idx], rows.raw_target[idx]
        if np.all((t == 0) | (t == 1)):
            good, bad = x[t == 1], x[t == 0]
            ng, nb = len(good), len(bad)
            sg, sb = good.sum(axis=0), bad.sum(axis=0)
            gram = nb * good.T @ good + ng * bad.T @ bad - np.outer(sg, sb) - np.outer(sb, sg)
            vec, pairs = nb * sg - ng * sb, ng * nb
        else:
            i, j = np.triu_indices(len(t), k=1)
            keep = np.abs(t[i] - t[j]) >= TIE_THRESHOLD
            d = (x[i[keep]] - x[j[keep]]) * np.sign(t[i[keep]] - t[j[keep]])[:, None]
            gram, vec, pairs = d.T @ d, d.sum(axis=0), int(keep.sum())
        if pairs:
            dataset = int(rows.dataset[idx[0]])
            grams.append(gram)
            vecs.append(vec)
            pairs_of.append(pairs)
            datasets.append(dataset)
            keys.append((rows.names[dataset], int(rows.problem[idx[0]])))
    d = rows.x.shape[1]
    return PairStats(np.array(grams).reshape(-1, d, d), np.array(vecs).reshape(-1, d),
                     np.array(pairs_of, dtype=float), np.array(datasets, dtype=int), keys)


@dataclass
class Model:
    """A fitted combination over raw inputs: logit = intercept + coef . (x - mean) / scale."""

    inputs: list[str]  # ranking inputs, then calibration inputs
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    ranking: np.ndarray  # the ridge weights (standardised ranking inputs)
    lam: float

    def logit(self, x: np.ndarray) -> np.ndarray:
        """Linear part for rows of the model's inputs."""
        return self.intercept + ((x - self.mean) / self.scale) @ self.coef

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Scores in 0..1."""
        return 1.0 / (1.0 + np.exp(-self.logit(x)))


def _standardiser(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0) if len(x) else np.zeros(x.shape[1])
    scale = x.std(axis=0) if len(x) else np.ones(x.shape[1])
    scale = np.where(scale > 0, scale, 1.0)
    return mean, scale


def _pair_system(stats: PairStats, cols: Sequence[int], scale: np.ndarray,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Dataset-balanced sum of d d^T and d over ``stats`` for inputs ``cols``, standardised by
    ``scale`` (the pool's)."""
    sel = np.asarray(cols, dtype=int)
    weight = np.zeros(len(stats.pairs))
    for dataset in np.unique(stats.dataset):
        mask = stats.dataset == dataset
        weight[mask] = 1.0 / stats.pairs[mask].sum()
    gram = np.tensordot(weight, stats.gram[:, sel][:, :, sel], axes=1)
    vec = weight @ stats.vec[:, sel]
    inv = 1.0 / scale[sel]
    return gram * np.outer(inv, inv), vec * inv


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1.0,
                 iterations: int = 50) -> tuple[float, np.ndarray]:
    """Weighted L2 logistic regression with soft labels by Newton's method: (intercept, coef).

    ``l2`` is relative to the total weight (the intercept is not penalised)."""
    n, d = x.shape
    a = np.column_stack([np.ones(n), x])
    beta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2 * w.sum() / max(n, 1))
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(a @ beta)))
        grad = a.T @ (w * (p - y)) + penalty * beta
        hess = (a * (w * p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-12 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return float(beta[0]), beta[1:]


def fit(rows: Rows, stats: PairStats, train: np.ndarray, cols: Sequence[int], lam: float) -> Model:
    """Ridge ranking on the training problems' stats, then the calibration on their rows."""
    cols = list(cols)
    pool_mean, pool_scale = _standardiser(rows.x[train])
    mean, scale = pool_mean[cols], pool_scale[cols]
    if cols:
        gram, vec = _pair_system(stats, cols, pool_scale)
        w = np.linalg.solve(gram + lam * np.eye(len(cols)), vec)
        s = ((rows.x[train][:, cols] - mean) / scale) @ w
    else:
        w, s = np.zeros(0), np.zeros(int(train.sum()))
    c = rows.calib[train]
    cmean, cscale = _standardiser(c)
    spread = float(s.std()) or 1.0
    design = np.column_stack([s / spread, (c - cmean) / cscale])
    intercept, outer = fit_logistic(design, rows.target[train], _balanced_weights(rows.dataset[train]),
                                    CALIBRATION_L2)
    a = max(float(outer[0]), 1e-6) / spread  # positive: never reorders a problem's candidates
    return Model([rows.pool[k] for k in cols] + list(rows.calib_names), np.concatenate([mean, cmean]),
                 np.concatenate([scale, cscale]), np.concatenate([a * w, outer[1:]]), float(intercept),
                 w, lam)


def _balanced_weights(dataset: np.ndarray) -> np.ndarray:
    weights = np.zeros(len(dataset))
    for d in np.unique(dataset):
        mask = dataset == d
        weights[mask] = 1.0 / mask.sum()
    return weights


def model_input(rows: Rows, mask: np.ndarray, cols: Sequence[int]) -> np.ndarray:
    """Raw inputs of ``rows[mask]`` in a model's order (ranking inputs, then calibration)."""
    return np.column_stack([rows.x[mask][:, list(cols)], rows.calib[mask]])


def agreement_criterion(rows: Rows, scores: np.ndarray, mask: np.ndarray | None = None,
                        kind: str | None = None) -> float:
    """Selection criterion on ``rows[mask]``. ``datasets`` (the default): mean over datasets of
    (grouped tau + pooled Spearman) / 2. ``goals``: mean of HumanEval mean tau, HumanEval mean
    Spearman and CoNaLa tau (the three numbers the headline rule compares)."""
    taus: dict[str, float] = {}
    sps: dict[str, float] = {}
    for d in range(len(rows.names)):
        sel = rows.dataset == d if mask is None else (rows.dataset == d) & mask
        if sel.sum() < 3:
            continue
        tau = grouped_kendall_tau(rows.raw_target[sel], scores[sel], rows.problem[sel]).tau
        rho = spearman(scores[sel], rows.raw_target[sel])
        if tau is not None and rho is not None:
            taus[rows.names[d]], sps[rows.names[d]] = tau, rho
    if not taus:
        return float("-inf")
    if (kind or CRITERION) == "goals":
        he = [n for n in taus if n != CONALA]
        parts = [float(np.mean([taus[n] for n in he])), float(np.mean([sps[n] for n in he]))] if he else []
        if CONALA in taus:
            parts.append(taus[CONALA])
        return float(np.mean(parts))
    return float(np.mean([(taus[n] + sps[n]) / 2 for n in taus]))


class InnerCV:
    """Inner folds by problem over training rows, with each fold's statistics precomputed."""

    def __init__(self, rows: Rows, stats: PairStats, train: np.ndarray, seed: int,
                 k: int = INNER_FOLDS) -> None:
        self.rows, self.train = rows, train
        keys = [key for key, t in zip(rows.keys(), train) if t]
        folds = problem_folds(keys, k, seed)
        row_fold = np.array([folds.get(key, -1) for key in rows.keys()])
        self.parts = []
        for fold in range(k):
            inner_train = train & (row_fold != fold) & (row_fold >= 0)
            held = train & (row_fold == fold)
            fold_stats = stats.subset(np.array([folds.get(key, -1) not in (-1, fold)
                                                for key in stats.keys], dtype=bool))
            self.parts.append((inner_train, held, fold_stats))

    def criterion(self, cols: Sequence[int], lam: float) -> float:
        """Inner-CV criterion of inputs ``cols`` at ridge strength ``lam``."""
        scores = np.full(len(self.rows.target), np.nan)
        for inner_train, held, fold_stats in self.parts:
            model = fit(self.rows, fold_stats, inner_train, cols, lam)
            scores[held] = model.predict(model_input(self.rows, held, cols))
        return agreement_criterion(self.rows, scores, self.train)


def select(rows: Rows, stats: PairStats, train: np.ndarray, seed: int,
           max_inputs: int = MAX_INPUTS) -> tuple[list[int], float, list[dict]]:
    """Forward selection of inputs, then the ridge strength, on inner folds of ``train``."""
    inner = InnerCV(rows, stats, train, seed)
    chosen: list[int] = []
    best = float("-inf")
    log: list[dict] = []
    while len(chosen) < max_inputs:
        trials = {c: inner.criterion(chosen + [c], SELECTION_LAMBDA)
                  for c in range(len(rows.pool)) if c not in chosen}
        if not trials:
            break
        pick = max(trials, key=lambda c: (trials[c], -c))
        if trials[pick] < best + MIN_GAIN:
            break
        chosen.append(pick)
        best = trials[pick]
        log.append({"add": rows.pool[pick], "criterion": best})
    lams = {lam: inner.criterion(chosen, lam) for lam in LAMBDAS}
    lam = max(lams, key=lambda value: (lams[value], value))
    log.append({"lambda": lam, "criteria": {str(k): v for k, v in lams.items()}})
    return chosen, lam, log
