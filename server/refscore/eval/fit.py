"""Cross-validated CodeBERTScore defaults and the combined RefScore number (nested, by problem).

Per outer fold, on the training problems only: pick the CodeBERTScore layer and F variant by mean
tau; pick the combined RefScore number's inputs and ridge strength by an inner cross-validation
(``rankfit.select``); fit (``rankfit.fit``); score the held-out problems. The best single metric
is also chosen on the training problems of each fold, so the comparison is like for like. Every
held-out number pools out-of-fold scores; per-fold numbers come with them.

Targets: HumanEval passed (0/1) and CoNaLa mean grade (/ 4 for the calibration); each dataset
weighs the same.
"""

from __future__ import annotations

import datetime
from typing import Any, Mapping, Sequence

import numpy as np

from ..combined.inputs import RANKING_POOL
from ..combined.model import FORMAT_VERSION
from .cv import ProblemKey, Table, held_out_agreement, mean_tau, split
from .data import HUMANEVAL_LANGUAGES
from .metrics import BertColumns
from .rankfit import build_rows, fit, model_input, problem_stats, select

#: Single metrics the combination is compared with (the best is chosen on training problems).
SINGLE_CANDIDATES = ("chrf", "chrfpp", "bleu", "weighted_ngram_match", "syntax_match_native",
                     "codebleu_native", "tsed", "crystalbleu")


def choose_bert(tables: Sequence[Table], layers: Sequence[int], parts: Sequence[str],
                context: bool = False) -> tuple[BertColumns, str, float]:
    """(the chosen layer's columns, part, mean tau) with the best mean tau over ``tables`` (ties:
    the lower layer)."""
    best = max(((bert, part) for bert in BertColumns.sweep(layers) for part in parts),
               key=lambda bp: (mean_tau(tables, lambda t: t.columns[bp[0].name(bp[1], context)]),
                               -bp[0].layer, bp[1]))
    tau = mean_tau(tables, lambda t: t.columns[best[0].name(best[1], context)])
    return best[0], best[1], tau


def _humaneval(tables: Sequence[Table]) -> list[Table]:
    return [t for t in tables if t.dataset in HUMANEVAL_LANGUAGES] or list(tables)


def choose_single(tables: Sequence[Table], layers: Sequence[int]) -> str:
    """The single column with the best HumanEval mean tau on ``tables`` (CodeBERTScore at every
    layer and part included)."""
    names = [c for c in SINGLE_CANDIDATES if all(c in t.columns for t in tables)]
    names += [bert.name(p) for bert in BertColumns.sweep(layers) for p in ("f1", "f3", "r")
              if all(bert.name(p) in t.columns for t in tables)]
    he = _humaneval(tables)
    return max(names, key=lambda c: (mean_tau(he, lambda t: t.columns[c]), c))


def _summary(agree: Mapping[str, Mapping[str, Any]]) -> dict[str, float | None]:
    langs = [d for d in HUMANEVAL_LANGUAGES if d in agree]
    taus = [agree[d]["tau"] for d in langs if agree[d]["tau"] is not None]
    sps = [agree[d]["spearman"] for d in langs if agree[d]["spearman"] is not None]
    conala = agree.get("conala", {})
    return {"humaneval_tau": float(np.mean(taus)) if taus else None,
            "humaneval_spearman": float(np.mean(sps)) if sps else None,
            "conala_tau": conala.get("tau"), "conala_spearman": conala.get("spearman")}


class _Cache:
    """Stacked rows and pair statistics per CodeBERTScore layer (built once)."""

    def __init__(self, tables: Sequence[Table], pool: Sequence[str]) -> None:
        self.tables, self.pool, self.by_layer = list(tables), list(pool), {}

    def get(self, bert: BertColumns) -> tuple[Any, Any]:
        if bert not in self.by_layer:
            rows = build_rows(self.tables, self.pool, bert)
            self.by_layer[bert] = (rows, problem_stats(rows))
        return self.by_layer[bert]


def _fold_mask(rows: Any, folds: Mapping[ProblemKey, int], fold: int) -> np.ndarray:
    return np.array([folds[key] == fold for key in rows.keys()])


def cross_validate(tables: Sequence[Table], folds: Mapping[ProblemKey, int], k: int,
                   layers: Sequence[int], seed: int = 8, pool: Sequence[str] = RANKING_POOL,
                   ) -> dict[str, Any]:
    """Nested choices per fold; held-out agreement of the CV-chosen CodeBERTScore, the
    CV-chosen single metric and the combined RefScore number, pooled and per fold."""
    cache = _Cache(tables, pool)
    held = {name: {t.dataset: np.full(len(t.target), np.nan) for t in tables}
            for name in ("bert", "single", "combined")}
    fold_log = []
    for fold in range(k):
        train_tables, test_tables = split(tables, folds, fold)
        bert, part, train_tau = choose_bert(train_tables, layers, ("f1", "f3"))
        single = choose_single(train_tables, layers)
        rows, stats = cache.get(bert)
        test = _fold_mask(rows, folds, fold)
        train_stats = stats.subset(np.array([folds[key] != fold for key in stats.keys]))
        cols, lam, log = select(rows, train_stats, ~test, seed + 1)
        model = fit(rows, train_stats, ~test, cols, lam)
        predicted = model.predict(model_input(rows, test, cols))
        offset = 0
        fold_held: dict[str, dict[str, np.ndarray]] = {"bert": {}, "single": {}, "combined": {}}
        for table, part_table in zip(tables, test_tables):
            mask = table.fold_of(folds) == fold
            n = int(mask.sum())
            row_mask = test[rows.dataset == rows.names.index(table.dataset)]
            assert row_mask.sum() == n  # rows keep table order
            values = {"bert": table.columns[bert.name(part)][mask],
                      "single": table.columns[single][mask],
                      "combined": predicted[offset:offset + n]}
            offset += n
            for name, vals in values.items():
                held[name][table.dataset][mask] = vals
                fold_held[name][table.dataset] = vals
        per_fold = {name: _summary(held_out_agreement(test_tables, fold_held[name]))
                    for name in fold_held}
        fold_log.append({"fold": fold, "layer": bert.layer, "part": part, "train_mean_tau": train_tau,
                         "single": single, "inputs": model.inputs, "lambda": lam,
                         "selection": log, "coef": dict(zip(model.inputs, model.coef.tolist())),
                         "held_out": per_fold})
    from .bootstrap import paired_differences

    return {"folds": fold_log,
            "differences": {"vs_bert": paired_differences(tables, held["combined"], held["bert"], seed=seed),
                            "vs_single": paired_differences(tables, held["combined"], held["single"],
                                                            seed=seed)},
            "bert_held_out": held_out_agreement(tables, held["bert"]),
            "single_held_out": held_out_agreement(tables, held["single"]),
            "combined_held_out": held_out_agreement(tables, held["combined"]),
            "pool": list(cache.get(BertColumns(fold_log[0]["layer"]))[0].pool)}


def fit_final(tables: Sequence[Table], layers: Sequence[int], settings: Mapping, seed: int = 8,
              pool: Sequence[str] = RANKING_POOL) -> dict[str, Any]:
    """The shipped combination: layer, inputs and ridge strength chosen and weights fitted on
    every problem (what ``combined.json`` stores)."""
    bert, part, tau = choose_bert(tables, layers, ("f1", "f3"))
    rows = build_rows(tables, pool, bert)
    stats = problem_stats(rows)
    everything = np.ones(len(rows.target), dtype=bool)
    cols, lam, log = select(rows, stats, everything, seed + 1)
    model = fit(rows, stats, everything, cols, lam)
    return {
        "version": FORMAT_VERSION,
        "features": model.inputs, "mean": model.mean.tolist(), "scale": model.scale.tolist(),
        "coef": model.coef.tolist(), "intercept": model.intercept,
        "method": "pairwise ridge ranking + logistic calibration",
        "bert": {"model": "all-MiniLM-L6-v2", "layer": bert.layer, "context": False,
                 "default_part": part},
        "fitted": {"lambda": lam, "selection": log, "pool": list(rows.pool),
                   "targets": "HumanEval passed (0/1); CoNaLa mean grade / 4 (calibration)",
                   "weights": "each dataset the same total weight (pairs and items)",
                   "datasets": {t.dataset: {"items": int(len(t.target)),
                                            "problems": int(len(set(t.problem.tolist())))}
                                for t in tables},
                   "selection_mean_tau": tau, "settings": dict(settings),
                   "date": datetime.date.today().isoformat()},
    }


def fit_leaving_out(tables: Sequence[Table], layers: Sequence[int], settings: Mapping, seed: int = 8,
                    leave_out: Sequence[str] = HUMANEVAL_LANGUAGES,
                    pool: Sequence[str] = RANKING_POOL) -> dict[str, Any]:
    """A combination fitted as ``fit_final`` fits it, on every table but ``leave_out`` (default:
    the HumanEval languages, so that a researcher who correlates it with HumanEval outcomes
    measures it out of sample), with its agreement on the left-out tables (never seen by any
    choice or weight) under ``fitted.left_out_agreement``."""
    from .features import matrix

    kept = [t for t in tables if t.dataset not in leave_out]
    left = [t for t in tables if t.dataset in leave_out]
    if not kept:
        raise ValueError("nothing left to fit on")
    model = fit_final(kept, layers, settings, seed, pool)
    bert = BertColumns(model["bert"]["layer"])
    mean, scale, coef = (np.asarray(model[k], dtype=float) for k in ("mean", "scale", "coef"))
    scores = {}
    for table in left:
        x = matrix(table, model["features"], bert)
        scores[table.dataset] = 1.0 / (1.0 + np.exp(-(model["intercept"] + ((x - mean) / scale) @ coef)))
    model["fitted"]["left_out"] = list(leave_out)
    model["fitted"]["left_out_agreement"] = held_out_agreement(left, scores) if left else {}
    return model
