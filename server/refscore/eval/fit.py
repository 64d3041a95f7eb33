"""Fitting the combined score and the CodeBERTScore defaults, cross-validated by problem.

Per fold (training problems only): pick the CodeBERTScore layer and F variant by mean tau, then
fit a weighted logistic regression (L2, standardised inputs) of the outcome on the component
values; the held-out problems are scored with that fold's model. Targets: HumanEval passed
(0/1) and CoNaLa mean grade / 4 (a soft label); each dataset gets the same total weight.
"""

from __future__ import annotations

import datetime
from typing import Mapping, Sequence

import numpy as np

from .combined import combined_score
from .cv import ProblemKey, Table, held_out_agreement, mean_tau, split
from .data import CONALA

#: Component name -> score-table column (``{layer}`` filled in with the chosen layer).
FEATURE_COLUMNS = {
    "cbs_p": "cbs_p_L{layer}", "cbs_r": "cbs_r_L{layer}", "cbs_f3": "cbs_f3_L{layer}",
    "chrf": "chrf", "ngram_match": "bleu", "weighted_ngram_match": "weighted_ngram_match",
    "syntax_match": "syntax_match_native", "dataflow_match": "dataflow_match_native",
}
DEFAULT_FEATURES = tuple(FEATURE_COLUMNS)
L2 = 1.0
COMBINED_VERSION = 1


def _target(table: Table) -> np.ndarray:
    return table.target / 4.0 if table.dataset == CONALA else table.target


def design(tables: Sequence[Table], features: Sequence[str], layer: int,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X with NaN for not-applicable, y, weights) over all tables."""
    xs, ys, ws = [], [], []
    for table in tables:
        if not len(table.target):
            continue
        cols = [table.columns[FEATURE_COLUMNS[f].format(layer=layer)] for f in features]
        xs.append(np.column_stack(cols))
        ys.append(_target(table))
        ws.append(np.full(len(table.target), 1.0 / len(table.target)))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ws)


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = L2,
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


def fit_model(tables: Sequence[Table], features: Sequence[str], layer: int, part: str,
              l2: float = L2) -> dict:
    """Fit the combination on ``tables``; the result is what ``combined.json`` stores."""
    x, y, w = design(tables, features, layer)
    mean = np.nanmean(x, axis=0)
    x = np.where(np.isnan(x), mean, x)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    intercept, coef = fit_logistic((x - mean) / scale, y, w, l2)
    return {"features": list(features), "mean": mean.tolist(), "scale": scale.tolist(),
            "coef": coef.tolist(), "intercept": intercept,
            "bert": {"model": "all-MiniLM-L6-v2", "layer": layer, "context": False,
                     "default_part": part}}


def predict(model: Mapping, table: Table) -> np.ndarray:
    """``combined_score`` of every row of ``table`` (through the pure function itself)."""
    layer = model["bert"]["layer"]
    cols = {f: table.columns[FEATURE_COLUMNS[f].format(layer=layer)] for f in model["features"]}
    return np.array([combined_score({f: float(cols[f][i]) for f in cols}, model)
                     for i in range(len(table.target))])


def choose_bert(tables: Sequence[Table], layers: Sequence[int], parts: Sequence[str],
                context: bool = False) -> tuple[int, str, float]:
    """(layer, part, mean tau) with the best mean tau over ``tables``."""
    suffix = "_ctx" if context else ""
    best = max(((layer, part) for layer in layers for part in parts),
               key=lambda lp: (mean_tau(tables, lambda t: t.columns[f"cbs_{lp[1]}_L{lp[0]}{suffix}"]),
                               -lp[0], lp[1]))
    tau = mean_tau(tables, lambda t: t.columns[f"cbs_{best[1]}_L{best[0]}{suffix}"])
    return best[0], best[1], tau


def cross_validate(tables: Sequence[Table], folds: Mapping[ProblemKey, int], k: int,
                   layers: Sequence[int], features: Sequence[str] = DEFAULT_FEATURES,
                   l2: float = L2) -> dict:
    """Nested choice of layer/part and the combined fit per fold; held-out agreement of both."""
    held_bert = {t.dataset: np.full(len(t.target), np.nan) for t in tables}
    held_comb = {t.dataset: np.full(len(t.target), np.nan) for t in tables}
    fold_log = []
    for fold in range(k):
        train, test = split(tables, folds, fold)
        layer, part, train_tau = choose_bert(train, layers, ("f1", "f3"))
        model = fit_model(train, features, layer, part, l2)
        fold_log.append({"fold": fold, "layer": layer, "part": part,
                         "train_mean_tau": train_tau,
                         "coef": dict(zip(features, model["coef"]))})
        for table, held in zip(tables, test):
            mask = table.fold_of(folds) == fold
            held_bert[table.dataset][mask] = table.columns[f"cbs_{part}_L{layer}"][mask]
            if len(held.target):
                held_comb[table.dataset][mask] = predict(model, held)
    return {"folds": fold_log, "bert_held_out": held_out_agreement(tables, held_bert),
            "combined_held_out": held_out_agreement(tables, held_comb)}


def fit_final(tables: Sequence[Table], layers: Sequence[int], settings: Mapping,
              features: Sequence[str] = DEFAULT_FEATURES, l2: float = L2) -> dict:
    """The shipped combination: layer/part chosen and weights fitted on all given problems."""
    layer, part, tau = choose_bert(tables, layers, ("f1", "f3"))
    model = fit_model(tables, features, layer, part, l2)
    model.update({
        "version": COMBINED_VERSION,
        "fitted": {"method": "weighted L2 logistic regression (Newton), standardised inputs",
                   "l2": l2, "targets": "HumanEval passed (0/1); CoNaLa mean grade / 4",
                   "weights": "each dataset the same total weight",
                   "datasets": {t.dataset: {"items": int(len(t.target)),
                                            "problems": int(len(set(t.problem.tolist())))}
                                for t in tables},
                   "selection_mean_tau": tau, "settings": dict(settings),
                   "date": datetime.date.today().isoformat()},
    })
    return model
