"""A Result as diagnostics: the summary on the first line, weakly aligned tokens, the ranked
differences from the reference, an inserted block.

Every diagnostic has severity Information (Warning for a reference that cannot be read and for a
bidi control character, see ``bidi_diagnostics``), source ``refscore`` and one of the stable codes below;
``data`` carries the numbers (and code as it is). Messages show control and bidi characters of
the code as ``<U+001B>`` markers: a client shows them, and ESC, NUL, BEL or CR would act there.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ..behaviour.result import BehaviourResult, FunctionAgreement
from ..bidi import printable
from ..metrics.differences import Difference
from ..parsing.prose import inside
from .positions import Positions
from .render import (behaviour_line, bert_data, bert_line, bert_state_line, codebleu_data, codebleu_line, num,
                     plain_quotes, refscore_data, refscore_line, withheld_line, word_around)
from .results import Result
from .uris import file_name
from .words import CodeToken

SOURCE = "refscore"
SUMMARY = "refscore.summary"
WEAK_TOKEN = "refscore.weak-token"
INSERTED_BLOCK = "refscore.inserted-block"
DIFFERENCE = "refscore.difference"
PROBLEM = "refscore.problem"
BIDI_CONTROL = "refscore.bidi-control"
#: At most this many bidi diagnostics per document (the first ones); the message says how many.
MAX_BIDI_DIAGNOSTICS = 20


def summary_range(result: Result, positions: Positions | None = None) -> types.Range:
    """Where the summary sits: the end of the first non-blank line of the result's text (or of
    ``positions``'), zero-width, so that no code is underlined (VS Code draws a zero-width range
    at a line's end one character wide after it; Neovim shows the sign and virtual text)."""
    positions = positions or result.positions
    line = next((n for n in range(min(positions.line_count, 50)) if positions.line_text(n).strip()), 0)
    end = positions.line_range(line).end
    return types.Range(start=end, end=end)


def document_behaviour(runs: Any, result: Result | None) -> BehaviourResult | None:
    """The kept behaviour of ``result``'s paired functions as one result (``runs``: the server's
    ``lsp.behaviour.Behaviour``, which has ``found(result, pair)``); None where none ran. Added
    up so that where behaviour ran it leads the summary and its hover ("behaves like the
    reference on 37 of 40 inputs (average 17/20, median 20/20)")."""
    if result is None or runs is None or result.problem is not None:
        return None
    functions = []
    for pair in result.functions:
        found = runs.found(result, pair)
        if found is not None and found.ran and found.inputs:
            functions.append(FunctionAgreement(pair.function.name, found.inputs, found.agreed))
    if not functions:
        return None
    inputs, agreed = sum(f.inputs for f in functions), sum(f.agreed for f in functions)
    return BehaviourResult(agreed / inputs, inputs, agreed, functions=tuple(functions))


def headline_parts(result: Result, ran: BehaviourResult | None = None) -> list[str]:
    """What the summary and its hover lead with: behaviour where it ran (``ran``: the editor's
    runs of its functions, else the report's), then the combined number in words (or why it is
    not shown), CodeBLEU, CodeBERTScore or what became of it."""
    report = result.report
    parts: list[str] = []
    behaviour = behaviour_line(ran or (report.behaviour if report is not None else None))
    if behaviour is not None:
        parts.append(behaviour)
    combined = result.refscore
    if combined is not None:
        parts.append(refscore_line(combined))
    elif result.refscore_withheld is not None:
        parts.append(withheld_line(result.refscore_withheld))
    if report is not None and report.codebleu is not None:
        parts.append(codebleu_line(report.codebleu))
    bert = result.bert
    state = bert_line(bert) if bert is not None else bert_state_line(result.bert_state, result.bert_note)
    if state is not None:
        parts.append(state)
    return parts


def summary_message(result: Result, ran: BehaviourResult | None = None) -> str:
    parts = headline_parts(result, ran)
    if result.report is not None:  # what could not be computed, unless said already
        parts.extend(e for e in result.report.errors[:2] if e != result.bert_note)
    refs = ", ".join(file_name(u) for u in result.reference_uris)
    return f"RefScore vs {refs} ({result.choice.source}): " + "; ".join(parts or ["no metric enabled"])


def _summary(result: Result, ran: BehaviourResult | None) -> types.Diagnostic:
    report = result.report
    data: dict[str, Any] = {"version": result.version, "references": list(result.reference_uris),
                            "referenceSource": result.choice.source, "codebertscoreState": result.bert_state,
                            "differencesState": result.differences_state}
    if report is not None and report.codebleu is not None:
        data["codebleu"] = codebleu_data(report.codebleu)
    if result.bert is not None:
        data["codebertscore"] = bert_data(result.bert)
    combined = result.refscore
    if combined is not None:
        data["refscore"] = refscore_data(combined)
    elif result.refscore_withheld is not None:
        data["refscoreWithheld"] = result.refscore_withheld
    if result.bert_note is not None and result.bert is None:
        data["codebertscoreNote"] = result.bert_note
    return types.Diagnostic(range=summary_range(result), message=plain_quotes(summary_message(result, ran)),
                            severity=types.DiagnosticSeverity.Information, source=SOURCE, code=SUMMARY, data=data)


def weak_tokens(result: Result, threshold: float, limit: int) -> list[CodeToken]:
    """The whole code tokens (never word pieces, never in comments or docstrings) aligned below
    ``threshold``, the ``limit`` weakest, in text order."""
    if limit <= 0:
        return []
    tokens = result.carried if result.bert_state == "pending" else result.code_tokens  # ``current.carried_tokens``
    weak = [t for t in tokens if t.similarity < threshold]
    weak.sort(key=lambda t: (t.similarity, t.start))
    return sorted(weak[:limit], key=lambda t: t.start)


def _weak(result: Result, token: CodeToken) -> types.Diagnostic:
    """``'total' weakly aligned with the reference: similarity 0.41, closest reference code
    'helpers' (line 3)``: the whole candidate token, the reference's whole word (never a piece,
    never a word of a comment or docstring)."""
    data: dict[str, Any] = {"similarity": token.similarity}
    match = ""
    index = result.bert.reference_index if result.bert is not None else 0
    start, end = token.match_start, token.match_end
    if start is not None and end is not None and index < len(result.reference_texts) and result.reference_uris:
        reference = result.reference_texts[index]
        start, end = word_around(reference, start, end)
        if not inside(result.reference_prose(index), start, end):
            ref_range = result.reference_positions(index).range(start, end)
            data["match"] = {"text": reference[start:end], "uri": result.reference_uris[index], "range": {
                "start": {"line": ref_range.start.line, "character": ref_range.start.character},
                "end": {"line": ref_range.end.line, "character": ref_range.end.character}}}
            match = f", closest reference code {reference[start:end]!r} (line {ref_range.start.line + 1})"
    return types.Diagnostic(range=result.positions.range(token.start, token.end),
                            message=f"{token.text!r} weakly aligned with the reference: similarity "
                                    f"{num(token.similarity)}{match}",
                            severity=types.DiagnosticSeverity.Information, source=SOURCE, code=WEAK_TOKEN, data=data)


def _difference(result: Result, item: Difference) -> types.Diagnostic:
    """A ranked difference, with the reference code it departs from as related information."""
    ref_uri = result.reference_uris[item.reference_index]
    ref_range = result.reference_positions(item.reference_index).range(item.reference_start, item.reference_end)
    code = " ".join(result.reference_texts[item.reference_index][item.reference_start:item.reference_end].split())
    code = code if len(code) <= 60 else code[:59] + "…"
    related = types.DiagnosticRelatedInformation(
        location=types.Location(uri=ref_uri, range=ref_range),
        message=f"the reference (line {ref_range.start.line + 1}): {code}")
    return types.Diagnostic(
        range=result.positions.range(item.start, item.end),
        message=f"differs from the reference: {plain_quotes(item.reason)}",
        severity=types.DiagnosticSeverity.Information, source=SOURCE, code=DIFFERENCE,
        related_information=[related],
        data={"kind": item.kind, "weight": round(item.weight, 6), "reference": {"uri": ref_uri, "range": {
            "start": {"line": ref_range.start.line, "character": ref_range.start.character},
            "end": {"line": ref_range.end.line, "character": ref_range.end.character}}}})


def differences(result: Result, limit: int) -> list[types.Diagnostic]:
    """The ``limit`` most significant differences from the reference."""
    if limit <= 0 or result.report is None or not result.reference_uris:
        return []
    chosen = [d for d in result.differences.differences if d.reference_index < len(result.reference_uris)]
    return [_difference(result, d) for d in chosen[:limit]]


def _inserted(result: Result) -> types.Diagnostic:
    insertion = result.insertion
    assert insertion is not None
    region = insertion.region
    where = f"reference function {region.name}" if region.name else "the whole reference"
    f3 = f"F3 {num(insertion.f3)}, " if insertion.f3 is not None else ""
    ref_range = result.reference_positions(region.reference_index).range(region.start, region.end)
    return types.Diagnostic(
        range=result.positions.range(insertion.start, insertion.end),
        message=f"inserted block: {f3}CodeBLEU {num(insertion.codebleu)} (vs {where})",
        severity=types.DiagnosticSeverity.Information, source=SOURCE, code=INSERTED_BLOCK,
        data={"codebleu": insertion.codebleu, "f3": insertion.f3, "reference": result.reference_uris[region.reference_index],
              "referenceLine": ref_range.start.line})


def build(result: Result, settings: Any, ran: BehaviourResult | None = None) -> list[types.Diagnostic]:
    """All diagnostics of one scored document, their messages printable (``ran``: the behaviour
    of its functions the editor ran, which leads the summary)."""
    return [_printable(d) for d in _all(result, settings, ran)]


def _printable(diagnostic: types.Diagnostic) -> types.Diagnostic:
    diagnostic.message = printable(diagnostic.message)
    for related in diagnostic.related_information or ():
        related.message = printable(related.message)
    return diagnostic


def _all(result: Result, settings: Any, ran: BehaviourResult | None) -> list[types.Diagnostic]:
    if result.problem is not None:
        return [types.Diagnostic(range=result.positions.line_range(0), message=result.problem,
                                 severity=types.DiagnosticSeverity.Warning, source=SOURCE, code=PROBLEM,
                                 data={"version": result.version}), *bidi_diagnostics(result)]
    out = [_summary(result, ran)]
    out.extend(_weak(result, t) for t in weak_tokens(result, settings.weak_threshold, settings.weak_max_count))
    out.extend(differences(result, settings.differences_max_count))
    if result.insertion is not None:
        out.append(_inserted(result))
    out.extend(bidi_diagnostics(result))
    return out


def bidi_diagnostics(result: Result) -> list[types.Diagnostic]:
    """Diagnostics for bidirectional control characters ("Trojan Source"): code that may display
    differently from how it runs gets a Warning at each of the first controls, naming it. The
    controls are the report's (``scoring.checks`` found them once, ``Result.bidi``); this only
    renders them."""
    found = result.bidi
    total = f" ({len(found)} in this file)" if len(found) > 1 else ""
    return [types.Diagnostic(
        range=result.positions.range(c.offset, c.offset + 1),
        message=f"bidirectional control character {c.code} ({c.name}): the code may display differently "
                f"from how it runs (Trojan Source){total}",
        severity=types.DiagnosticSeverity.Warning, source=SOURCE, code=BIDI_CONTROL,
        data={"version": result.version, "char": c.code})
        for c in found[:MAX_BIDI_DIAGNOSTICS]]
