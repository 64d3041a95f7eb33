"""lm-evaluation-harness metrics ``refscore_codebleu``, ``refscore_codebleu_native``,
``refscore_codebertscore`` and ``refscore_combined``, registered in the harness's registry when this module is imported (the
harness has no plugin entry points for metrics; ``examples/lm-eval/utils.py`` imports it from a
task folder, or ``import refscore.harness.lm_eval_metrics`` before ``lm_eval.simple_evaluate``).

In a task YAML (``output_type: generate_until``)::

    metric_list:
      - metric: refscore_codebleu        # corpus CodeBLEU (codebleu.calc_codebleu's number)
        lang: python
      - metric: refscore_codebleu_native # mean per-sample CodeBLEU, RefScore's native rule
        lang: python
      - metric: refscore_codebertscore   # mean of per-sample F1 (part: f3 for F3)
        lang: python
      - metric: refscore_combined        # mean of per-sample combined RefScore
        lang: python

Each document's metric call keeps (reference, completion, options); the aggregation scores all
of a run's documents in one batch through ``refscore.harness.metrics``, so the numbers are
``refscore.score`` / ``score_corpus``'s, the CLI's.
"""

from __future__ import annotations

from typing import Any, Sequence

from lm_eval.api.registry import register_aggregation, register_metric

from . import metrics as harness

Item = tuple[Any, str, tuple[tuple[str, Any], ...]]


def _keep(references: Sequence[Any], predictions: Sequence[str], **options: Any) -> Item:
    """One document's (reference or references, completion, options) for the aggregation."""
    reference = references[0]
    return (list(reference) if isinstance(reference, (list, tuple)) else str(reference), str(predictions[0]),
            tuple(sorted(options.items())))


def _groups(items: Sequence[Item], metric: str) -> list[tuple[dict[str, Any], list[str], list[Any]]]:
    """Items split by their options (one YAML entry gives one set), order kept. A bare number in
    place of an item is lm-eval's ``1.0 if any(...)`` for a list of targets: refused in words."""
    out: dict[tuple[tuple[str, Any], ...], tuple[list[str], list[Any]]] = {}
    for item in items:
        if not isinstance(item, tuple) or len(item) != 3:
            raise ValueError(
                f"{metric}: lm-eval gave this metric {item!r} for a document instead of its (reference, "
                "completion): the task's doc_to_target gives a list of references, and lm-eval 0.4 calls a "
                "metric once per reference and keeps only whether any call was truthy. Give one reference "
                "per document, or log the samples and grade them with `refscore grade --jsonl` (a list "
                "of references per line; docs/harness.md)")
        reference, prediction, options = item
        predictions, references = out.setdefault(options, ([], []))
        predictions.append(prediction)
        references.append(reference)
    return [(dict(options), preds, refs) for options, (preds, refs) in out.items()]


def _mean(values: Sequence[float | None]) -> float:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else float("nan")


@register_aggregation("refscore_codebleu_corpus")
def codebleu_corpus(items: Sequence[Item]) -> float:
    """Corpus CodeBLEU of all documents (one option set expected; several are averaged)."""
    values = []
    for options, predictions, references in _groups(items, "refscore_codebleu"):
        lang = options.pop("lang", "python")
        values.append(harness.codebleu_values(predictions, references, lang, **options)["codebleu"])
    return _mean(values)


@register_aggregation("refscore_codebleu_native_mean")
def codebleu_native_mean(items: Sequence[Item]) -> float:
    """Mean per-sample CodeBLEU under RefScore's native rule (a name of its own: ``refscore_codebleu``
    is the package's rule)."""
    values: list[float | None] = []
    for options, predictions, references in _groups(items, "refscore_codebleu_native"):
        lang = options.pop("lang", "python")
        values.extend(harness.codebleu_native_values(predictions, references, lang, **options))
    return _mean(values)


@register_aggregation("refscore_codebertscore_mean")
def codebertscore_mean(items: Sequence[Item]) -> float:
    """Mean per-sample CodeBERTScore (``part``: precision, recall, f1 (default) or f3)."""
    values: list[float | None] = []
    for options, predictions, references in _groups(items, "refscore_codebertscore"):
        lang, part = options.pop("lang", "python"), options.pop("part", "f1")
        values.extend(harness.codebertscore_values(predictions, references, lang, **options)[part])
    return _mean(values)


@register_aggregation("refscore_combined_mean")
def combined_mean(items: Sequence[Item]) -> float:
    """Mean per-sample combined RefScore number."""
    values: list[float | None] = []
    for options, predictions, references in _groups(items, "refscore_combined"):
        lang = options.pop("lang", "python")
        values.extend(harness.combined_values(predictions, references, lang, **options)["refscore"])
    return _mean(values)


@register_metric(metric="refscore_codebleu", higher_is_better=True, output_type="generate_until",
                 aggregation="refscore_codebleu_corpus")
def refscore_codebleu(references: Sequence[Any], predictions: Sequence[str], **options: Any) -> Item:
    return _keep(references, predictions, **options)


@register_metric(metric="refscore_codebleu_native", higher_is_better=True, output_type="generate_until",
                 aggregation="refscore_codebleu_native_mean")
def refscore_codebleu_native(references: Sequence[Any], predictions: Sequence[str], **options: Any) -> Item:
    return _keep(references, predictions, **options)


@register_metric(metric="refscore_codebertscore", higher_is_better=True, output_type="generate_until",
                 aggregation="refscore_codebertscore_mean")
def refscore_codebertscore(references: Sequence[Any], predictions: Sequence[str], **options: Any) -> Item:
    return _keep(references, predictions, **options)


@register_metric(metric="refscore_combined", higher_is_better=True, output_type="generate_until",
                 aggregation="refscore_combined_mean")
def refscore_combined(references: Sequence[Any], predictions: Sequence[str], **options: Any) -> Item:
    return _keep(references, predictions, **options)
