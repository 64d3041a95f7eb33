"""Units of scoring work: which cached unit holds a metric group's columns, and the worker.

A ``Task`` is one metric group over a chunk of distinct items of one dataset (whole problems
for CodeBERTScore, so a reference is embedded once per chunk). ``run_task`` runs in the parent
or in a worker process and returns ``{unit name: {column: values}}`` in the task's item order;
the parent stores them (``store.ScoreStore``) as they arrive, so an interrupted run resumes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from .data import Item
from .metrics import (BERT_PARTS, BERT_STATS, CODEBLEU_METRICS, BertColumns, bert_scores,
                      chrf_scores, codebleu_scores)

#: Metric groups ``refscore eval --metrics`` accepts.
GROUPS = ("codebleu", "chrf", "tsed", "crystalbleu", "cbs", "canon", "errors")
#: Version of the CodeBLEU unit's numbers (a change to how they are computed must not reuse
#: values cached by an older run; "effective-order": the native rule's short-text fix;
#: "native-ngrams": the native n-gram components, the ones ``score`` serves, as columns;
#: "best-reference": the native rule scores a candidate against its best reference).
CODEBLEU_UNIT = "effective-order-native-ngrams-best-reference"
#: Items per task (CodeBERTScore chunks end at a problem boundary).
CHUNK = {"codebleu": 400, "chrf": 2000, "tsed": 300, "crystalbleu": 2000, "cbs": 256, "canon": 1000,
         "errors": 1000}
_ENCODERS: dict[tuple, Any] = {}


@dataclass(frozen=True)
class UnitSpec:
    """One cached unit: its name, its stored columns and their score-table names."""

    name: str
    columns: tuple[str, ...]
    table_names: tuple[str, ...]


@dataclass
class Task:
    """One group's work on distinct items of one dataset."""

    group: str
    dataset: str
    keys: list[str]
    items: list[Item]
    context: bool = False  # CodeBERTScore: with the natural-language intent
    params: dict[str, Any] = field(default_factory=dict)


def _norm(config: Any, group: str) -> bool:
    """Whether ``group`` scores the paper-normalised text under ``config.normalise``."""
    if config.normalise == "all":
        return True
    return group == "chrf" and config.normalise == "chrf"


def units(group: str, config: Any, params: dict[str, Any] | None = None,
          context: bool | None = None) -> list[UnitSpec]:
    """The units a group fills under ``config`` (CodeBERTScore: one per layer and context)."""
    norm = "paper" if _norm(config, group) else "no"
    if group == "codebleu":
        return [UnitSpec(f"codebleu:{CODEBLEU_UNIT}:norm={norm}", CODEBLEU_METRICS, CODEBLEU_METRICS)]
    if group == "chrf":
        return [UnitSpec(f"chrf:norm={norm}", ("chrf",), ("chrf",)),
                UnitSpec(f"chrfpp:norm={norm}", ("chrfpp",), ("chrfpp",))]
    if group == "tsed":
        from .signals import TSED_COLUMNS, tsed_unit

        return [UnitSpec(tsed_unit(), TSED_COLUMNS, TSED_COLUMNS)]
    if group == "errors":
        from .signals import ERROR_COLUMNS, errors_unit

        return [UnitSpec(errors_unit(), ERROR_COLUMNS, ERROR_COLUMNS)]
    if group == "canon":
        from .signals import CANONICAL_COLUMNS, canonical_unit

        return [UnitSpec(canonical_unit(), CANONICAL_COLUMNS, CANONICAL_COLUMNS)]
    if group == "crystalbleu":
        from .signals import crystal_unit

        return [UnitSpec(crystal_unit((params or {}).get("ignored_digest", "")),
                         ("crystalbleu",), ("crystalbleu",))]
    if group == "cbs":
        cols = (*BERT_PARTS, *BERT_STATS)
        contexts = config.contexts if context is None else [context]
        return [UnitSpec(f"cbs:minilm:L{bert.layer}:ctx={'yes' if ctx else 'no'}:norm={norm}", cols,
                         tuple(bert.name(c, ctx) for c in cols))
                for ctx in contexts for bert in BertColumns.sweep(config.layers)]
    raise ValueError(f"unknown metric group {group!r}")


def chunks(group: str, items: Sequence[Item], size: int | None = None) -> list[list[int]]:
    """Indices of ``items`` in task-sized runs (whole problems for CodeBERTScore)."""
    size = size or CHUNK[group]
    out: list[list[int]] = []
    current: list[int] = []
    last = None
    for index, item in enumerate(items):
        boundary = group != "cbs" or item.problem != last
        if current and boundary and len(current) >= size:
            out.append(current)
            current = []
        current.append(index)
        last = item.problem
    if current:
        out.append(current)
    return out


def _encoder(layers: Sequence[int]) -> Any:
    key = tuple(layers)
    if key not in _ENCODERS:
        from ..embed.layer_stack import LayerStack

        _ENCODERS.clear()
        _ENCODERS[key] = LayerStack(list(layers))
    return _ENCODERS[key]


def set_threads(threads: int | None) -> None:
    """Torch CPU threads for this process (no-op without torch)."""
    if threads:
        try:
            import torch

            torch.set_num_threads(threads)
        except ImportError:  # pragma: no cover - only CodeBLEU/chrF then
            pass


def run_task(task: Task, config: Any) -> tuple[dict[str, dict[str, list[float]]], dict[str, Any]]:
    """Score one task: ({unit name: {column: values}}, notes with seconds and failures)."""
    set_threads(config.threads)
    start = time.monotonic()
    items = task.items
    notes: dict[str, Any] = {}
    specs = units(task.group, config, task.params, task.context)
    norm = _norm(config, task.group)
    if task.group == "codebleu":
        values, failures = codebleu_scores(items, norm)
        notes["failures"] = failures
    elif task.group == "chrf":
        values = chrf_scores(items, norm)
    elif task.group == "tsed":
        from .signals import tsed_scores

        values = tsed_scores(items, norm)
    elif task.group == "errors":
        from .signals import error_scores

        values = error_scores(items, norm)
    elif task.group == "canon":
        from .signals import canonical_scores

        values = canonical_scores(items, norm)
    elif task.group == "crystalbleu":
        from .signals import crystal_scores

        values = crystal_scores(items, task.params["ignored"], norm)
    elif task.group == "cbs":
        values = bert_scores(items, config.layers, [task.context], norm, progress=None,
                             encoder=_encoder(config.layers))
    else:
        raise ValueError(f"unknown metric group {task.group!r}")
    out = {spec.name: {col: values[name] for col, name in zip(spec.columns, spec.table_names)}
           for spec in specs}
    notes["seconds"] = time.monotonic() - start
    return out, notes
