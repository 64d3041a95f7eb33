"""The combined RefScore number of a scored pair, shown first ("headline") when it earned it.

``refscore/combined/combined.json`` holds the fitted combination and its ``headline`` flag (set by
``refscore eval --save-combined`` only when, held out, it beat every single metric on HumanEval
ranking and pooled Spearman without losing on CoNaLa). With the flag set, a report that has
CodeBLEU (native rule) and CodeBERTScore from the embedded MiniLM at the fitted layer (no
context, IDF or rescaling, full precision) gets ``report.refscore``: the number in 0..1 (read
as: how likely the code is correct, judging by its similarity to the reference), the component
values it was computed from and a signature. chrF, TSED and the length and parse-error inputs are
computed here when the model uses them (chrF++ too), each through ``refscore.combined.inputs``, the
functions the eval's fit uses. When an input cannot be had, ``refscore`` stays unset
(``components`` says why; the components are shown as before).
"""

from __future__ import annotations

import logging
import os
from functools import lru_cache
from typing import Any, Mapping, Sequence

from ..errors import InputFileError
from ..combined import inputs
from ..combined.explain import combined_score, contributions, terms
from ..combined.model import FORMAT_VERSION, digest, load_model
from ..metrics.signature import build_signature
from .report import RefScore, ScoreReport, ScoreRequest

log = logging.getLogger(__name__)
METRIC = "refscore"
#: Environment variable naming another fitted file to serve (its signature says which).
FIT_ENV = "REFSCORE_COMBINED"
#: Inputs computed from CodeBERTScore's token alignments (a request needs them built).
TOKEN_FEATURES = frozenset(f"cbs_{name}" for name in inputs.TOKEN_STATS)


def needs_token_stats() -> bool:
    """Whether the shipped headline number reads CodeBERTScore's token alignments."""
    model = headline_model()
    if model is None:
        return False
    needed = set(model["features"]) | {b for b in map(inputs.interaction_base, model["features"]) if b}
    return bool(TOKEN_FEATURES & needed)


@lru_cache(maxsize=1)
def headline_model() -> dict[str, Any] | None:
    """The shipped combination when it earned the headline, else None."""
    chosen = os.environ.get(FIT_ENV) or None  # a researcher's own fit (eval --save-combined-without-humaneval)
    try:
        model = load_model(chosen)
    except (OSError, ValueError, InputFileError) as error:
        log.info("no combined RefScore number: %s", error)
        return None
    if (not model.get("headline") and not chosen) or model.get("version") != FORMAT_VERSION:
        return None
    model = dict(model)
    model["digest"] = digest(chosen)
    return model


#: the fit's HumanEval datasets, named by the split (the dataset's own names, not languages)
_HUMANEVAL_SPLITS = frozenset({"python", "java", "js", "cpp"})


def signature(model: Mapping[str, Any]) -> str:
    """``refscore|fit:<digest>|cbs:all-MiniLM-L6-v2@6|inputs:<n>|train:<datasets>|version:...``;
    ``train`` names the data the fit saw (``humaneval,conala``: every HumanEval problem, so its
    agreement with HumanEval outcomes is in-sample; ``refscore eval --save-combined-without-humaneval``
    makes one that says ``train:conala``)."""
    bert = model["bert"]
    parts: list[tuple[str, Any]] = [("fit", model.get("digest", "")), ("cbs", f"{bert['model']}@{bert['layer']}"),
                                    ("inputs", len(model["features"]))]
    datasets = list(model.get("fitted", {}).get("datasets", {}))
    if datasets:
        names = dict.fromkeys("humaneval" if d in _HUMANEVAL_SPLITS else d for d in datasets)
        parts.append(("train", ",".join(names)))
    return build_signature(METRIC, tuple(parts))


def _bert_inputs(report: ScoreReport, model: Mapping[str, Any], needed: set[str]) -> tuple[dict[str, float], str | None]:
    bert = report.codebertscore
    want = model["bert"]
    if bert is None:
        return {}, "needs CodeBERTScore"
    got = [what for what, differs in (
        (f"model {bert.model}", bert.model != want["model"]), (f"layer {bert.layer}", bert.layer != want["layer"]),
        ("a context", bool(bert.context)), ("IDF", bool(bert.idf)), ("rescaling", bool(bert.rescaled)),
        ("reduced precision", "precision:" in bert.signature)) if differs]
    if got:
        return {}, f"{_FITTED_ON.format(**want)}, not with {', '.join(got)}"
    out = {"cbs_p": bert.precision, "cbs_r": bert.recall, "cbs_f1": bert.f1, "cbs_f3": bert.f3}
    wanted = needed & {f"cbs_{stat}" for stat in inputs.TOKEN_STATS}
    if wanted:
        if not bert.candidate_tokens and not bert.reference_tokens:
            return {}, "the candidate and the reference have no tokens to compare"
        stats = inputs.bert_token_stats(bert)
        out.update({name: stats[name[4:]] for name in wanted})
    return out, None


_FITTED_ON = "it was fitted on CodeBERTScore from {model} layer {layer} without context, IDF or rescaling"


def blocker(request: ScoreRequest) -> str | None:
    """Why the combined number cannot be had for ``request``, from its settings alone (before
    scoring; a default model that resolves to another encoder is only seen in the report)."""
    model = headline_model()
    if model is None or not {"codebleu", "codebertscore"} <= set(request.metrics):
        return None
    want = model["bert"]
    if request.codebleu_rule != "native":
        return "it needs CodeBLEU's native rule (--codebleu-rule native)"
    encoder = request.encoder
    got = [what for what, differs in (
        (f"--model {encoder.model}", encoder.model not in (None, want["model"])),
        (f"--layer {encoder.layer}", encoder.layer not in (None, want["layer"])),
        ("a context (--context or a mapping's context)", bool(request.context)),
        ("--idf", bool(encoder.idf)), ("--backend onnx-int8", encoder.backend == "onnx-int8")) if differs]
    return f"{_FITTED_ON.format(**want)}, not with {', '.join(got)}" if got else None


def missing_note(reports: Sequence[ScoreReport]) -> str | None:
    """One line for ``score`` and ``grade`` when the combined number applies to this version but
    some scored pairs lack it, saying why (each report's checks stage recorded it; None when every
    pair has it or it does not apply)."""
    reasons = [r.checks.combined for r in reports if r.checks is not None and r.checks.combined]
    return missing_line(len(reasons), len(reports), reasons[0]) if reasons else None


def missing_line(lacking: int, pairs: int, reason: str) -> str:
    """``missing_note``'s line for ``lacking`` of ``pairs`` scored pairs, the first for ``reason``."""
    return f"no combined RefScore number for {lacking} of {pairs} pair(s): {reason}"


def model_inputs(model: Mapping[str, Any]) -> set[str]:
    """The inputs ``model`` reads: its features and the bases of its interaction terms."""
    return set(model["features"]) | {base for base in map(inputs.interaction_base, model["features"]) if base}


def components(request: ScoreRequest, report: Any, model: Mapping[str, Any]) -> tuple[dict[str, float], str | None]:
    """The model's input values for one scored pair, or the reason they cannot all be had."""
    needed = model_inputs(model)
    if report.codebleu is None or report.codebleu.rule != "native":
        return {}, "needs CodeBLEU with the native rule"
    values, reason = _bert_inputs(report, model, needed)
    if reason:
        return {}, reason
    values.update({c.name: (c.score or 0.0) for c in report.codebleu.components})
    found, reason = request_text_inputs(request, model)
    if reason:
        return {}, reason
    values.update(found)
    if "chrf" in needed and report.chrf is not None:  # the report's own, where the request asked for them
        values["chrf"] = report.chrf.score
    if report.tsed is not None and needed & {"tsed", "extra_errors"}:
        values["tsed"] = report.tsed.score
        values["extra_errors"] = inputs.extra_errors(report.tsed.candidate_errors, report.tsed.reference_errors)
    values.update(inputs.interaction_inputs(values, model["features"]))
    missing = needed - set(values)
    if missing:
        return {}, f"cannot compute {', '.join(sorted(missing))}"
    return {name: float(values[name]) for name in model["features"]}, None


#: The model inputs made from the texts alone (besides the lengths, always made).
TEXT_INPUTS = frozenset({"chrf", "chrfpp", "tsed", "extra_errors", "canon_ngram_match", "canon_exact"})


@lru_cache(maxsize=8)
def text_inputs(candidate: str, references: tuple[str, ...], language: str,
                needed: frozenset[str]) -> tuple[dict[str, float], str | None]:
    """The model inputs that depend on the texts alone (chrF, chrF++, TSED, parse errors, the
    canonical tokens' matches, lengths), or why they cannot be had. Kept for the last texts: the
    editor makes them while the daemon encodes (``warm_text_inputs``), so the finish stage that
    follows its answer only reads them."""
    from .pragma import without_pragmas

    candidate = without_pragmas(candidate, language).text
    values: dict[str, float] = {}
    try:
        if "chrf" in needed:
            from ..metrics.chrf import score_chrf

            values["chrf"] = score_chrf(candidate, references).score
        if "chrfpp" in needed:
            from ..metrics.chrf import CHRF_PLUS_WORD_ORDER, score_chrf

            values["chrfpp"] = score_chrf(candidate, references, word_order=CHRF_PLUS_WORD_ORDER).score
        if "tsed" in needed:
            from ..metrics.tsed import score_tsed

            tsed = score_tsed(candidate, references, language)
            values["tsed"] = tsed.score
            values["extra_errors"] = inputs.extra_errors(tsed.candidate_errors, tsed.reference_errors)
        elif "extra_errors" in needed:  # parse errors only: no tree edit distance (APTED) needed
            from ..metrics.tsed import parse_errors

            fewest = min((parse_errors(r, language) for r in references), default=0)
            values["extra_errors"] = inputs.extra_errors(parse_errors(candidate, language), fewest)
    except (ImportError, ValueError, RecursionError) as error:
        return {}, str(error)
    if needed & {"canon_ngram_match", "canon_exact"}:
        from ..metrics.canonical import score_canonical

        canonical = score_canonical(candidate, references, language)
        values.update(canon_ngram_match=canonical.ngram_match, canon_exact=canonical.exact)
    lengths = inputs.length_inputs(candidate, references)
    values.update(lengths, abs_len_ratio=inputs.abs_len_ratio(lengths["len_ratio"]))
    return values, None


def request_text_inputs(request: ScoreRequest, model: Mapping[str, Any]) -> tuple[dict[str, float], str | None]:
    """``text_inputs`` of ``request`` for ``model``: the one key ``components`` and
    ``warm_text_inputs`` both ask with, so the finish stage finds what was made while it waited."""
    return text_inputs(request.candidate, tuple(request.references), request.language,
                       frozenset(model_inputs(model) & TEXT_INPUTS))


def warm_text_inputs(request: ScoreRequest) -> None:
    """Make ``request``'s text-only model inputs now (kept by ``text_inputs``), where the combined
    number will be asked for: while the daemon encodes, not after its answer."""
    model = headline_model()
    if model is None or "codebertscore" not in request.metrics or "codebleu" not in request.metrics:
        return
    request_text_inputs(request, model)


def combined_for(request: ScoreRequest, scores: Any) -> tuple[RefScore | None, str | None]:
    """The combined number of one scored request when the headline model applies to it, else
    None, and why it is missing where it applies (None when it does not apply: another version,
    a metric not asked for, CodeBLEU or CodeBERTScore not computed, whose errors say why).
    ``scores`` has the per-metric results (``codebleu``, ``codebertscore``, ``chrf``, ``tsed``):
    the finish stage's ``parts.Metrics``, or a report. Another metric's error (CrystalBLEU in a
    small run) is no reason: the number is made of these two."""
    model = headline_model()
    if model is None or "codebertscore" not in request.metrics or "codebleu" not in request.metrics:
        return None, None
    values, reason = components(request, scores, model)
    if reason:
        log.info("no combined RefScore number: %s", reason)
        if scores.codebleu is None or scores.codebertscore is None:
            return None, None
        return None, blocker(request) or reason
    return RefScore(combined_score(values, model), tuple(values.items()), signature(model),
                    tuple(contributions(values, model)), float(model["intercept"]), tuple(terms(values, model))), None
