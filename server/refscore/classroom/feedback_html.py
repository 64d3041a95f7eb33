"""A student's feedback page: one self-contained HTML file (inline CSS, no script, no URL)."""

from __future__ import annotations

from ..grade.heatmap import NOTE_CSS, Heat, Missing, heat_color, note_span, render_pane, safe_attr, safe_text
from ..grade.rows import LABELS
from .feedback import ProblemFeedback, StudentFeedback, empty_code_note
from .feedback_words import Part, points_words

CSS = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1f2a44;color:#fff;padding:14px 22px}header h1{margin:0;font-size:21px}
header p{margin:4px 0 0;color:#c9d2e6}main{padding:10px 22px;max-width:1100px}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:12px 0;padding:8px 16px}
h2{font-size:17px;margin:6px 0}h3{font-size:14px;margin:12px 0 4px;color:#444}
.points{font-weight:700}.scores span{display:inline-block;margin-right:10px;padding:1px 6px;border-radius:3px}
pre.code{font:13px/1.45 ui-monospace,Menlo,Consolas,monospace;background:#fbfbfc;border:1px solid #e3e6ec;
padding:8px;overflow:auto;margin:0;white-space:pre}
.miss{box-shadow:inset 0 -2px #c0392b}.codebox{display:grid;grid-template-columns:auto minmax(0,1fr)}
pre.gutter{font:13px/1.45 ui-monospace,Menlo,Consolas,monospace;color:#8a93a6;text-align:right;margin:0;
padding:9px 8px 8px 0;user-select:none}ol.remarks li{margin:3px 0}.note{color:#555;font-size:13px}
.msgs{margin:4px 0}ul.wrong li{margin:3px 0}ul.wrong code{font:13px ui-monospace,Menlo,Consolas,monospace;
background:#f1f3f6;padding:0 3px;border-radius:3px;white-space:pre-wrap;overflow-wrap:anywhere}mark.bidi{background:#f5c542;color:#5a3a00;border-radius:2px;font-size:.9em}
""" + NOTE_CSS


def feedback_html(page: StudentFeedback) -> str:
    """The whole page as one string."""
    student = page.student
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{safe_attr(f'{page.title}: {student.name}')}</title><style>{CSS}</style></head><body>",
           f"<header><h1>{safe_text(page.title)}: feedback for {safe_text(student.name)}</h1>"
           f'<p>Total <span class="points" id="total">{student.total:g}</span> of {page.max_total:g} points</p>'
           "</header><main>"]
    for adjustment in student.total_adjustments:
        out.append(f'<p class="note">Your teacher adjusted the total by {safe_text(adjustment.shown())}'
                   f"{': ' + safe_text(adjustment.comment) if adjustment.comment else ''}</p>")
    for index, problem in enumerate(page.problems):
        out.append(_problem(index, problem))
    out.append('<p class="note">The scores compare your code with a reference solution: how alike they are in '
               "tokens, syntax, data flow and meaning. A correct solution written in another way can score lower; "
               "your teacher reads the code too.</p>")
    out.append("</main></body></html>")
    return "\n".join(out)


def _problem(index: int, view: ProblemFeedback) -> str:
    grade = view.grade
    out = [f'<section id="p{index}" data-problem="{safe_attr(grade.problem)}">',
           f'<h2>{safe_text(grade.problem or "submission")}: <span class="points">{grade.points:g}</span> of '
           f"{grade.max_points:g} points</h2>"]
    if view.scores:
        out.append('<p class="scores">' + "".join(
            f'<span style="background:{heat_color(v)}">{safe_text(LABELS.get(k, k))} {view.score_text(k, v)}</span>'
            for k, v in view.scores.items()) + "</p>")
    how = points_words(grade)
    if how:
        out.append('<ul class="how">' + "".join(f"<li>{safe_text(line)}</li>" for line in how) + "</ul>")
    for note in grade.notes:
        out.append(f'<p class="note">{safe_text(note)}</p>')
    for adjustment in grade.adjustments:
        out.append(f'<p class="note">Adjusted by your teacher: {safe_text(adjustment.shown())}'
                   f"{': ' + safe_text(adjustment.comment) if adjustment.comment else ''}</p>")
    for message in view.messages:
        out.append(f'<p class="msgs">{note_span("error", message)}</p>')
    for message in view.warnings:
        out.append(f'<p class="msgs">{note_span("warning", message)}</p>')
    if view.behaviour:
        out.append(f'<h3>What your code does</h3><p class="behaviour">{safe_text(view.behaviour)}</p>')
        if view.counter_examples:
            out.append('<ul class="wrong">' + "".join(f"<li>{_sentence(p)}</li>" for p in view.counter_examples)
                       + "</ul>")
    empty = empty_code_note(view)
    if empty:
        out.append(f'<h3>Your code</h3><p class="note empty">{safe_text(empty)}</p>')
    elif view.code is not None:
        marks = [Missing(r.start, r.end, "differs from the reference") for r in view.remarks]
        how = (" (coloured by how closely each part matches the reference: red where weakest, then orange, "
               "then yellow)") if view.heat else ""
        out.append(f"<h3>Your code{how}</h3>{code_pane(view.code, view.heat, marks, view.cells)}")
        if view.remarks:
            out.append("<h3>What the reference has that yours lacks (most significant first)</h3>"
                       '<ol class="remarks">' + "".join(f"<li>{safe_text(r.text)}</li>" for r in view.remarks)
                       + "</ol>")
    for name, text in view.references:
        out.append(f'<h3>Reference: {safe_text(name)}</h3><div class="reference">{render_pane(text)}</div>')
    out.append("</section>")
    return "".join(out)


def _sentence(parts: list[Part]) -> str:
    """A counter-example: its values in ``<code>``."""
    return "".join(f"<code>{safe_text(text)}</code>" if code else safe_text(text) for text, code in parts)


def code_pane(text: str, heat: list[Heat], marks: list[Missing],
              cells: tuple[tuple[int, int, int], ...] | None = None) -> str:
    """The student's code with line numbers (the remarks' "line N"; a notebook's "cell:line");
    leading blank lines (where the starter code was, or nothing) are left out and said so."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    cut = sum(len(line) + 1 for line in lines[:first])
    shown = text[cut:].rstrip()
    end = cut + len(shown)
    heat = [Heat(h.start - cut, min(h.end, end) - cut, h.background, h.title) for h in heat if h.start >= cut and h.start < end]
    marks = [Missing(max(m.start, cut) - cut, min(m.end, end) - cut, m.label) for m in marks if m.end > cut and m.start < end]
    count = shown.count("\n") + 1
    if cells:
        from ..grade.notebook import locate

        places = [locate(cells, n) for n in range(first, first + count)]
        gutter = "\n".join(f"{p[0]}:{p[1]}" if p else "" for p in places)
        note = '<p class="note">Your notebook\'s code cells, numbered cell:line; markdown cells and the starter ' \
               "code you were given are left out.</p>"
    else:
        gutter = "\n".join(str(n) for n in range(first + 1, first + 1 + count))
        note = f'<p class="note">Lines 1 to {first} are blank or the starter code you were given (not shown).</p>' \
            if first else ""
    return f'{note}<div class="codebox"><pre class="gutter">{gutter}</pre>{render_pane(shown + chr(10), heat, marks)}</div>'
