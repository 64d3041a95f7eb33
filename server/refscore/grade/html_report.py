"""The self-contained HTML report of every run, whatever its size or engine.

Always: the header, the statistics of each score (n, mean, std, min, max) and its histogram. With
details (runs of up to ``job.DETAIL_LIMIT`` lines): a sortable table of every submission and, per
submission, its heat-mapped code beside the reference. Beyond that the page stays small: the
lowest and highest submissions and the first ones with an error only (every row is in the CSV,
JSON, JSONL and Parquet files beside it). Inline CSS and JS only; no external URL of any kind.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .heatmap import NOTE_CSS, heat_color, note_span, safe_attr, safe_text
from .histogram import counts_svg
from .html_detail import BEHAVIOUR_CSS, FUNCTIONS_CSS, detail, header_note, legend
from .job import DEFAULT_TITLE, PANES_LIMIT
from .rows import LABELS, SCORE_COLUMNS, GradeResult
from .stream_stats import RowStats, counted

#: Runs of up to this many problems get each problem's statistics and histograms; more get one
#: table with a row per problem (a JSONL of HumanEval's 164 problems).
HISTOGRAM_PROBLEMS = 12

#: The students table a plug-in adds (``refscore.classroom.teacher_html``), styled with the page.
STUDENTS_CSS = ("table.students td.late{color:#a33;font-weight:600}table.students td small{display:block;color:#555;"
                "font-size:11px}table.students td.links a{margin-right:6px}")
CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1f2a44;color:#fff;padding:14px 22px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#c9d2e6;font-size:13px}main{padding:14px 22px}
.hists{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0 16px}
.hist{background:#fff;border:1px solid #dde1e8;border-radius:6px}
.ht{font-size:11px;font-weight:600;fill:#1d2330}.hc,.hx{font-size:9px;fill:#555;text-anchor:middle}
.ax{stroke:#999}.mean{stroke:#1f2a44;stroke-dasharray:3 2}
table{border-collapse:collapse;background:#fff;width:100%;font-size:12.5px}
th,td{border-bottom:1px solid #e3e6ec;padding:3px 4px;text-align:left;white-space:nowrap}
th{background:#eef1f6;cursor:pointer;position:sticky;top:0;user-select:none;white-space:normal;vertical-align:bottom}
#results td:first-child,#lowest td:first-child,#highest td:first-child,#error-rows td:first-child{white-space:normal;overflow-wrap:anywhere;
min-width:9em}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.notes{white-space:normal;overflow-wrap:anywhere;min-width:12em;font-size:12px}
td.notes>span{display:block}
.tablewrap{overflow-x:auto;max-width:100%}table.stats{width:auto;min-width:440px}
section.problem{display:flex;flex-wrap:wrap;gap:0 14px;align-items:flex-start}section.problem>h2{flex-basis:100%}
section.problem .hists{flex:1 1 500px;margin-top:0}tr.bad td:first-child{border-left:3px solid #c0392b}
details{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:10px 0;padding:6px 12px}
summary{cursor:pointer;font-weight:600;overflow-wrap:anywhere}
.panes{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:10px}.panes>*{min-width:0}
.pane h4{margin:6px 0 4px;font-size:12px;color:#555;overflow-wrap:anywhere}
pre.code{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;background:#fbfbfc;border:1px solid #e3e6ec;
padding:8px;overflow:auto;max-height:480px;margin:0;white-space:pre}
.miss{box-shadow:inset 0 -2px #c0392b}
.legend{font-size:12px;color:#555;margin:6px 0}.legend span{padding:0 6px;border-radius:3px}
mark.bidi{background:#f5c542;color:#5a3a00;border-radius:2px;font-size:.9em}
.np{color:#7a5200;font-weight:700;padding-left:3px}header .warn{color:#ffd27a}header code{white-space:nowrap}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.note{font-size:12px;color:#8a5a00}.msgs{margin:4px 0}.warn{color:#8a5a00}
""" + NOTE_CSS + FUNCTIONS_CSS + BEHAVIOUR_CSS + STUDENTS_CSS

JS = """
document.querySelectorAll('table.sortable th').forEach(function(th, col){
  th.addEventListener('click', function(){
    var table = th.closest('table'), body = table.tBodies[0];
    var asc = !th.classList.contains('sorted-asc');
    table.querySelectorAll('th').forEach(function(h){h.classList.remove('sorted-asc','sorted-desc');});
    th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function(a, b){  // empty cells (no score) last either way; numbers as numbers; text naturally
      var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
      if (x === '' || y === '') return (x === '') - (y === '');
      var nx = Number(x), ny = Number(y);
      var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y, undefined, {numeric: true});
      return asc ? c : -c;
    });
    rows.forEach(function(r){ body.appendChild(r); });
  });
});
function openTarget(){ var d = document.getElementById(location.hash.slice(1)); if (d && d.tagName === 'DETAILS') d.open = true; }
window.addEventListener('hashchange', openTarget); openTarget();
document.body.setAttribute('data-ready', '1');
"""


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) and math.isfinite(value) else "&ndash;"


def _interrupted(stats: RowStats, settings: dict[str, Any]) -> str:
    """The headline of an interrupted run: how many submissions it did not get to."""
    if not settings.get("interrupted") or not stats.unfinished:  # not, or only while writing the reports
        return ""
    return (f'<p class="warn">The run was interrupted: {stats.unfinished:,} of {stats.rows:,} submissions not '
            "scored (marked in their notes; counted with the errors above); rerun the same command to "
            "finish.</p>")


#: The mark beside the first score of a submission that does not parse, in a symbol and in words.
NOT_PARSING_MARK = '<span class="np" title="does not parse">&#9888;<span class="sr"> does not parse</span></span>'


def _not_parsing(stats: RowStats) -> str:
    """The headline of a run with code that does not parse: what its numbers mean."""
    if not stats.not_parsing:
        return ""
    combined = ", the combined RefScore too," if "refscore" in stats.columns else ""
    return (f'<p class="warn">{counted(stats.not_parsing)} do{"es" * (stats.not_parsing == 1)} not parse '
            f"(marked &#9888;): their scores{combined} are for the code the parser recovered, "
            "not a sign that the code runs; <code>--fail-under</code> fails them unless "
            "<code>--allow-syntax-errors</code>.</p>")


def _marked(row: dict[str, Any], columns: Sequence[str]) -> str | None:
    """The score column that carries ``NOT_PARSING_MARK`` in ``row`` (its first shown score), else None."""
    if not row.get("parse_error"):
        return None
    return next((c for c in columns if _num(row.get(c))), None)


def build_html(stats: RowStats, settings: dict[str, Any], title: str = DEFAULT_TITLE,
               files: Sequence[str] = (), details: Sequence[tuple[GradeResult, dict[str, Any]]] | None = None,
               panes: bool = True, students: str = "") -> str:
    """The whole report as one HTML string; ``details``: every (result, row) of a small run;
    ``panes``: each detail shows the code beside its reference(s) (runs up to ``PANES_LIMIT``);
    ``students``: the sections a plug-in adds (``hooks.ClassroomRun.page``: the classes read, the
    teacher's table of students and points)."""
    summary = stats.summary()
    columns = [c for c in SCORE_COLUMNS if c in stats.columns]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{safe_attr(title)}</title><style>{CSS}</style></head><body>",
           f"<header><h1>{safe_text(title)}</h1><p>{counted(summary['submissions'])}, "
           f"{stats.errors_phrase()} &middot; metrics: "
           f"{safe_text(', '.join(settings.get('metrics', [])))} &middot; engine: "
           f"{safe_text(str(settings.get('engine', 'local')))} &middot; refscore "
           f"{safe_text(str(settings.get('refscore_version', '')))}</p>{_not_parsing(stats)}"
           f"{header_note(settings)}{_interrupted(stats, settings)}</header><main>"]
    if files:
        shown = "; this page has every submission" if details is not None else \
            "; this page shows statistics, the extremes and the first errors only"
        out.append('<p class="legend">Every item is in ' + ", ".join(safe_text(f) for f in files) + shown + ".</p>")
    out.append(students)
    if settings.get("similarity"):
        out.append(_similarity_note(settings["similarity"]))
    out.append(_summaries(stats, columns))
    if details is None:
        out.append(_extremes(stats, columns))
        out.append(_failed(stats, columns, files))
        out.append("</main></body></html>")
        return "\n".join(out)
    results = [result for result, _ in details]
    rows = [row for _, row in details]
    out.append(_table(rows, columns))
    if "refscore" in columns:
        out.append(trust_note())
    if panes:
        out.append(legend(any(r.get("codebertscore_f1") is not None for r in rows)))
    else:
        out.append(f'<p class="legend">A run of more than {PANES_LIMIT:,} submissions is listed without each '
                   "one's code, which would make this page hundreds of MB: "
                   f"{safe_text(files[0] if files else 'the JSON report')} has every submission, and "
                   "<code>refscore score --explain</code> shows one with what it lacks.</p>")
    first = next((i for i, r in enumerate(results) if r.report is not None), 0)
    run_note = bool(settings.get("behaviour_not_run"))
    for index, (result, row) in enumerate(details):
        out.append(detail(index, result, row, columns, panes and index == first, files, panes, run_note))
    out.append(f"</main><script>{JS}</script></body></html>")
    return "\n".join(out)


def trust_note() -> str:
    """What the combined RefScore number is and how far it was found to agree (held out)."""
    from ..combined.labels import input_families
    from ..scoring.headline import headline_model

    model = headline_model() or {}
    held = (model.get("verdict") or {}).get("combined") or {}
    families = input_families(model.get("features", []))
    kinds = ", ".join(families[:-1]) + f" and {families[-1]}" if len(families) > 1 else "".join(families)
    measured = ""
    if held.get("humaneval_tau") is not None and held.get("conala_tau") is not None:
        measured = (f" On problems it was not fitted on it ordered candidates as the tests did with Kendall tau "
                    f"{held['humaneval_tau']:.2f} (HumanEval) and agreed with human graders at tau "
                    f"{held['conala_tau']:.2f} (CoNaLa), better than any single metric.")
    return (f'<p class="legend">RefScore combines signals from {safe_text(kinds or "several metrics")} into '
            "one number in 0..1: how likely the code is correct, judging by its similarity to the reference."
            f"{safe_text(measured)} Use it to rank submissions and to find the ones worth reading; a correct "
            "solution written differently from the reference can still score low.</p>")


def _summaries(stats: RowStats, columns: Sequence[str]) -> str:
    """Each problem's statistics and histograms (issue 28: never one pooled set for several
    problems); the pooled table first when there are several, one table of means for many."""
    problems = stats.problems or {}
    if len(problems) <= 1:
        return _statistics(stats, columns) + _histograms(stats, columns)
    out = [f"<h2>All {len(problems)} problems together</h2>", _statistics(stats, columns)]
    if len(problems) > HISTOGRAM_PROBLEMS:
        out.append(_problem_means(problems, columns))
        return "".join(out)
    for index, (name, sub) in enumerate(problems.items()):
        shown = [c for c in columns if c in sub.columns]
        out.append(f'<section class="problem" id="problem-{index}"><h2>Problem {safe_text(name or "(none)")}: '
                   f"{counted(sub.rows)}, {sub.errors_phrase()}</h2>"
                   + _statistics(sub, shown, f"summary-{index}") + _histograms(sub, shown) + "</section>")
    return "".join(out)


def _histograms(stats: RowStats, columns: Sequence[str]) -> str:
    out = ['<section class="hists">']
    for column in columns:
        col = stats.columns[column]
        out.append(counts_svg(LABELS.get(column, column), col.bins, col.n, col.total / col.n))
    out.append("</section>")
    return "".join(out)


def _problem_means(problems: dict[str, RowStats], columns: Sequence[str]) -> str:
    """One row per problem: submissions, errors and the mean of each score."""
    head = "".join(f"<th>{safe_text(LABELS.get(c, c))} mean</th>" for c in columns)
    out = ['<div class="tablewrap"><table class="sortable" id="problems"><thead><tr><th>Problem</th><th>n</th>'
           f"<th>errors</th>{head}</tr></thead><tbody>"]
    for name, sub in problems.items():
        cells = "".join(f'<td class="num" data-v="{sub.columns[c].total / sub.columns[c].n:.6f}">'
                        f"{_fmt(sub.columns[c].total / sub.columns[c].n)}</td>" if c in sub.columns
                        else '<td class="num" data-v="">&ndash;</td>' for c in columns)
        out.append(f'<tr><td data-v="{safe_attr(name)}">{safe_text(name or "(none)")}</td>'
                   f'<td class="num" data-v="{sub.rows}">{sub.rows:,}</td>'
                   f'<td class="num" data-v="{sub.with_errors}">{sub.with_errors:,}</td>{cells}</tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


def _statistics(stats: RowStats, columns: Sequence[str], table_id: str = "summary") -> str:
    out = [f'<div class="tablewrap"><table class="stats" id="{table_id}"><thead><tr><th>Metric</th><th>n</th>'
           "<th>mean</th><th>std</th><th>min</th><th>max</th></tr></thead><tbody>"]
    for column in columns:
        col = stats.columns[column]
        out.append(f"<tr><td>{safe_text(LABELS.get(column, column))}</td><td class=\"num\">{col.n:,}</td>"
                   + "".join(f'<td class="num">{_fmt(v)}</td>'
                             for v in (col.total / col.n, col.std(), col.low, col.high)) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _extremes(stats: RowStats, columns: Sequence[str]) -> str:
    """The lowest and highest submissions by the ranking column (the page of a large run)."""
    if not stats.rank_by or stats.rank_by not in stats.columns:
        return ""
    label = safe_text(LABELS.get(stats.rank_by, stats.rank_by))
    return (f"<h2>Lowest {len(stats.lowest())} by {label}</h2>" + _brief("lowest", stats.lowest(), columns)
            + f"<h2>Highest {len(stats.highest())} by {label}</h2>" + _brief("highest", stats.highest(), columns))


def _failed(stats: RowStats, columns: Sequence[str], files: Sequence[str]) -> str:
    """The first rows with an error (the page of a large run): which submissions to look at, and
    how many more the report files hold."""
    listed = stats.failed()
    if not listed:
        return ""
    shown = stats.with_errors - stats.unfinished  # rows an interrupted run did not get to: the headline's
    rest = shown - len(listed)
    where = ", ".join(safe_text(f) for f in files) or "the report files"
    more = f"; {rest:,} more in {where}" if rest > 0 else ""
    skipped = (f"; the {stats.unfinished:,} the interrupted run did not get to are not listed"
               if stats.unfinished else "")
    handed = f" ({stats.handed_nothing:,} of them handed nothing in)" if stats.handed_nothing else ""
    return (f'<h2 id="errors">{counted(stats.with_errors)} with errors{handed}</h2>'
            f'<p class="legend">{f"The first {len(listed):,}" if more else "Listed"} in input order{more}{skipped}.</p>'
            + _brief("error-rows", listed, columns))


def _brief(name: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    head = ["Submission", "Problem", "Language", *(LABELS.get(c, c) for c in columns), "Notes"]
    out = [f'<div class="tablewrap"><table id="{name}"><thead><tr>']
    out.extend(f"<th>{safe_text(h)}</th>" for h in head)
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append(f'<tr data-id="{safe_attr(str(row["id"]))}"><td>{safe_text(str(row["id"]))}</td>'
                   f'<td>{safe_text(str(row.get("problem") or ""))}</td>'
                   f'<td>{safe_text(str(row.get("language") or ""))}</td>')
        marked = _marked(row, columns)
        for column in columns:
            value = row.get(column)
            style = f' style="background:{heat_color(value)}"' if isinstance(value, float) else ""
            out.append(f'<td class="num"{style}>{_fmt(value)}{NOT_PARSING_MARK if column == marked else ""}</td>')
        out.append(f'<td class="notes">{_notes(row)}</td></tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    head = ["Submission", "Problem", "Language", *(LABELS.get(c, c) for c in columns), "Notes"]
    out = ['<div class="tablewrap"><table class="sortable" id="results"><thead><tr>']
    out.extend(f"<th>{safe_text(h)}</th>" for h in head)
    out.append("</tr></thead><tbody>")
    for index, row in enumerate(rows):
        bad = ' class="bad"' if row["errors"] else ""
        out.append(f'<tr{bad} data-id="{safe_attr(str(row["id"]))}">')
        out.append(f'<td data-v="{safe_attr(str(row["id"]))}"><a href="#s{index}">{safe_text(str(row["id"]))}</a></td>')
        for key in ("problem", "language"):
            text = str(row.get(key) or "")
            out.append(f'<td data-v="{safe_attr(text)}">{safe_text(text)}</td>')
        marked = _marked(row, columns)
        for column in columns:
            value = row.get(column)
            if _num(value):
                out.append(f'<td class="num" data-v="{value:.6f}" style="background:{heat_color(value)}">'
                           f'{value:.3f}{NOT_PARSING_MARK if column == marked else ""}</td>')
            else:
                out.append('<td class="num" data-v="">&ndash;</td>')
        notes = "; ".join([*row["errors"], *row["warnings"], *_similar_note(row)])
        out.append(f'<td class="notes" data-v="{safe_attr(notes)}">{_notes(row)}</td></tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


def _notes(row: dict[str, Any]) -> str:
    """A row's Notes cell: its errors, then its warnings (scored anyway), then similarity hints."""
    return "".join([*(note_span("error", str(m)) for m in row.get("errors") or ()),
                    *(note_span("warning", str(m)) for m in row.get("warnings") or ()),
                    *(note_span("hint", m) for m in _similar_note(row))])


def _similar_note(row: dict[str, Any]) -> list[str]:
    """The ``similar_to`` cell as a note: ``similar to s04 (0.97), s07 (0.91)``."""
    partners = row.get("similar_to")
    return [f"similar to {', '.join(partners)}"] if partners else []


def _similarity_note(similarity: dict[str, Any]) -> str:
    """The line linking the similarity page (``--similarity``)."""
    from .similarity import NOTHING_TO_COMPARE, nothing_in

    count = similarity.get("flagged_pairs", 0)
    page = safe_attr(str(similarity.get("page", "similarity.html")))
    found = NOTHING_TO_COMPARE if similarity.get("possible_pairs") == 0 else \
        (f'{count} pair{"s" * (count != 1)} at or above {float(similarity.get("threshold", 0)):.2f}'
         + nothing_in(similarity.get("nothing_to_compare") or ()))
    return (f'<p class="legend" id="similarity">Similarity among submissions: {safe_text(found)}, see '
            f'<a href="{page}">{safe_text(page)}</a> (a hint for the teacher, never a verdict).</p>')
