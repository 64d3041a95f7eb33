"""The stages of scoring, named once. Every engine composes these and nothing else.

::

    prepare(request)                      -> Prepared      pragma lines out: the text every metric reads
    cpu_metrics(prepared)                 -> CpuScores     CodeBLEU, chrF, TSED, behaviour (one request, CPU;
                                                           behaviour runs both programs in a sandbox)
    model_metrics(prepared..., defaults)  -> ModelScores   CodeBERTScore, many requests batched
    corpus_statistics(prepared...)        -> CorpusStatistics   CrystalBLEU's ignored n-grams, a whole set
    corpus_metrics(prepared, statistics)  -> CorpusScores  CrystalBLEU of one request
    finish(prepared, cpu, model, corpus)  -> ScoreReport   the combined number; the report, built once,
      checks(request, report, combined)   -> Checks          with its checks: parse errors (the parser's line) and
                                                           bidi controls of every text, why a metric or the
                                                           combined number did not run (``scoring.checks``)
    differences(request, report)          -> Differences   where the candidate departs from its reference,
                                                           ranked (after the report is whole: the editor's
                                                           gets its CodeBERTScore half later)

``run_stages`` runs them over a batch in this process (``LocalScorer``, the grader's local engine);
given the CPU stage's results it runs the rest (Ray: the CPU stage in tasks, ``run_stages`` in the
model's actors). The daemon's engine runs the CPU stage in its thread pool (large texts in a
worker process), the model stage in its batcher, and ``finish``. The editor runs the CPU stage
here, the model stage through the daemon, and ``finish`` here on both (``lsp.loop``). A report
made by another engine without the corpus stage gets it through ``with_corpus``, which finishes
again from the report's parts (the daemon's client, for a grading run's CrystalBLEU). Each stage
reports what it could not compute as error lines of its own; ``finish`` puts them in the report
in stage order, and the checks stage records what front ends used to work out again (the grader's
warnings and ``parse_error``, the editor's bidi diagnostics, why the combined number is missing).
Nothing else makes or changes a ``ScoreReport`` (it is frozen).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from typing import Iterable, Mapping, Sequence

from ..behaviour.result import BehaviourResult
from ..metrics.crystalbleu import IgnoredNgrams
from ..metrics.differences import Differences
from .budget import over_budget
from .checks import Checks, checks
from .headline import combined_for
from .headline_behaviour import with_behaviour
from ..settings_schema import NO_ENCODER_CHOICE, EncoderChoice
from .parts import (NO_CORPUS, NO_CPU, NO_MODEL, CorpusScores, CpuScores, Metrics, ModelScores, Prepared,
                    with_defaults)
from .pragma import without_pragmas
from .report import BEHAVIOUR_METRICS, TEXT_METRICS, ScoreReport, ScoreRequest

log = logging.getLogger(__name__)

__all__ = ["Checks", "CorpusScores", "CorpusStatistics", "CpuScores", "EncoderChoice", "ModelScores", "Prepared",
           "checks", "checks_of", "corpus_metrics", "corpus_statistics", "cpu_metrics", "differences", "finish", "model_metrics",
           "prepare", "cpu_stage", "run_stages", "wants_cpu", "wants_model", "with_corpus", "without_corpus"]

#: The metrics of the CPU stage.
CPU_METRICS = ("codebleu", *TEXT_METRICS, *BEHAVIOUR_METRICS)


# -- prepare ------------------------------------------------------------------------------------

def prepare(request: ScoreRequest) -> Prepared:
    """``request`` with its candidate's pragma lines removed (offsets kept to map back)."""
    return Prepared(request, without_pragmas(request.candidate, request.language))


def wants_cpu(request: ScoreRequest) -> bool:
    """Whether ``request`` names a metric of the CPU stage."""
    return any(m in CPU_METRICS for m in request.metrics)


def wants_model(request: ScoreRequest) -> bool:
    """Whether ``request`` asks for CodeBERTScore."""
    return "codebertscore" in request.metrics


# -- CPU metrics --------------------------------------------------------------------------------

def cpu_metrics(prepared: Prepared, behaviour: BehaviourResult | None = None) -> CpuScores:
    """CodeBLEU, chrF, TSED and behaviour, those the request names; each failure is one error line.
    ``behaviour``: the request's behaviour when it was run already (``behaviour_batch``)."""
    request, errors = prepared.request, []
    codebleu = None
    budgeted = [m for m in ("codebleu", *TEXT_METRICS) if m in request.metrics]  # they parse or count the text
    too_large = over_budget(prepared.text, request.references) if budgeted else None
    if too_large:
        errors.extend(f"{metric}: {too_large}" for metric in budgeted)
    elif "codebleu" in request.metrics:
        from .codebleu import score_codebleu
        from .corpus import corpus_codebleu_compat

        try:
            if request.codebleu_rule == "compat":  # the package's numbers, as calc_codebleu gives them
                codebleu = corpus_codebleu_compat([list(request.references)], [prepared.text], request.language,
                                                  request.weights)
            else:  # explanations are spans of the references: nothing to map back
                codebleu = score_codebleu(request.references, prepared.text, request.language, request.weights,
                                          explain=request.explain)
        except MemoryError:
            log.warning("CodeBLEU ran out of memory")
            errors.append("codebleu: out of memory (not scored)")
        except Exception as error:  # noqa: BLE001 - one failing request reports, the rest go on
            log.exception("CodeBLEU failed")
            errors.append(f"codebleu: {type(error).__name__}: {error}")
    text = {name: _text_metric(name, prepared, errors) for name in TEXT_METRICS
            if name in request.metrics and not too_large}
    if "behaviour" in request.metrics and behaviour is None:
        behaviour = behaviour_of(prepared)
    if codebleu is None and not text and not errors and behaviour is None:
        return NO_CPU
    return CpuScores(codebleu, text.get("chrf"), text.get("tsed"), tuple(errors), behaviour)  # type: ignore[arg-type]


#: Requests whose behaviour runs at once (each mostly waits for its sandboxed processes).
BEHAVIOUR_THREADS = max(2, min(16, 4 * (os.cpu_count() or 1)))


def behaviour_batch(prepared: Sequence[Prepared]) -> dict[int, BehaviourResult]:
    """Behaviour of every request that asks for it, several at a time: first one request per
    distinct reference (its inputs are made and run once, then cached), then the rest."""
    wanted = [i for i, p in enumerate(prepared) if "behaviour" in p.request.metrics]
    if len(wanted) < 2:
        return {}
    from concurrent.futures import ThreadPoolExecutor

    first: dict[tuple, int] = {}
    for i in wanted:
        request = prepared[i].request
        first.setdefault((request.references, request.language, request.inputs), i)
    leaders = list(first.values())
    led = set(leaders)
    rest = [i for i in wanted if i not in led]
    with ThreadPoolExecutor(max_workers=BEHAVIOUR_THREADS, thread_name_prefix="behaviour") as pool:
        results = dict(zip(leaders, pool.map(lambda i: behaviour_of(prepared[i]), leaders)))
        results.update(zip(rest, pool.map(lambda i: behaviour_of(prepared[i]), rest)))
    return results


def behaviour_of(prepared: Prepared) -> BehaviourResult:
    """The candidate run beside each distinct reference (``behaviour.run_behaviour``): the best
    agreement when there are several; a result that says why when it did not run."""
    from ..behaviour import BehaviourSettings, run_behaviour

    request = prepared.request
    settings = BehaviourSettings(inputs=request.inputs, allow_unsandboxed=request.unsandboxed)
    best: BehaviourResult | None = None
    for reference in dict.fromkeys(request.references):
        try:
            result = run_behaviour(reference, prepared.text, request.language, settings)
        except Exception as error:  # noqa: BLE001 - one failing request reports, the rest go on
            log.exception("behaviour failed")
            result = BehaviourResult.skipped(f"{type(error).__name__}: {error}")
        if best is None or (result.agreement or -1.0) > (best.agreement or -1.0):
            best = result
    return best if best is not None else BehaviourResult.skipped("no reference")


def _text_metric(name: str, prepared: Prepared, errors: list[str]) -> object | None:
    """chrF or TSED of ``prepared`` (None, and an error line, when it cannot be computed)."""
    request = prepared.request
    try:
        if name == "chrf":
            from ..metrics.chrf import score_chrf

            return score_chrf(prepared.text, request.references)
        from ..metrics.tsed import score_tsed

        return score_tsed(prepared.text, request.references, request.language)
    except (ImportError, ValueError, RecursionError) as error:
        log.info("%s not computed: %s", name, error)
        errors.append(f"{name}: {error}")
        return None


# -- the model ----------------------------------------------------------------------------------

def model_metrics(prepared: Sequence[Prepared], defaults: EncoderChoice = NO_ENCODER_CHOICE) -> list[ModelScores]:
    """CodeBERTScore of each request; requests that share a scorer go in one batch (the daemon
    batches across its clients through this). ``defaults`` fill the settings a request leaves unset."""
    if not prepared:
        return []
    requests = [replace(with_defaults(p.request, defaults), candidate=p.text) for p in prepared]
    try:
        from .bert import score_requests

        scored = score_requests(requests)
    except ImportError as error:
        return [ModelScores(errors=(f"codebertscore unavailable: {error}",)) for _ in prepared]
    return [replace(s, codebertscore=p.stripped.restore_bert(s.codebertscore)) if s.codebertscore is not None else s
            for p, s in zip(prepared, scored)]


# -- corpus metrics -----------------------------------------------------------------------------

@dataclass(frozen=True)
class CorpusStatistics:
    """What the corpus metrics learn from a whole set of texts: CrystalBLEU's ignored n-grams per
    language, or the line that says why a language has none."""

    ignored: Mapping[str, IgnoredNgrams | str]


def corpus_statistics(prepared: Iterable[Prepared]) -> CorpusStatistics:
    """CrystalBLEU's ignored n-grams of each language, from every candidate and reference of the
    requests that ask for CrystalBLEU (each distinct text counted once)."""
    from ..metrics.crystalbleu import corpus_ignored

    groups: dict[str, list[Prepared]] = {}
    for item in prepared:  # a request over the budget (``scoring.budget``) adds nothing to the corpus
        if "crystalbleu" in item.request.metrics and over_budget(item.text, item.request.references) is None:
            groups.setdefault(item.language, []).append(item)
    ignored: dict[str, IgnoredNgrams | str] = {}
    for language, group in groups.items():
        texts = [(p.text, language) for p in group] + [(ref, language) for p in group for ref in p.request.references]
        try:
            ignored[language] = corpus_ignored(texts)
        except ValueError as error:
            ignored[language] = str(error)
    return CorpusStatistics(ignored)


def corpus_metrics(prepared: Prepared, statistics: CorpusStatistics) -> CorpusScores:
    """CrystalBLEU of one request against the set's ignored n-grams (when it asks for it)."""
    if "crystalbleu" not in prepared.request.metrics:
        return NO_CORPUS
    too_large = over_budget(prepared.text, prepared.request.references)
    if too_large is not None:
        return CorpusScores(errors=(f"crystalbleu: {too_large}",))
    from ..metrics.crystalbleu import score_crystalbleu

    ignored = statistics.ignored.get(prepared.language, f"no corpus statistics for {prepared.language}")
    if isinstance(ignored, str):
        return CorpusScores(errors=(f"crystalbleu: {ignored}",))
    try:
        return CorpusScores(score_crystalbleu(prepared.text, prepared.request.references, prepared.language, ignored))
    except (ValueError, RecursionError) as error:
        return CorpusScores(errors=(f"crystalbleu: {error}",))


# -- finish -------------------------------------------------------------------------------------

def finish(prepared: Prepared, cpu: CpuScores = NO_CPU, model: ModelScores = NO_MODEL,
           corpus: CorpusScores = NO_CORPUS) -> ScoreReport:
    """The report of one request, built once: every stage's results and errors, the combined
    RefScore number when the shipped fit applies (``scoring.headline``), and its checks."""
    request = prepared.request
    combined, why = combined_for(request, Metrics(cpu.codebleu, model.codebertscore, cpu.chrf, cpu.tsed))
    report = ScoreReport(request.language, codebleu=cpu.codebleu, codebertscore=model.codebertscore,
                         errors=(*cpu.errors, *model.errors, *corpus.errors), chrf=cpu.chrf, tsed=cpu.tsed,
                         crystalbleu=corpus.crystalbleu, refscore=with_behaviour(combined, cpu.behaviour),
                         behaviour=cpu.behaviour)
    return replace(report, checks=checks(request, report, why))


def checks_of(request: ScoreRequest, report: ScoreReport) -> Checks:
    """A finished report's checks (what front ends render); the stage is run here only for a
    report made without it (by a scoring daemon of older code than this client's)."""
    if report.checks is not None:
        return report.checks
    return checks(request, report, combined_for(request, report)[1])


def differences(request: ScoreRequest, report: ScoreReport) -> Differences:
    """The ranked differences of a finished report's candidate from its reference (CodeBLEU's
    explanations placed on the candidate; ``scoring.differences``). The CLI, the language server
    and the grader call this on the report they show. None over the budget (``scoring.budget``)."""
    from .differences import find_differences

    too_large = over_budget(request.candidate, request.references)
    if too_large:
        return Differences(note=too_large)
    return find_differences(request.candidate, request.references, report, request.language)


# -- the in-process engine ----------------------------------------------------------------------

def cpu_stage(requests: Sequence[ScoreRequest]) -> list[CpuScores]:
    """The CPU stage of each request (nothing for one that names no CPU metric)."""
    return _cpu_of([prepare(r) for r in requests])


def _cpu_of(prepared: Sequence[Prepared]) -> list[CpuScores]:
    """The CPU stage of prepared requests: their behaviour several at a time, then one by one."""
    ran = behaviour_batch(prepared)
    return [cpu_metrics(p, ran.get(i)) if wants_cpu(p.request) else NO_CPU for i, p in enumerate(prepared)]


def run_stages(requests: Sequence[ScoreRequest], defaults: EncoderChoice = NO_ENCODER_CHOICE,
               statistics: CorpusStatistics | None = None,
               cpu: Sequence[CpuScores] | None = None) -> list[ScoreReport]:
    """Every stage over ``requests`` in this process: CPU metrics one by one (or ``cpu``, the CPU
    stage's results made elsewhere), CodeBERTScore in one batched call, corpus metrics against
    ``statistics`` (None: none), one finished report each."""
    prepared = [prepare(r) for r in requests]
    if cpu is None:
        cpu = _cpu_of(prepared)
    model = [NO_MODEL] * len(prepared)
    wanted = [i for i, p in enumerate(prepared) if wants_model(p.request)]
    for i, scores in zip(wanted, model_metrics([prepared[i] for i in wanted], defaults)):
        model[i] = scores
    corpus = [corpus_metrics(p, statistics) if statistics is not None else NO_CORPUS for p in prepared]
    return [finish(*parts) for parts in zip(prepared, cpu, model, corpus)]


def without_corpus(request: ScoreRequest) -> ScoreRequest:
    """``request`` for an engine that has no corpus statistics (the daemon)."""
    if "crystalbleu" not in request.metrics:
        return request
    return replace(request, metrics=tuple(m for m in request.metrics if m != "crystalbleu"))


def with_corpus(requests: Sequence[ScoreRequest], reports: Sequence[ScoreReport],
                statistics: CorpusStatistics | None) -> list[ScoreReport]:
    """The corpus and finish stages for reports another engine made from ``without_corpus``
    requests: each one that asks for CrystalBLEU is finished again from its parts; the others
    are returned as they are."""
    if statistics is None:
        return list(reports)
    out = []
    for request, report in zip(requests, reports):
        if "crystalbleu" in request.metrics:
            prepared = prepare(request)
            report = finish(prepared, CpuScores.of(report), ModelScores(report.codebertscore),
                            corpus_metrics(prepared, statistics))
        out.append(report)
    return out
