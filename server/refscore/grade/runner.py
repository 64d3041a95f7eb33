"""The grading loop: cache look-ups, batched scoring through a ``Scorer``, progress, Ctrl-C.

The grader never computes a metric: it builds ``ScoreRequest`` objects and asks the Scorer (the
same pipeline the CLI and the editor use), then keeps the reports.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Sequence

from .. import __version__
from ..metrics.codebleu import DEFAULT_WEIGHTS
from ..scoring.pairing import FunctionPair
from ..scoring.per_function import score_functions
from ..scoring.report import ALL_METRICS, ScoreReport, ScoreRequest
from ..scoring.scorer import Scorer
from .cache import ReportCache
from .checks import submission_warnings
from .items import GradeItem
from .progress import Progress

INTERRUPTED = "not scored: the run was interrupted (rerun to finish; scored items are cached)"


@dataclass(frozen=True)
class GradeSettings:
    """Everything besides the texts that decides a score (part of the cache key)."""

    metrics: tuple[str, ...] = ALL_METRICS
    weights: tuple[float, float, float, float] = DEFAULT_WEIGHTS
    batch_size: int = 32
    scorer_tag: str = "model=default|layer=default"  # see ``scorer_tag``
    codebleu_rule: str = "native"
    model: str | None = None
    layer: int | None = None
    device: str | None = None
    idf: str | None = None
    per_function: bool = False  # also score each top-level function (not part of the cache key)
    backend: str | None = None  # encoder engine; in the cache key through ``scorer_tag`` only when approximate
    explain: bool = True  # token alignments and CodeBLEU explanations (the HTML report's detail)

    def cache_tag(self) -> str:
        """A stable string of the settings that change scores (not the batch size)."""
        tag = {"v": __version__, "metrics": list(self.metrics), "weights": list(self.weights),
               "scorer": self.scorer_tag}
        if not self.explain:  # reports without their detail: kept apart from those with it
            tag["explain"] = False
        if self.codebleu_rule != "native":  # native runs keep the cache keys they always had
            tag["codebleu_rule"] = self.codebleu_rule
        elif {"codebleu", "codebertscore"} <= set(self.metrics):
            from ..scoring.headline import headline_model

            model = headline_model()
            if model is not None:  # a new fit of the combined number is a new score
                tag["refscore"] = model["digest"]
        return json.dumps(tag, sort_keys=True)


def scorer_tag(model: str | None = None, layer: int | None = None, device: str | None = None,
               idf: str | None = None) -> str:
    """The CodeBERTScore part of the cache key (every engine gives the same numbers for it)."""
    tag = f"model={model or 'default'}|layer={'default' if layer is None else layer}"
    if device:  # half precision on a GPU may differ in the last digits
        tag += f"|device={device}"
    if idf:
        tag += f"|idf={idf}"
    return tag


@dataclass
class GradeResult:
    """One item and what became of it."""

    item: GradeItem
    report: ScoreReport | None = None
    cached: bool = False
    warnings: list[str] = field(default_factory=list)
    status_note: str | None = None  # e.g. interrupted before scoring
    functions: list[FunctionPair] | None = None  # with ``per_function``: each function's scores

    @property
    def errors(self) -> list[str]:
        """Every error: reading the input, scoring it, or not getting to it."""
        out = [self.item.error] if self.item.error else []
        if self.report is not None:
            out.extend(self.report.errors)
        if self.status_note:
            out.append(self.status_note)
        return out


@dataclass
class GradeRun:
    """The results of a run, in input order, and how it went."""

    results: list[GradeResult]
    interrupted: bool = False
    elapsed_s: float = 0.0
    scorer_s: float = 0.0  # wall time inside Scorer.score_many
    scored: int = 0
    from_cache: int = 0


def run_grading(items: Sequence[GradeItem], scorer: Scorer, settings: GradeSettings,
                cache: ReportCache | None = None, progress: Progress | None = None) -> GradeRun:
    """Score every scorable item not already in ``cache``; Ctrl-C stops after writing what was
    scored (the rest are marked as not scored)."""
    start = time.perf_counter()
    cache = cache if cache is not None else ReportCache(None)
    progress = progress if progress is not None else Progress(len(items), enabled=False)
    tag = settings.cache_tag()
    results = [GradeResult(item) for item in items]
    pending: list[tuple[GradeResult, str]] = []
    cached = skipped = 0
    for result in results:
        if not result.item.scorable:
            skipped += 1
            continue
        key = result.item.cache_key(tag)
        report = cache.get(key)
        if report is None:
            pending.append((result, key))
        else:
            result.report, result.cached = report, True
            cached += 1
    progress.update(cached=cached, skipped=skipped)
    run = GradeRun(results, from_cache=cached)
    size = max(1, settings.batch_size)
    try:
        for offset in range(0, len(pending), size):
            batch = pending[offset:offset + size]
            requests = [request_for(r.item, settings) for r, _ in batch]
            t0 = time.perf_counter()
            reports = scorer.score_many(requests)
            run.scorer_s += time.perf_counter() - t0
            fresh = []
            for (result, key), report in zip(batch, reports):
                result.report = report
                if not report.errors:
                    fresh.append((key, report))
            cache.put_many(fresh)
            run.scored += len(batch)
            progress.update(scored=len(batch))
    except KeyboardInterrupt:
        run.interrupted = True
        for result, _ in pending:
            if result.report is None:
                result.status_note = INTERRUPTED
    finally:
        cache.close()
        progress.close()
    for result in results:
        if result.report is not None and result.item.candidate is not None and result.item.language:
            result.warnings.extend(submission_warnings(result.item.candidate, result.item.language))
    if settings.per_function and not run.interrupted:
        _score_functions(results, scorer, settings)
    run.elapsed_s = time.perf_counter() - start
    return run


def request_for(item: GradeItem, settings: GradeSettings) -> ScoreRequest:
    """The request every engine sends for a scorable ``item`` under ``settings``."""
    assert item.candidate is not None and item.language is not None
    return ScoreRequest(candidate=item.candidate, references=item.references, language=item.language,
                        context=item.context, metrics=settings.metrics, weights=settings.weights,
                        explain=settings.explain, codebleu_rule=settings.codebleu_rule, model=settings.model,
                        layer=settings.layer, device=settings.device, idf=settings.idf, backend=settings.backend)


def _score_functions(results: Sequence[GradeResult], scorer: Scorer, settings: GradeSettings) -> None:
    """Per-function scores of every scored result (a failure leaves that result's list empty)."""
    for result in results:
        if result.report is None or result.item.candidate is None or result.item.language is None:
            continue
        try:
            result.functions = score_functions(request_for(result.item, settings), scorer)
        except Exception as error:  # noqa: BLE001 - the submission's own scores still stand
            result.functions = []
            result.warnings.append(f"per-function scores failed: {type(error).__name__}: {error}")
