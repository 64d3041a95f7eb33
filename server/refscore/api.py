"""The plain Python API: ``refscore.score`` (per-sample) and ``refscore.score_corpus`` (corpus).

A thin layer over the one scoring pipeline (``engines.open_scorer`` and ``ScoreRequest``, which the CLI,
the editor and the grader use), so the numbers are ``refscore score --json``'s::

    import refscore
    rows = refscore.score(["def f(a):\\n    return a + 1"], ["def f(x):\\n    return x + 1"],
                          language="python", metrics=("codebleu", "codebertscore"))
    rows[0].codebleu_native, rows[0].codebertscore_f1, rows[0].refscore
    refscore.score_corpus(candidates, references, language="python").codebleu

Several references per candidate: give a list of references in place of one. How each metric
combines them is ``aggregation`` (``api_types.AGGREGATIONS``): by default the best reference, but
CodeBLEU under the compat rule pools them as ``codebleu.calc_codebleu`` does.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence, Union

from .api_types import AGGREGATIONS, BERT_KEYS, CorpusScore, SampleScore, codebleu_default, mean_of
from .errors import ScoreInputError, refuse_one_string
from .safe_read import user_path
from .vocabulary import codebleu_name
from .settings_schema import (ALL_METRICS, BEHAVIOUR_METRICS, DEFAULT_METRICS, DEFAULT_SETTINGS, IDF_FROM_REFERENCES,
                              IDF_ONE_REFERENCE, TEXT_METRICS, BadSetting, EncoderChoice, ScoreSettings, SettingError,
                              idf_lacks_references, shown)

if TYPE_CHECKING:  # pragma: no cover
    from .scoring.report import ScoreReport, ScoreRequest
    from .scoring.scorer import Scorer

References = Sequence[Union[str, Sequence[str]]]
#: metrics ``score`` computes (CrystalBLEU needs a whole run: ``refscore grade``)
API_METRICS = (*ALL_METRICS, *TEXT_METRICS, *BEHAVIOUR_METRICS)


def score(candidates: Sequence[str], references: References, language: str,
          metrics: Sequence[str] = DEFAULT_METRICS, context: str | Sequence[str | None] | None = None, *,
          aggregation: str | Mapping[str, str] | None = None,
          codebleu_rule: str = DEFAULT_SETTINGS.codebleu_rule, weights: Sequence[float] = DEFAULT_SETTINGS.weights,
          model: str | None = None, layer: int | None = None, device: str | None = None, idf: str | None = None,
          backend: str | None = None, scorer: Union[str, "Scorer"] = "local", inputs: str | None = None,
          unsandboxed: bool = False) -> list[SampleScore]:
    """Per-sample scores: one ``SampleScore`` per candidate, in order.

    ``references``: one reference (a string) or several (a list of strings) per candidate.
    ``context``: the task's natural-language intent for CodeBERTScore, one for all or one per
    candidate. ``aggregation``: how several references combine, one name for every metric that
    allows it or ``{metric: name}`` (``api_types.AGGREGATIONS``). ``scorer``: ``"local"`` (this
    process), ``"daemon_or_local"``, ``"daemon"`` (``open_scorer``'s policies) or a Scorer to use
    (not closed here). ``inputs``: behaviour's inputs file, its text (one call per line);
    ``unsandboxed``: run behaviour without a sandbox where none is available (a warning). Bad
    arguments raise ``ScoreInputError`` (a ValueError and an AssertionError).
    """
    requests = build_requests(candidates, references, language, context, {
        "metrics": metrics, "codebleu_rule": codebleu_rule, "weights": weights, "model": model, "layer": layer,
        "device": device, "idf": idf, "backend": backend, "inputs": inputs, "unsandboxed": unsandboxed})
    chosen = resolve_aggregation(aggregation, requests[0].metrics if requests else tuple(metrics), codebleu_rule)
    with _scorer(scorer) as engine:
        reports = engine.score_many(requests)
        per_reference = _per_reference_reports(engine, requests, chosen)
    return [sample(q, r, per_reference.get(i), chosen) for i, (q, r) in enumerate(zip(requests, reports))]


def score_corpus(candidates: Sequence[str], references: References, language: str,
                 metrics: Sequence[str] = DEFAULT_METRICS, context: str | Sequence[str | None] | None = None,
                 *, weights: Sequence[float] = DEFAULT_SETTINGS.weights, **options: Any) -> CorpusScore:
    """Corpus scores: CodeBLEU as corpus statistics (``codebleu.calc_codebleu``'s one number for
    the corpus, the package's rule), the other metrics as means of the per-sample scores, which
    are kept under ``samples``. ``options`` are ``score``'s."""
    metrics = _metrics(metrics)  # the names as ``score`` reads them ("CodeBLEU" is codebleu)
    samples = score(candidates, references, language, metrics, context, weights=weights, **options)
    spec_name = samples[0].language if samples else _language(language)
    values: dict[str, float | None] = {}
    how: dict[str, str] = {}
    signatures: dict[str, str] = {}
    if "codebleu" in metrics and samples:
        from .scoring.corpus import corpus_codebleu_compat

        refs = [(r,) if isinstance(r, str) else tuple(r) for r in references]  # checked by ``score``
        result = corpus_codebleu_compat(refs, list(candidates), spec_name, _corpus_weights(weights, options))
        values.update(result.as_package_dict())
        how["codebleu"] = "corpus statistics (codebleu.calc_codebleu, package rule)"
        signatures["codebleu"] = result.signature
    for name, keys in (("codebertscore", [f"codebertscore_{k}" for k in BERT_KEYS]), ("chrf", ["chrf"]),
                       ("tsed", ["tsed"]), ("behaviour", ["behaviour"]), ("refscore", ["refscore"])):
        if name in metrics or (name == "refscore" and any(s.refscore is not None for s in samples)):
            for key in keys:
                values[key] = mean_of(getattr(s, key) for s in samples)
            how[name] = "mean of per-sample"
            sample_signature = next((dict(s.signatures).get(name) for s in samples if dict(s.signatures).get(name)), None)
            if sample_signature:
                signatures[name] = sample_signature
    return CorpusScore(language=spec_name, samples=tuple(samples), corpus_aggregation=tuple(how.items()),
                       signatures=tuple(signatures.items()), **values)


def build_requests(candidates: Sequence[str], references: References, language: str,
                   context: str | Sequence[str | None] | None, given: Mapping[str, Any]) -> list["ScoreRequest"]:
    """One pipeline request per candidate, every argument checked (``ScoreInputError``): the
    settings that change a number (``given``, by their ``SETTINGS`` names) by the settings schema,
    the texts and the language by the one request builder (``scoring.requests``), as the CLI,
    editor and daemon check them."""
    from .scoring.requests import build_request

    language = _language(language)
    refuse_one_string("candidate", candidates=candidates, references=references)
    candidates, references = list(candidates), list(references)
    if len(candidates) != len(references):
        raise ScoreInputError(f"{len(candidates)} candidates but {len(references)} references; "
                              "give one reference (or a list of references) per candidate")
    settings = _settings(given)
    contexts = _contexts(context, len(candidates))
    requests = [build_request(text, refs, language, ctx, settings=settings, explain=False,
                              names=lambda field, index=index: _named(field, index))
                for index, (text, refs, ctx) in enumerate(zip(candidates, references, contexts))]
    if "codebertscore" in settings.metrics:
        _check_encoder(settings.encoder, language)
    if idf_lacks_references(settings, len({t for r in requests for t in r.references})):
        raise ScoreInputError(f"idf='references' {IDF_ONE_REFERENCE}: give an IDF file or more references")
    return requests


def _language(language: Any) -> str:
    """The registry's name for ``language`` (``ScoreInputError`` when it is none)."""
    from .scoring.requests import checked_language

    return checked_language(language, "language")


def _named(field: str, index: int) -> str:
    """How the API's messages name a field of candidate ``index``."""
    return f"candidate {index}" if field == "candidate" else f"the {field} of candidate {index}"


def _settings(given: Mapping[str, Any]) -> ScoreSettings:
    """The settings ``score`` was given, checked by the schema's rules (``ScoreInputError`` naming
    the one refused), an IDF file and a model folder as absolute paths (requests may travel to
    the daemon, which has another working folder)."""
    values = dict(given)
    values["metrics"] = _metrics(values["metrics"])  # the names as ``score`` reads them ("CodeBLEU" is codebleu)
    if not isinstance(values["weights"], str):
        values["weights"] = tuple(values["weights"])
    if values["inputs"] is not None and not isinstance(values["inputs"], str):
        raise ScoreInputError(f"inputs is {type(values['inputs']).__name__}: give the inputs file's text (a str) "
                              "or None")
    values["unsandboxed"] = bool(values["unsandboxed"])
    try:
        settings = ScoreSettings.checked(values)
    except BadSetting as error:
        raise ScoreInputError(f"{error.name} {shown(error.value)}: {error}") from None
    from .embed.model_check import portable_model

    encoder = settings.encoder
    idf = encoder.idf
    if idf not in (None, IDF_FROM_REFERENCES):
        idf = str(user_path(idf).resolve())
    return replace(settings, encoder=replace(encoder, model=portable_model(encoder.model), idf=idf))


def _check_encoder(choice: EncoderChoice, language: str) -> None:
    """A model this machine lacks, a layer the model lacks, an IDF file that cannot be read or a
    device this torch cannot use, refused before scoring as on the command line
    (``embed.model_check``), not a CodeBERTScore of None in every row."""
    from .embed import ModelNotAvailableError
    from .embed.files import load_idf
    from .embed.model_check import check_model_and_layer, device_problem
    from .errors import InputFileError

    try:
        check_model_and_layer(choice, (language,))
    except ModelNotAvailableError as error:
        raise ScoreInputError(str(error)) from None  # it names the model
    except SettingError as error:
        raise ScoreInputError(f"layer {choice.layer}: {error}") from None
    if choice.idf is not None and choice.idf != IDF_FROM_REFERENCES:
        try:
            load_idf(choice.idf)
        except (ValueError, InputFileError) as error:
            raise ScoreInputError(f"idf {shown(choice.idf)}: {error}") from None
    problem = device_problem(choice.device) if choice.device else None
    if problem is not None:
        raise ScoreInputError(f"device {shown(choice.device)}: {problem}")


def _default(name: str, rule: str) -> str:
    """The pipeline's own aggregation of ``name`` under CodeBLEU ``rule``."""
    return codebleu_default(rule) if name == "codebleu" else AGGREGATIONS[name][0]


def resolve_aggregation(aggregation: str | Mapping[str, str] | None, metrics: Sequence[str],
                        codebleu_rule: str = "native") -> dict[str, str]:
    """metric -> aggregation for every metric asked (and RefScore): the default unless chosen.
    Pooled CodeBLEU statistics are the compat rule's (the native rule takes the best reference)."""
    chosen = {name: _default(name, codebleu_rule) for name in AGGREGATIONS if name in metrics or name == "refscore"}
    return chosen if aggregation is None else _chosen(aggregation, chosen, codebleu_rule)


def _chosen(aggregation: str | Mapping[str, str], chosen: dict[str, str], codebleu_rule: str) -> dict[str, str]:
    """``chosen`` with the asked aggregations in place (``ScoreInputError`` for one that cannot be)."""
    if codebleu_rule != "compat" and "codebleu" in chosen and (
            aggregation == "pooled" or (isinstance(aggregation, Mapping) and aggregation.get("codebleu") == "pooled")):
        raise ScoreInputError("aggregation 'pooled' for codebleu is the package's multi-reference rule: "
                              "use codebleu_rule='compat' (the native rule takes the best reference, or 'mean')")
    if isinstance(aggregation, str):
        for name in chosen:
            if aggregation in AGGREGATIONS[name]:
                chosen[name] = aggregation
        if not any(aggregation in AGGREGATIONS[name] for name in chosen):
            raise ScoreInputError(f"aggregation {aggregation!r} applies to none of {', '.join(chosen)}; "
                                  f"choices: {_choices()}")
        return chosen
    for name, value in dict(aggregation).items():
        if name not in AGGREGATIONS:
            raise ScoreInputError(f"aggregation for unknown metric {name!r}; metrics: {', '.join(AGGREGATIONS)}")
        if value not in AGGREGATIONS[name]:
            raise ScoreInputError(f"aggregation {value!r} for {name}; choose from {', '.join(AGGREGATIONS[name])}")
        chosen[name] = value
    return chosen


def sample(request: "ScoreRequest", report: "ScoreReport", singles: list["ScoreReport"] | None,
           chosen: Mapping[str, str]) -> SampleScore:
    """The typed per-sample row of one report (``singles``: its one-reference reports, when a
    metric combines references by ``max`` or ``mean``)."""
    values: dict[str, Any] = {}
    signatures: dict[str, str] = {}
    errors = list(report.errors)
    if report.codebleu is not None:
        values.update(report.codebleu.named_values())
        signatures["codebleu"] = report.codebleu.signature  # the metric; its signature names the rule
    if report.codebertscore is not None:
        bert = report.codebertscore
        values.update({f"codebertscore_{k}": getattr(bert, k) for k in BERT_KEYS})
        signatures["codebertscore"] = bert.signature
    for name in ("chrf", "tsed", "behaviour"):
        result = getattr(report, name)
        if result is not None:
            values[name] = result.score
            signatures[name] = result.signature
    if report.refscore is not None:
        values["refscore"] = report.refscore.score
        signatures["refscore"] = report.refscore.signature
    if singles:
        values.update(_combined(singles, chosen))
        errors.extend(e for single in singles for e in single.errors if e not in errors)
    used = tuple((name, how) for name, how in chosen.items() if name in request.metrics or name == "refscore")
    return SampleScore(language=request.language, references=len(request.references), aggregation=used,
                       signatures=tuple(signatures.items()), errors=tuple(errors), report=report, **values)


def _combined(singles: list["ScoreReport"], chosen: Mapping[str, str]) -> dict[str, float | None]:
    """The values of the metrics aggregated by ``max`` or ``mean`` over one-reference reports."""
    out: dict[str, float | None] = {}
    how = chosen.get("codebleu")
    if how in ("max", "mean") and all(s.codebleu is not None for s in singles):
        rows = [s.codebleu.named_values() for s in singles]  # type: ignore[union-attr]
        name = codebleu_name(singles[0].codebleu.rule)  # type: ignore[union-attr]
        if how == "max":  # the best reference's CodeBLEU, with its components
            out.update(max(rows, key=lambda row: row[name]))
        else:
            out.update({key: sum(row[key] for row in rows) / len(rows) for key in rows[0]})
    how = chosen.get("codebertscore")
    if how == "mean" and all(s.codebertscore is not None for s in singles):
        for key in BERT_KEYS:
            out[f"codebertscore_{key}"] = sum(getattr(s.codebertscore, key) for s in singles) / len(singles)
    for name in ("chrf", "tsed"):
        if chosen.get(name) == "mean" and all(getattr(s, name) is not None for s in singles):
            out[name] = sum(getattr(s, name).score for s in singles) / len(singles)
    return out


def _per_reference_reports(engine: "Scorer", requests: Sequence["ScoreRequest"],
                           chosen: Mapping[str, str]) -> dict[int, list["ScoreReport"]]:
    """One-reference reports of each multi-reference request, for the metrics whose aggregation
    is not the one the pipeline applies (CodeBLEU's other than its rule's, the others' mean)."""
    rule = requests[0].codebleu_rule if requests else "native"
    needed = tuple(name for name, how in chosen.items()
                   if name != "refscore" and how != _default(name, rule))
    wanted = [i for i, request in enumerate(requests) if len(request.references) > 1]
    if not needed or not wanted:
        return {}
    singles = [replace(requests[i], references=(ref,), metrics=tuple(m for m in requests[i].metrics if m in needed))
               for i in wanted for ref in requests[i].references]
    reports = iter(engine.score_many(singles))
    return {i: [next(reports) for _ in requests[i].references] for i in wanted}


class _scorer:
    """A context manager over ``open_scorer(policy)`` (closed at the end) or a Scorer given."""

    def __init__(self, scorer: Union[str, "Scorer"]) -> None:
        self.given = scorer
        self.engine: Any = None

    def __enter__(self) -> "Scorer":
        if not isinstance(self.given, str):
            self.engine = self.given
            return self.engine
        from .engines import open_scorer

        try:
            self.engine = open_scorer(self.given, autostart=self.given != "local")  # type: ignore[arg-type]
        except ValueError as error:
            raise ScoreInputError(str(error)) from None
        return self.engine

    def __exit__(self, *exc: object) -> None:
        for note in getattr(self.engine, "notes", ()):
            warnings.warn(f"refscore: {note}", RuntimeWarning, stacklevel=3)
        if isinstance(self.given, str) and self.engine is not None:
            self.engine.close()


def _metrics(metrics: Sequence[str]) -> tuple[str, ...]:
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    names = tuple(dict.fromkeys(str(m).strip().lower() for m in names))
    unknown = [m for m in names if m not in API_METRICS]
    if unknown or not names:
        what = f"{unknown[0]!r} is not one" if unknown else "none named"
        raise ScoreInputError(f"metrics: {what}; choose from {', '.join(API_METRICS)}")
    return names


def _contexts(context: str | Sequence[str | None] | None, count: int) -> list[str | None]:
    contexts = [context] * count if context is None or isinstance(context, str) else list(context)
    if len(contexts) != count or not all(c is None or isinstance(c, str) for c in contexts):
        raise ScoreInputError(f"context: one string for all candidates or one (or None) per candidate ({count})")
    return contexts


def _corpus_weights(weights: Sequence[float], options: Mapping[str, Any]) -> tuple[float, ...]:
    """The corpus CodeBLEU's weights read as the rows read them: normalised to sum to 1 under the
    native rule (``score`` checked them), the package's meaning under ``codebleu_rule="compat"``."""
    if options.get("codebleu_rule", "native") == "compat":
        return tuple(weights)
    from .metrics.weights import normalise

    return normalise(weights)


def _choices() -> str:
    return "; ".join(f"{name}: {', '.join(values)}" for name, values in AGGREGATIONS.items())
