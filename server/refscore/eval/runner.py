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

from ..errors import InputFileError
from .correlation import agreement
from .cv import Table, problem_folds
from .data import CONALA, HUMANEVAL_LANGUAGES, Item, load
from .metrics import BertColumns, length_features
from .tasks import GROUPS as METRIC_GROUPS
from .tasks import set_threads


@dataclass
class EvalConfig:
    """Everything that determines the numbers (written into the output)."""

    data_dir: str
    datasets: list[str] = field(default_factory=lambda: [*HUMANEVAL_LANGUAGES, CONALA])
    sample: int | None = None
    conala_sample: int | None = None
    seed: int = 8
    metrics: list[str] = field(default_factory=lambda: [g for g in METRIC_GROUPS if g != "errors"])
    layers: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5, 6])
    contexts: list[bool] = field(default_factory=lambda: [False, True])
    bert_datasets: list[str] | None = None  # None = every dataset
    normalise: str = "chrf"  # "chrf" (chrF only, as the paper), "all", "none"
    folds: int = 5
    threads: int | None = 1
    jobs: int = 1  # worker processes (chunks of every dataset are scored in parallel)
    engine: str = "local"  # "ray": the scoring tasks run on a Ray cluster (eval/execute.py)
    ray_address: str | None = None


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


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


def score_all(config: EvalConfig, scores_path: Path | None = None, use_cache: bool = True,
              checkpoint_s: float = 120.0, cache_from: Sequence[Path] = (),
              ) -> tuple[dict[str, Table], dict[str, Any], float]:
    """Load, sample and score: (tables, timing notes, seconds).

    Values already in the scores file (``scores_path``) are reused; the rest is scored in
    ``config.jobs`` processes and checkpointed into that file every ``checkpoint_s`` seconds,
    so an interrupted run continues where it stopped. ``cache_from``: other scores files whose
    values are reused too (and written into ``scores_path``)."""
    from .execute import execute, plan
    from .store import ScoreStore

    start = time.monotonic()
    set_threads(config.threads)
    data = load(Path(config.data_dir), config.datasets, config.sample, config.conala_sample,
                config.seed)
    for dataset, items in data.items():
        _log(f"{dataset}: {len(items)} items, {len(set(i.problem for i in items))} problems")
    store = ScoreStore(scores_path if use_cache else None)
    if scores_path is not None:
        store.path = Path(scores_path)
    for other in cache_from:
        _log(f"{store.merge_from(Path(other))} cached rows taken from {other}")
    if store.rows():
        _log(f"reusing {store.rows()} cached rows")
    work = plan(config, data, store)
    notes = execute(work, config, store, checkpoint_s, lambda: _meta(config, store, {}, 0.0))
    tables = {d: build_table(d, items, columns_for(config, items, store, work.params.get(d, {})))
              for d, items in data.items()}
    seconds = time.monotonic() - start
    notes["wall_s"] = seconds
    notes["unit_seconds"] = dict(store.seconds)
    notes["scoring_runs"] = list(store.runs)
    if store.path is not None:
        store.save(_meta(config, store, notes, seconds), tables)
    return tables, notes, seconds


def _meta(config: EvalConfig, store: Any, notes: dict[str, Any], seconds: float) -> dict[str, Any]:
    meta = dict(store.loaded_meta)
    meta.update({"settings": asdict(config), "timing": notes or meta.get("timing", {}),
                 "scoring_s": seconds or meta.get("scoring_s", 0.0),
                 "datasets": list(config.datasets) if notes else []})  # a checkpoint holds no tables
    return meta


def columns_for(config: EvalConfig, items: Sequence[Item], store: Any,
                params: dict[str, Any]) -> dict[str, list[float]]:
    """Every requested column of one dataset, read from the store (length features computed)."""
    from .execute import wants_group
    from .store import item_key
    from .tasks import units

    keys = [item_key(i) for i in items]
    columns: dict[str, Any] = dict(length_features(items))
    dataset = items[0].dataset if items else ""
    for group in config.metrics:
        if not wants_group(config, group, dataset):
            continue
        for spec in units(group, config, params.get(group)):
            for col, name in zip(spec.columns, spec.table_names):
                columns[name] = store.column(spec.name, col, keys)
    return columns


def save_scores(path: Path, config: EvalConfig, tables: dict[str, Table], notes: dict[str, Any],
                seconds: float) -> None:
    """Per-item scores (npz) so that the analysis can be redone without rescoring."""
    from .store import ScoreStore

    store = ScoreStore(None)
    store.save({"settings": asdict(config), "timing": notes, "scoring_s": seconds,
                "datasets": list(tables)}, tables, path)


def load_scores(path: Path) -> tuple[EvalConfig, dict[str, Table], dict[str, Any], float]:
    """The inverse of ``save_scores`` (``store.open_scores`` refuses a file that is no .npz archive)."""
    from .store import open_scores

    with open_scores(path) as npz:
        meta = json.loads(str(npz["__meta__"]))
        if not meta["datasets"] or any(f"{name}/target" not in npz.files for name in meta["datasets"]):
            raise _unfinished(path, meta)
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


def combined_fit_problem(config: EvalConfig) -> str | None:
    """Why the cross-validation and the combined fit (``--save-combined``) cannot run on what
    ``config`` scores, in words (None when they can)."""
    missing = [group for group in ("codebleu", "chrf", "cbs") if group not in config.metrics]
    if missing:
        return f"the combined fit needs --metrics with {', '.join(missing)} too (it has {','.join(config.metrics)})"
    if False not in config.contexts:
        return "the combined fit needs CodeBERTScore without context (--contexts none or both)"
    if config.bert_datasets is not None and set(config.datasets) - set(config.bert_datasets):
        return "the combined fit needs CodeBERTScore on every dataset (leave --cbs-languages out)"
    return None


def _unfinished(path: Path, meta: dict[str, Any]) -> InputFileError:
    """A checkpoint (the run was interrupted) holds cached values but no score tables."""
    metrics = ",".join((meta.get("settings") or {}).get("metrics") or []) or "?"
    rows = sum(int(unit.get("rows", 0)) for unit in meta.get("units", []))
    return InputFileError(f"{path}: the scoring run that wrote it did not finish (metrics {metrics}, {rows} values "
                          f"cached); run its command again with --save-scores {path} to finish it, then "
                          "--from-scores reads it")


def analyse(config: EvalConfig, tables: dict[str, Table], notes: dict[str, Any],
            scoring_s: float, save_combined: Path | None = None,
            save_without_humaneval: Path | None = None) -> dict[str, Any]:
    """Correlate and cross-validate scored tables; returns the JSON-able result."""
    from .features import derived_columns
    from .report_cv import verdict

    start = time.monotonic()
    for table in tables.values():
        table.columns.update(derived_columns(table))
    per_dataset = {d: agreements(t) for d, t in tables.items()}
    result: dict[str, Any] = {
        "settings": asdict(config),
        "counts": {d: {"items": int(len(t.target)), "problems": int(len(set(t.problem.tolist())))}
                   for d, t in tables.items()},
        "agreement": per_dataset,
        "humaneval_mean": humaneval_means(per_dataset),
        "timing": notes,
    }
    from .bootstrap import metric_intervals

    metrics = sorted({m for table in per_dataset.values() for m in table})
    result["intervals"] = metric_intervals(list(tables.values()), metrics, seed=config.seed)
    exact = [t.columns["tsed_exact"] for t in tables.values() if "tsed_exact" in t.columns]
    if exact:
        result["tsed_exact_share"] = float(np.mean(np.concatenate(exact)))
    bert_tables = [t for t in tables.values()
                   if BertColumns(config.layers[0]).name("f3") in t.columns]
    if combined_fit_problem(config) is None and len(bert_tables) == len(tables):
        from .fit import cross_validate, fit_final

        folds = problem_folds([(t.dataset, int(p)) for t in bert_tables for p in t.problem],
                              config.folds, config.seed)
        _log(f"cross-validation: {config.folds} folds by problem")
        result["cross_validation"] = cross_validate(bert_tables, folds, config.folds, config.layers,
                                                     seed=config.seed)
        _log("cross-validation done; fitting the shipped combination" if save_combined else
             "cross-validation done")
        result["verdict"] = verdict(result)
        if save_combined is not None:
            model = fit_final(bert_tables, config.layers, asdict(config), seed=config.seed)
            model["fitted"]["cross_validation"] = result["cross_validation"]["combined_held_out"]
            model["headline"] = bool(result["verdict"] and result["verdict"]["ship"])
            model["verdict"] = result["verdict"]
            from ..combined.model import save_model

            result["combined_saved"] = str(save_model(model, save_combined))
            result["combined_model"] = model
        if save_without_humaneval is not None:
            _fit_without_humaneval(result, bert_tables, config, save_without_humaneval)
    result["scoring_s"] = scoring_s
    result["runtime_s"] = scoring_s + time.monotonic() - start
    return result


def _fit_without_humaneval(result: dict[str, Any], tables: Sequence[Table], config: EvalConfig,
                           path: Path) -> None:
    """Fit and save the combination that never saw HumanEval (``fit.fit_leaving_out``); its
    HumanEval agreement is out of sample."""
    from ..combined.model import save_model
    from .fit import fit_leaving_out

    _log("fitting the combination without HumanEval")
    model = fit_leaving_out(tables, config.layers, asdict(config), seed=config.seed)
    model["headline"] = False  # not the shipped number: a researcher's out-of-sample fit
    result["without_humaneval_saved"] = str(save_model(model, path))
    result["without_humaneval_model"] = model


def run(config: EvalConfig, save_combined: Path | None = None,
        scores_out: Path | None = None, use_cache: bool = True,
        cache_from: Sequence[Path] = (), save_without_humaneval: Path | None = None) -> dict[str, Any]:
    """Score everything (reusing and updating the scores file ``scores_out``), then analyse."""
    tables, notes, seconds = score_all(config, scores_out, use_cache, cache_from=cache_from)
    return analyse(config, tables, notes, seconds, save_combined, save_without_humaneval)
