"""Fitting the combined score and the CodeBERTScore defaults, cross-validated by problem.

Per outer fold (training problems only): pick the CodeBERTScore layer and F variant by mean tau;
pick the fitting method by an inner cross-validation on the training problems (criterion: mean
of tau and pooled Spearman over the datasets); fit; score the held-out problems. Methods:

* ``pointwise``: weighted L2 logistic regression of the outcome on all standardised inputs;
* ``pairwise``: the ranking weights come from a logistic regression on within-problem pairs
  (difference of inputs -> which one is better: what Kendall tau rewards), then a pointwise
  logistic regression on that ranking score plus ``ref_len`` calibrates it across problems
  (what pooled Spearman and a single pass mark need). The result is still one linear model.

Targets: HumanEval passed (0/1) and CoNaLa mean grade / 4 (a soft label); each dataset gets the
same total weight.
"""

from __future__ import annotations

import datetime
from typing import Mapping, Sequence

import numpy as np

from .combined import combined_score
from .cv import ProblemKey, Table, held_out_agreement, mean_tau, problem_folds, split
from .data import CONALA

#: Component name -> score-table column (``{layer}`` filled in with the chosen layer).
FEATURE_COLUMNS = {
    "cbs_p": "cbs_p_L{layer}", "cbs_r": "cbs_r_L{layer}", "cbs_f3": "cbs_f3_L{layer}",
    "chrf": "chrf", "ngram_match": "bleu", "weighted_ngram_match": "weighted_ngram_match",
    "syntax_match": "syntax_match_native", "dataflow_match": "dataflow_match_native",
    "len_ratio": "len_ratio", "ref_len": "ref_len",
}
DEFAULT_FEATURES = tuple(FEATURE_COLUMNS)
#: Inputs that describe the problem rather than the candidate (constant within a problem).
CALIBRATION_FEATURES = ("ref_len",)
METHODS = ("pointwise", "pairwise")
#: Candidate input sets, chosen by the inner cross-validation like the method ("compact" drops
#: CodeBERTScore P and R, which are collinear with F3).
FEATURE_SETS = {
    "all": DEFAULT_FEATURES,
    "compact": tuple(f for f in DEFAULT_FEATURES if f not in ("cbs_p", "cbs_r")),
}
INNER_FOLDS = 4
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


def _standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean = np.nanmean(x, axis=0)
    x = np.where(np.isnan(x), mean, x)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    return (x - mean) / scale, mean, scale


def _pairs(tables: Sequence[Table], z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Within-problem differences of standardised rows ``z`` (rows in ``design`` order) for pairs
    whose targets differ, both orientations; label 1 when the first is better."""
    diffs, labels, weights = [], [], []
    offset = 0
    for table in tables:
        n = len(table.target)
        if not n:
            continue
        rows, target = z[offset:offset + n], table.target
        offset += n
        table_diffs = []
        for problem in np.unique(table.problem):
            idx = np.flatnonzero(table.problem == problem)
            i, j = np.triu_indices(len(idx), k=1)
            keep = np.abs(target[idx][i] - target[idx][j]) >= 1e-3
            i, j = idx[i[keep]], idx[j[keep]]
            sign = np.sign(target[i] - target[j])[:, None]
            table_diffs.append((rows[i] - rows[j]) * sign)
        if not table_diffs:
            continue
        d = np.vstack(table_diffs)
        if not len(d):
            continue
        diffs += [d, -d]
        labels += [np.ones(len(d)), np.zeros(len(d))]
        weights.append(np.full(2 * len(d), 1.0 / (2 * len(d))))
    if not diffs:
        raise ValueError("no pair with different outcomes to fit on")
    return np.vstack(diffs), np.concatenate(labels), np.concatenate(weights)


def fit_model(tables: Sequence[Table], features: Sequence[str], layer: int, part: str,
              method: str = "pointwise", l2: float = L2) -> dict:
    """Fit the combination on ``tables``; the result is what ``combined.json`` stores."""
    x, y, w = design(tables, features, layer)
    z, mean, scale = _standardise(x)
    if method == "pointwise":
        intercept, coef = fit_logistic(z, y, w, l2)
    elif method == "pairwise":
        rank = [k for k, f in enumerate(features) if f not in CALIBRATION_FEATURES]
        calib = [k for k, f in enumerate(features) if f in CALIBRATION_FEATURES]
        d, labels, pw = _pairs(tables, z[:, rank])
        _, direction = fit_logistic(d, labels, pw, l2)
        ranking = z[:, rank] @ direction
        intercept, outer = fit_logistic(np.column_stack([ranking, z[:, calib]]), y, w, l2)
        coef = np.zeros(len(features))
        coef[rank] = outer[0] * direction
        coef[calib] = outer[1:]
    else:
        raise ValueError(f"unknown fitting method {method!r}")
    return {"features": list(features), "mean": mean.tolist(), "scale": scale.tolist(),
            "coef": coef.tolist(), "intercept": intercept, "method": method,
            "bert": {"model": "all-MiniLM-L6-v2", "layer": layer, "context": False,
                     "default_part": part}}


def choose_method(tables: Sequence[Table], layer: int, part: str, seed: int,
                  l2: float = L2) -> tuple[str, str, dict[str, float]]:
    """(method, feature set) with the best inner-CV criterion (mean of tau and pooled Spearman
    over the datasets), and every candidate's criterion."""
    keys = [(t.dataset, int(p)) for t in tables for p in t.problem]
    inner = problem_folds(keys, INNER_FOLDS, seed + 1)
    scores = {}
    for set_name, features in FEATURE_SETS.items():
        for method in METHODS:
            held = {t.dataset: np.full(len(t.target), np.nan) for t in tables}
            for fold in range(INNER_FOLDS):
                train, test = split(tables, inner, fold)
                model = fit_model(train, features, layer, part, method, l2)
                for table, part_table in zip(tables, test):
                    if len(part_table.target):
                        held[table.dataset][table.fold_of(inner) == fold] = predict(model,
                                                                                    part_table)
            agree = held_out_agreement(tables, held)
            taus = [a["tau"] for a in agree.values() if a["tau"] is not None]
            sps = [a["spearman"] for a in agree.values() if a["spearman"] is not None]
            scores[f"{method}/{set_name}"] = (float(np.mean(taus) + np.mean(sps)) / 2
                                              if taus and sps else float("-inf"))
    best = max(scores, key=lambda k: (scores[k], k))
    method, set_name = best.split("/")
    return method, set_name, scores


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
                   layers: Sequence[int], l2: float = L2, seed: int = 8) -> dict:
    """Nested choice of layer/part and the combined fit per fold; held-out agreement of both."""
    held_bert = {t.dataset: np.full(len(t.target), np.nan) for t in tables}
    held_comb = {t.dataset: np.full(len(t.target), np.nan) for t in tables}
    fold_log = []
    for fold in range(k):
        train, test = split(tables, folds, fold)
        layer, part, train_tau = choose_bert(train, layers, ("f1", "f3"))
        method, set_name, inner = choose_method(train, layer, part, seed, l2)
        model = fit_model(train, FEATURE_SETS[set_name], layer, part, method, l2)
        fold_log.append({"fold": fold, "layer": layer, "part": part,
                         "train_mean_tau": train_tau, "method": f"{method}/{set_name}",
                         "inner": inner, "coef": dict(zip(model["features"], model["coef"]))})
        for table, held in zip(tables, test):
            mask = table.fold_of(folds) == fold
            held_bert[table.dataset][mask] = table.columns[f"cbs_{part}_L{layer}"][mask]
            if len(held.target):
                held_comb[table.dataset][mask] = predict(model, held)
    return {"folds": fold_log, "bert_held_out": held_out_agreement(tables, held_bert),
            "combined_held_out": held_out_agreement(tables, held_comb)}


def fit_final(tables: Sequence[Table], layers: Sequence[int], settings: Mapping,
              l2: float = L2, seed: int = 8) -> dict:
    """The shipped combination: layer/part/method chosen and weights fitted on all problems."""
    layer, part, tau = choose_bert(tables, layers, ("f1", "f3"))
    method, set_name, inner = choose_method(tables, layer, part, seed, l2)
    model = fit_model(tables, FEATURE_SETS[set_name], layer, part, method, l2)
    model["method"] = f"{method}/{set_name}"
    model.update({
        "version": COMBINED_VERSION,
        "fitted": {"method": f"{method}: weighted L2 logistic regression (Newton), "
                             "standardised inputs (see refscore.eval.fit)",
                   "inner_cv_criterion": inner,
                   "l2": l2, "targets": "HumanEval passed (0/1); CoNaLa mean grade / 4",
                   "weights": "each dataset the same total weight",
                   "datasets": {t.dataset: {"items": int(len(t.target)),
                                            "problems": int(len(set(t.problem.tolist())))}
                                for t in tables},
                   "selection_mean_tau": tau, "settings": dict(settings),
                   "date": datetime.date.today().isoformat()},
    })
    return model
