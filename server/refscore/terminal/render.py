"""Plain-text rendering of a ScoreReport for terminals."""

from __future__ import annotations

from typing import Sequence

from ..bidi import printable
from ..scoring.pairing import FunctionPair
from ..scoring.report import RefScore, ScoreReport

from ..vocabulary import COMPONENT_LABELS_LONG as _LABELS


#: What a component's zero total means: BLEU's n-gram precision counts the candidate's n-grams, the
#: others what the reference holds.
_NOTHING = {"ngram_match": "the candidate has no tokens", "weighted_ngram_match": "no reference data",
            "syntax_match": "no reference data", "dataflow_match": "no reference data"}


def _count(value: float) -> str:
    """A count as a reader reads it: whole numbers in full (``3180820``, never ``3.18082e+06``),
    a weighted count with at most three decimals (``2.2``)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _value(score: float | None) -> str:
    return "   n/a" if score is None else f"{score:6.3f}"


def render_table(candidate: str, reference: str, report: ScoreReport, explain: bool = False,
                 notes: Sequence[str] = ()) -> str:
    """A readable table of every score in the report, ending with ``notes`` (why a score is what it is)."""
    lines = [f"{candidate}  vs  {reference}  [{report.language}]"]
    if report.refscore is not None:
        judged = "its behaviour and similarity" if "behaviour" in dict(report.refscore.components) else "its similarity"
        lines.append(f"  RefScore                  {_value(report.refscore.score)}   combined: how likely the "
                     f"code is correct, judging by {judged} (docs/correlation.md)")
        pulls = ", ".join(f"{text} ({c:+.2f})" for _, text, c in report.refscore.strongest())
        lines.append(f"    moved most by (share of the logit): {pulls}")
        if explain and report.refscore.terms:
            lines += _refscore_terms(report.refscore)
        lines.append(f"    signature: {report.refscore.signature}")
    result = report.codebleu
    if result is not None:
        lines.append(f"  CodeBLEU                  {_value(result.score)}")
        for component in result.components:
            detail = f"{_count(component.matched)}/{_count(component.total)}" if component.total else _NOTHING[component.name]
            lines.append(f"    {_LABELS[component.name]:<24}{_value(component.score)}   "
                         f"weight {component.weight:.2f}   {detail}")
    bert = report.codebertscore
    if bert is not None:
        lines.append("  CodeBERTScore             "
                     f"P {bert.precision:.3f}  R {bert.recall:.3f}  F1 {bert.f1:.3f}  F3 {bert.f3:.3f}")
        lines.append(f"    model {bert.model}  layer {bert.layer}  device {bert.device}")
        lines.append(f"    signature: {bert.signature}")
    if result is not None:
        lines.append(f"  signature: {result.signature}")
        if explain and result.explanations:
            lines.append("  missing from the candidate (first 15):")
            for item in result.explanations[:15]:
                lines.append(f"    [{item.component}] {printable(item.text)}")  # reference code: no raw ESC
        elif explain and result.rule == "compat":
            lines.append("  (the package's rule gives numbers only; explanations come with --codebleu-rule native)")
    lines += _text_metric_lines(report)
    lines += behaviour_lines(report)
    for error in [*report.errors, *notes]:
        lines.append(f"  note: {error}")
    return "\n".join(lines)


def behaviour_lines(report: ScoreReport) -> list[str]:
    """The behaviour line: agreement and inputs, per function, the first counter-examples; or why
    it did not run."""
    result = report.behaviour
    if result is None:
        return []
    if not result.ran:
        return [f"  Behaviour                    n/a   not run: {printable(result.not_run or '')}"]
    lines = [f"  Behaviour                 {_value(result.agreement)}   agrees with the reference on "
             f"{result.agreed}/{result.inputs} inputs ({result.mode} mode)"]
    if len(result.functions) > 1:
        lines.append("    " + ", ".join(f"{f.name} {f.agreed}/{f.inputs}" for f in result.functions))
    lines += [f"    {item.line(printable)}" for item in result.disagreements]
    lines.append(f"    signature: {result.signature}")
    return lines


def _refscore_terms(refscore: RefScore) -> list[str]:
    """--explain: the logit taken apart, the intercept and every input (raw value, the value the
    formula reads, its training mean, weight per unit and share), summing to the logit."""
    lines = [f"    logit {refscore.logit:+.3f} = intercept {refscore.intercept:+.3f} (every input at its training mean)"
             " + the shares below; RefScore = 1 / (1 + exp(-logit))",
             f"      {'input':<58}{'raw':>8}{'value':>9}{'mean':>9}{'weight':>9}{'share':>8}"]
    for term in refscore.terms:
        lines.append(f"      {term.label[:57]:<58}{term.raw:>8.3f}{term.value:>9.3f}{term.mean:>9.3f}"
                     f"{term.weight:>+9.3f}{term.share:>+8.3f}")
        if term.transform != "identity":
            lines.append(f"        raw: {term.raw_label}; value = {term.transform}")
    return lines


def _text_metric_lines(report: ScoreReport) -> list[str]:
    """chrF and TSED lines (when the report has them)."""
    lines = []
    if report.chrf is not None:
        lines.append(f"  chrF                      {_value(report.chrf.score)}")
        lines.append(f"    signature: {report.chrf.signature}")
    if report.tsed is not None:
        tsed = report.tsed
        how = "" if tsed.exact else "   (label bound: a tree is over the node cap)"
        lines.append(f"  TSED                      {_value(tsed.score)}   "
                     f"{_count(tsed.distance)} edits / {tsed.nodes} nodes{how}")
        lines.append(f"    signature: {tsed.signature}")
    return lines


def render_functions(pairs: Sequence[FunctionPair], references: Sequence[str] = ()) -> str:
    """One line per top-level candidate function: its reference function (with its line when
    ``references`` are given: overloads share a name) and scores."""
    if not pairs:
        return "  per function: no top-level functions in the candidate"
    lines = ["  per function:"]
    for pair in pairs:
        region = pair.region
        where = ""
        if region is not None and region.name and region.reference_index < len(references):
            where = f"line {references[region.reference_index].count(chr(10), 0, region.start) + 1}, "
        target = ("(no reference function)" if region is None
                  else f"vs {region.name or 'the whole reference'} ({where}{pair.matched_by})")
        scores = f"CodeBLEU {_value(pair.codebleu).strip()}"
        if pair.f3 is not None:
            scores += f"  F1 {pair.f1:.3f}  F3 {pair.f3:.3f}"
        lines.append(f"    {pair.function.name} (line {pair.function.line + 1}) {target}: {scores}")
    return "\n".join(lines)
