"""Each submission's detail on the HTML report (``html_report`` puts one per submission of a small
run): its scores, notes, behaviour, functions and its code beside the reference(s), heat-mapped,
and the legend of the panes' colours and underlines (``legend``).

Behaviour (``behaviour_section``): how often it agreed with the reference, per function, and the
first counter-examples (input, expected, got, reason); or the one line saying why it did not run.
When it ran for no submission, for one reason, the page's header says so once (``header_note``)
and the details do not repeat it. Values longer than ``MAX_CELL`` characters are cut (the JSON
report's ``report.behaviour`` is where the whole result is).

``--per-function`` (``functions_table``): a small table, a row per top-level function of the
submission (where it starts), the reference function it was paired with and its scores, as the
JSON and JSONL ``functions`` field has them (``pair_record``). At most ``MAX_FUNCTION_ROWS`` rows a
submission (the rest: how many, and that the JSON report has them). The large-run page shows no
detail, so no table either. Every text escaped.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Sequence

from ..behaviour.result import BehaviourResult
from ..vocabulary import CODEBLEU_NAMES, WEAK_TOKEN_THRESHOLD
from .heatmap import (BUCKET_COLORS, bucket_edges, explanation_spans, heat_color, missing_color, missing_heat,
                      note_span, render_pane, safe_text, token_heat)
from .notebook import where
from .rows import LABELS, GradeResult


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def detail(index: int, result: GradeResult, row: dict[str, Any], columns: Sequence[str], opened: bool,
            files: Sequence[str] = (), panes: bool = True, behaviour_run_note: bool = False) -> str:
    item = result.item
    scores = " &middot; ".join(f"{safe_text(LABELS.get(c, c))} {row[c]:.3f}" for c in columns if _num(row.get(c)))
    if scores and row.get("parse_error"):
        scores += " &middot; &#9888; does not parse"
    out = [f'<details id="s{index}"{" open" if opened else ""}><summary>{safe_text(item.id)}'
           f'{" &mdash; " + scores if scores else ""}</summary>']
    for message in row["errors"]:
        out.append(f'<div class="msgs">{note_span("error", message)}</div>')
    for message in row["warnings"]:
        out.append(f'<div class="msgs">{note_span("warning", message)}</div>')
    if item.context:
        out.append(f'<div class="legend">Task: {safe_text(item.context[:400])}</div>')
    out.append(functions_table(row.get("functions"), item.reference_names, files))
    if result.report is not None:
        out.append(behaviour_section(result.report.behaviour, behaviour_run_note))
    if panes and item.candidate is not None and item.references:
        out.append(_panes(result))
    out.append("</details>")
    return "".join(out)


def _panes(result: GradeResult) -> str:
    item, report = result.item, result.report
    candidate = item.candidate or ""
    bert = report.codebertscore if report else None
    explanations = report.codebleu.explanations if report and report.codebleu else ()
    bert_ref = bert.reference_index if bert is not None else 0
    cand_heat = token_heat(bert.candidate_tokens, candidate) if bert is not None else []
    if item.cells:  # a notebook: each token's tooltip names its cell and line in the notebook
        cand_heat = [replace(h, title=f"{h.title} ({where(item.cells, candidate, h.start)})")
                     if where(item.cells, candidate, h.start) else h for h in cand_heat]
    how = "coloured by CodeBERTScore token similarity" if cand_heat else "no token colours without CodeBERTScore"
    if item.cells:
        how += "; the notebook's code cells " + ", ".join(str(number) for number, _, _ in item.cells)
    out = ['<div class="panes"><div class="pane">',
           f"<h4>Submission ({safe_text(how)})</h4>", render_pane(candidate, cand_heat), "</div><div>"]
    for ref_index, reference in enumerate(item.references):
        missing = explanation_spans(explanations, ref_index, reference)
        heat = token_heat(bert.reference_tokens, reference) if bert is not None and ref_index == bert_ref else []
        if not heat:
            heat = missing_heat(missing, len(reference))
        cells = item.reference_cells[ref_index] if item.reference_cells and ref_index < len(item.reference_cells) \
            else None
        if cells:  # a notebook reference: what the submission lacks is placed by cell and line
            heat = [replace(h, title=f"{h.title} ({where(cells, reference, h.start)})")
                    if where(cells, reference, h.start) else h for h in heat]
            missing = [replace(m, label=f"{m.label} ({where(cells, reference, m.start)})")
                       if where(cells, reference, m.start) else m for m in missing]
        name = item.reference_names[ref_index] if ref_index < len(item.reference_names) else f"reference {ref_index + 1}"
        out.append(f'<div class="pane"><h4>{safe_text(name)} ({len(missing)} missing part(s) marked)</h4>'
                   f"{render_pane(reference, heat, missing)}</div>")
    out.append("</div></div>")
    return "".join(out)


def legend(with_bert: bool, threshold: float = WEAK_TOKEN_THRESHOLD) -> str:
    """What the code panes' colours and underlines mean (CodeBERTScore's heat buckets, or the
    CodeBLEU components' shading without it)."""
    missing = ('<span class="miss">red underline</span> = in the reference but missing from the candidate '
               "(CodeBLEU explanations)")
    if not with_bert:
        shades = "".join(f'<span style="background:{missing_color(k)}">{k}{"+" if k == 3 else ""}</span>'
                         for k in (1, 2, 3))
        return (f'<p class="legend">{missing}; the reference is shaded by how many CodeBLEU components miss '
                f"each part {shades}. Token colours need CodeBERTScore (--metrics codebertscore).</p>")
    edges = bucket_edges(threshold)
    below = " ".join(f'<span style="background:{BUCKET_COLORS[b]}">{b} &lt; {edge:.2f}</span>'
                     for b, edge in edges.items())
    return ('<p class="legend">Token colours: CodeBERTScore similarity of each token to its best match on '
            f"the other side, in the heat buckets around the weak-token threshold {threshold:.2f} "
            f"{below}; tokens at {max(edges.values()):.2f} or above are not coloured; in the reference, a "
            f"coloured token is one the candidate lacks; {missing}.</p>")


# --- Behaviour in the detail

#: The longest input, expected or actual value a cell shows.
MAX_CELL = 300
#: The table's own style (the page's ``table`` rules give it borders and a font).
BEHAVIOUR_CSS = ("table.behaviour{width:auto;margin:4px 0 8px}table.behaviour td{white-space:pre-wrap;"
                 "overflow-wrap:anywhere;max-width:40em}table.behaviour td.code{font:12px/1.4 ui-monospace,Menlo,"
                 "Consolas,monospace}table.behaviour th{cursor:default;position:static}"
                 "h4.behaviour{margin:8px 0 2px;font-size:13px}")


def _cut(text: str) -> str:
    return safe_text(text if len(text) <= MAX_CELL else text[:MAX_CELL - 1] + "\u2026")


def header_note(settings: dict[str, Any]) -> str:
    """The header's line when behaviour ran for no submission, for one reason (else nothing)."""
    note = settings.get("behaviour_not_run")
    return f'<p class="warn">{safe_text(str(note)[:1].upper() + str(note)[1:])}.</p>' if note else ""


def behaviour_section(result: BehaviourResult | None, run_note: bool = False) -> str:
    """A submission's behaviour: the headline, the per-function table and the counter-examples;
    ``run_note``: the page's header already says why it did not run (nothing here then)."""
    if result is None:
        return ""
    if not result.ran:
        why = "behaviour not run: " + (result.not_run or "no reason given")
        return "" if run_note else f'<div class="msgs">{note_span("warning", why)}</div>'
    out = [f'<h4 class="behaviour">Behaviour: agrees with the reference on {result.agreed:,} of {result.inputs:,} '
           f"inputs ({safe_text(result.mode)} mode)</h4>"]
    if result.functions:
        out.append('<table class="behaviour"><thead><tr><th>Function</th><th>agreed</th><th>inputs</th>'
                   "<th>agreement</th></tr></thead><tbody>")
        for function in result.functions:
            share = function.agreement
            out.append(f'<tr><td class="code">{safe_text(function.name)}</td><td class="num">{function.agreed:,}</td>'
                       f'<td class="num">{function.inputs:,}</td>'
                       f'<td class="num" style="background:{heat_color(share)}">{share:.3f}</td></tr>')
        out.append("</tbody></table>")
    if result.disagreements:
        shown = len(result.disagreements)
        more = result.inputs - result.agreed - shown
        out.append(f'<table class="behaviour counter-examples"><caption class="legend">'
                   f'{"The first " if more > 0 else ""}{shown} input{"s" * (shown != 1)} on which it differs'
                   f'{f" ({more:,} more)" if more > 0 else ""}</caption><thead><tr><th>Input</th><th>Expected</th>'
                   "<th>Got</th><th>Reason</th></tr></thead><tbody>")
        for item in result.disagreements:
            out.append(f'<tr><td class="code">{_cut(item.input)}</td><td class="code">{_cut(item.expected)}</td>'
                       f'<td class="code">{_cut(item.actual)}</td><td>{_cut(item.reason)}</td></tr>')
        out.append("</tbody></table>")
    return "".join(out)


# --- The per-function table

#: The most functions listed in one submission's table.
MAX_FUNCTION_ROWS = 50
#: The table's own style (the page's ``table`` rules give it borders and a font).
FUNCTIONS_CSS = ("table.functions{width:auto;margin:4px 0 8px}table.functions td{white-space:normal}"
                 "table.functions th{cursor:default;position:static}")


def _score(value: Any) -> str:
    if _num(value):
        return f'<td class="num" style="background:{heat_color(float(value))}">{value:.3f}</td>'
    return '<td class="num">&ndash;</td>'


def _reference(record: dict[str, Any], reference_names: Sequence[str]) -> str:
    """The reference function a record was paired with: its name, in which reference when there are
    several, and ``(by alignment)`` when paired by CodeBLEU rather than by name."""
    name = record.get("reference_function")
    if not name:
        return "no reference function paired (scored against none)"
    said = safe_text(str(name))
    index = record.get("reference_index")
    if len(reference_names) > 1 and isinstance(index, int) and 0 <= index < len(reference_names):
        said += f" in {safe_text(str(reference_names[index]))}"
    if record.get("matched_by") == "alignment":
        said += " (by alignment)"
    return said


def functions_table(functions: Sequence[dict[str, Any]] | None, reference_names: Sequence[str],
                    files: Sequence[str] = ()) -> str:
    """The per-function table of one submission; '' without ``--per-function`` (``functions`` None)."""
    if functions is None:
        return ""
    if not functions:
        return '<div class="legend">Per function: no top-level function in this submission.</div>'
    bert = any(r.get("codebertscore_f1") is not None for r in functions)
    name = next((n for n in CODEBLEU_NAMES.values() if any(n in r for r in functions)), "codebleu_native")
    head = ["Function", "Reference function", LABELS[name], *([LABELS["codebertscore_f1"]] if bert else [])]
    out = ['<h4 class="legend">Per function</h4><div class="tablewrap"><table class="functions"><thead><tr>',
           *(f"<th>{safe_text(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for record in functions[:MAX_FUNCTION_ROWS]:
        out.append(f"<tr><td>{safe_text(str(record.get('function') or '(unnamed)'))} (line {record.get('line')})</td>"
                   f"<td>{_reference(record, reference_names)}</td>{_score(record.get(name))}"
                   + (_score(record.get("codebertscore_f1")) if bert else "") + "</tr>")
    out.append("</tbody></table></div>")
    rest = len(functions) - MAX_FUNCTION_ROWS
    if rest > 0:
        where = ", ".join(safe_text(f) for f in files if f.endswith((".json", ".jsonl"))) or "the JSON report"
        out.append(f'<div class="legend">{rest:,} more functions in {where}.</div>')
    return "".join(out)
