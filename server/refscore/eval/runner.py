"""The evaluation run: load and sample data, score every metric, measure agreement, cross-validate.

The result is one JSON-able dict (``run``); ``report.render`` turns it into markdown.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .correlation import agreement
from .cv import Table, problem_folds
from .data import CONALA, HUMANEVAL_LANGUAGES, Item, load
from .metrics import (BERT_PARTS, bert_name, bert_scores, chrf_scores, codebleu_scores,
                      length_features)

METRIC_GROUPS = ("codebleu", "chrf", "cbs")


@dataclass
class EvalConfig:
    """Everything that determines the numbers (written into the output)."""

    data_dir: str
    datasets: list[str] = field(default_factory=lambda: [*HUMANEVAL_LANGUAGES, CONALA])
    sample: int | None = None
    conala_sample: int | None = None
    seed: int = 8
    metrics: list[str] = field(default_factory=lambda: list(METRIC_GROUPS))
    layers: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5, 6])
    contexts: list[bool] = field(default_factory=lambda: [False, True])
    bert_datasets: list[str] | None = None  # None = every dataset
    normalise: str = "chrf"  # "chrf" (chrF only, as the paper), "all", "none"
    folds: int = 5
    threads: int | None = 1
    jobs: int = 1  # worker processes (datasets are scored in parallel)


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def score_items(items: Sequence[Item], config: EvalConfig, dataset: str,
                encoder: Any = None) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """All requested metric columns for one dataset, and timing/failure notes."""
    columns: dict[str, list[float]] = {}
    notes: dict[str, Any] = {}
    norm_all = config.normalise == "all"
    columns.update(length_features(items))
    if "codebleu" in config.metrics:
        start = time.monotonic()
        cb, failures = codebleu_scores(items, norm_all)
        columns.update(cb)
        notes["codebleu_s"] = time.monotonic() - start
        notes["codebleu_failures"] = failures
    if "chrf" in config.metrics:
        start = time.monotonic()
        columns.update(chrf_scores(items, config.normalise in ("chrf", "all")))
        notes["chrf_s"] = time.monotonic() - start
    wants_bert = config.bert_datasets is None or dataset in config.bert_datasets
    if "cbs" in config.metrics and wants_bert:
        start = time.monotonic()
        columns.update(bert_scores(items, config.layers, config.contexts, norm_all,
                                   encoder=encoder))
        notes["cbs_s"] = time.monotonic() - start
    return columns, notes


def build_table(dataset: str, items: Sequence[Item], columns: dict[str, list[float]]) -> Table:
    """Score table of one dataset (numpy arrays)."""
    return Table(dataset, np.array([i.target for i in items], dtype=float),
                 np.array([i.problem for i in items], dtype=int),
                 {k: np.asarray(v, dtype=float) for k, v in columns.items()})


def agreements(table: Table) -> dict[str, dict]:
    """Agreement of every column (NaN counts 0: a component that does not apply)."""
    return {name: agreement(table.target, np.nan_to_num(col), table.problem).as_dict()
            for name, col in sorted(table.columns.items())}


def humaneval_means(per_dataset: dict[str, dict[str, dict]]) -> dict[str, dict]:
    """Mean tau / Spearman / Pearson over the HumanEval languages present for each metric."""
    langs = [d for d in HUMANEVAL_LANGUAGES if d in per_dataset]
    if not langs:
        return {}
    out = {}
    for metric in per_dataset[langs[0]]:
        rows = [per_dataset[d].get(metric) for d in langs]
        if any(r is None for r in rows):
            continue
        out[metric] = {stat: (float(np.mean([r[stat] for r in rows]))
                              if all(r[stat] is not None for r in rows) else None)
                       for stat in ("tau", "spearman", "pearson")}
        out[metric]["languages"] = len(langs)
    return out


def _set_threads(threads: int | None) -> None:
    if threads:
        try:
            import torch

            torch.set_num_threads(threads)
        except ImportError:  # pragma: no cover - only CodeBLEU/chrF then
            pass


def _score_dataset(config: EvalConfig, dataset: str) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """Worker: score one dataset in its own process (own encoder)."""
    _set_threads(config.threads)
    items = load(Path(config.data_dir), [dataset], config.sample, config.conala_sample,
                 config.seed)[dataset]
    _log(f"{dataset}: {len(items)} items, {len(set(i.problem for i in items))} problems")
    return score_items(items, config, dataset)


def score_all(config: EvalConfig) -> tuple[dict[str, Table], dict[str, Any], float]:
    """Load, sample and score: (tables, timing notes, seconds). With ``config.jobs`` > 1 the
    datasets are scored in that many worker processes, largest first."""
    start = time.monotonic()
    _set_threads(config.threads)
    data = load(Path(config.data_dir), config.datasets, config.sample, config.conala_sample,
                config.seed)
    results: dict[str, tuple[dict[str, list[float]], dict[str, Any]]] = {}
    if config.jobs > 1 and len(data) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        cost = {d: sum(len(i.candidate) + len(i.context) for i in items) for d, items in data.items()}
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(config.jobs, len(data)), mp_context=context) as pool:
            futures = {d: pool.submit(_score_dataset, config, d)
                       for d in sorted(data, key=lambda d: -cost[d])}
            results = {d: f.result() for d, f in futures.items()}
    else:
        encoder = None
        if "cbs" in config.metrics:
            from .layers import MultiLayerEncoder

            encoder = MultiLayerEncoder(config.layers)
        for dataset, items in data.items():
            _log(f"{dataset}: {len(items)} items, {len(set(i.problem for i in items))} problems")
            results[dataset] = score_items(items, config, dataset, encoder)
    tables = {d: build_table(d, data[d], results[d][0]) for d in data}
    notes = {d: results[d][1] for d in data}
    return tables, notes, time.monotonic() - start


def save_scores(path: Path, config: EvalConfig, tables: dict[str, Table], notes: dict[str, Any],
                seconds: float) -> None:
    """Per-item scores (npz) so that the analysis can be redone without rescoring."""
    arrays: dict[str, np.ndarray] = {}
    for name, table in tables.items():
        arrays[f"{name}/target"] = table.target
        arrays[f"{name}/problem"] = table.problem
        for col, values in table.columns.items():
            arrays[f"{name}/col/{col}"] = values
    meta = {"settings": asdict(config), "timing": notes, "scoring_s": seconds,
            "datasets": list(tables)}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, __meta__=np.array(json.dumps(meta)), **arrays)


def load_scores(path: Path) -> tuple[EvalConfig, dict[str, Table], dict[str, Any], float]:
    """The inverse of ``save_scores``."""
    with np.load(path, allow_pickle=False) as npz:
        meta = json.loads(str(npz["__meta__"]))
        tables = {}
        for name in meta["datasets"]:
            prefix = f"{name}/col/"
            cols = {k[len(prefix):]: npz[k] for k in npz.files if k.startswith(prefix)}
            tables[name] = Table(name, npz[f"{name}/target"], npz[f"{name}/problem"], cols)
    config = EvalConfig(**meta["settings"])
    if any("len_ratio" not in t.columns for t in tables.values()):
        data = load(Path(config.data_dir), list(tables), config.sample, config.conala_sample,
                    config.seed)
        for name, table in tables.items():
            for col, values in length_features(data[name]).items():
                table.columns.setdefault(col, np.asarray(values, dtype=float))
    return config, tables, meta["timing"], float(meta["scoring_s"])


def analyse(config: EvalConfig, tables: dict[str, Table], notes: dict[str, Any],
            scoring_s: float, save_combined: Path | None = None) -> dict[str, Any]:
    """Correlate and cross-validate scored tables; returns the JSON-able result."""
    start = time.monotonic()
    per_dataset = {d: agreements(t) for d, t in tables.items()}
    result: dict[str, Any] = {
        "settings": asdict(config),
        "counts": {d: {"items": int(len(t.target)), "problems": int(len(set(t.problem.tolist())))}
                   for d, t in tables.items()},
        "agreement": per_dataset,
        "humaneval_mean": humaneval_means(per_dataset),
        "timing": notes,
    }
    bert_tables = [t for t in tables.values()
                   if bert_name("f3", config.layers[0], False) in t.columns]
    if "cbs" in config.metrics and False in config.contexts and len(bert_tables) == len(tables) \
            and {"codebleu", "chrf"} <= set(config.metrics):
        from .fit import cross_validate, fit_final

        folds = problem_folds([(t.dataset, int(p)) for t in bert_tables for p in t.problem],
                              config.folds, config.seed)
        _log(f"cross-validation: {config.folds} folds by problem")
        result["cross_validation"] = cross_validate(bert_tables, folds, config.folds, config.layers,
                                                     seed=config.seed)
        if save_combined is not None:
            model = fit_final(bert_tables, config.layers, asdict(config), seed=config.seed)
            model["fitted"]["cross_validation"] = result["cross_validation"]["combined_held_out"]
            save_combined.parent.mkdir(parents=True, exist_ok=True)
            save_combined.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
            result["combined_saved"] = str(save_combined)
            result["combined_model"] = model
    result["scoring_s"] = scoring_s
    result["runtime_s"] = scoring_s + time.monotonic() - start
    return result


def run(config: EvalConfig, save_combined: Path | None = None,
        scores_out: Path | None = None) -> dict[str, Any]:
    """Score everything, optionally save the per-item scores, then analyse."""
    tables, notes, seconds = score_all(config)
    if scores_out is not None:
        save_scores(scores_out, config, tables, notes, seconds)
    return analyse(config, tables, notes, seconds, save_combined)


def parts() -> tuple[str, ...]:
    """CodeBERTScore parts reported (P, R, F1, F3)."""
    return BERT_PARTS
