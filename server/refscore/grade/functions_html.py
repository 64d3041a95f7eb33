"""``--per-function`` on the HTML page: a small table in each submission's detail, a row per
top-level function of the submission (where it starts), the reference function it was paired
with and its scores, as the JSON and JSONL ``functions`` field has them (``pair_record``).

At most ``MAX_FUNCTION_ROWS`` rows a submission (the rest: how many, and that the JSON report has
them); every name escaped. The large-run page shows no detail, so no table either.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .heatmap import heat_color, safe_text
from .rows import LABELS
from ..vocabulary import CODEBLEU_NAMES

#: The most functions listed in one submission's table.
MAX_FUNCTION_ROWS = 50
#: The table's own style (the page's ``table`` rules give it borders and a font).
FUNCTIONS_CSS = ("table.functions{width:auto;margin:4px 0 8px}table.functions td{white-space:normal}"
                 "table.functions th{cursor:default;position:static}")


def _score(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
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
