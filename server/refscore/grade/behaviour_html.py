"""Behaviour on the HTML page: in each submission's detail, how often it agreed with the reference,
per function, and the first counter-examples (input, expected, got, reason); or the one line
saying why it did not run. When it ran for no submission, for one reason, the page's header says
so once (``header_note``) and the details do not repeat it.

Every text escaped; values longer than ``MAX_CELL`` characters are cut (the JSON report's
``report.behaviour`` is where the whole result is).
"""

from __future__ import annotations

from typing import Any

from ..behaviour.result import BehaviourResult
from .heatmap import heat_color, note_span, safe_text

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
