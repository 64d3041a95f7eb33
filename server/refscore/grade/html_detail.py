"""Each submission's detail on the HTML report: its scores, notes, behaviour, functions and its
code beside the reference(s), heat-mapped (``html_report`` puts one per submission of a small run)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Sequence

from .behaviour_html import behaviour_section
from .notebook import where
from .functions_html import functions_table
from .heatmap import explanation_spans, missing_heat, note_span, render_pane, safe_text, token_heat
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
