"""The similarity report: ``similarity.html`` (flagged pairs and clusters, each pair side by side
with the lines they share marked), ``similarity.json`` and ``similarity.csv`` (one row per pair),
written beside the grade report. Every file says it is a hint for the teacher, never a verdict.

Beside the flagged pairs the page has views as JPlag and Dolos do: the histogram of every compared
pair's score with the threshold drawn on it (``distribution``), the pairs just below the threshold
(``near_pairs``), and the code of a pair with each matched region in its own colour, the same
colour on both sides (``region_line``), and each flagged submission of a problem at its own
anchor (``submission_anchor``: the grade page's teacher table links there), with each of its
pairs and a link to the pair side by side (``TARGET_CSS`` marks the one a link points at)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path
from typing import Any, Sequence

from .heatmap import safe_attr, safe_text
from .histogram import counts_svg
from .similarity import NOTHING_TO_COMPARE, ProblemSimilarity
from .writers import neutralise, replace_report

HINT = ("A hint for the teacher, never a verdict: a high score means two submissions have the same "
        "structure once names, comments, the order of functions and the starter code are set aside. "
        "Short or standard solutions can match by chance; read the code side by side and talk to the "
        "students before drawing any conclusion.")
NAMES = {"html": "similarity.html", "json": "similarity.json", "csv": "similarity.csv"}
#: Pairs shown side by side on the page, and listed in its tables (every pair is in the JSON and CSV files).
SIDE_BY_SIDE_LIMIT = 200
TABLE_LIMIT = 2000
CSV_COLUMNS = ("problem", "first", "second", "score", "containment", "shared_kgrams", "cluster",
               "first_source", "second_source")
TARGET_CSS = "tr:target td{background:#fff2b3}"
#: Regions get these hues in turn (then again, lighter): far apart, readable under dark text.
HUES = (28, 200, 120, 280, 55, 330, 170, 240, 0, 90, 305, 145)
VIEWS_CSS = (".ht{font-size:11px;font-weight:600;fill:#1d2330}.hc,.hx{font-size:9px;fill:#555;text-anchor:middle}"
             ".ax{stroke:#999}.thr{font-size:10px;fill:#c0392b;text-anchor:end}.dist{display:flex;gap:14px;"
             "align-items:flex-start;flex-wrap:wrap}.dist svg{background:#fff;border:1px solid #dde1e8;border-radius:6px}"
             "pre.code span.region{border-radius:2px}pre.code span.region span.shared{background:transparent}pre.code sup.rn{font-size:9px;color:#555;margin-left:4px}")

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1f2a44;color:#fff;padding:14px 22px}header h1{margin:0;font-size:20px}
main{padding:14px 22px}.hint{background:#fff6e0;border:1px solid #e8c66a;border-radius:6px;padding:8px 12px}
table{border-collapse:collapse;background:#fff;font-size:12.5px;margin:6px 0}
th,td{border-bottom:1px solid #e3e6ec;padding:3px 8px;text-align:left}th{background:#eef1f6}
td.num{text-align:right;font-variant-numeric:tabular-nums}
details{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:10px 0;padding:6px 12px}
summary{cursor:pointer;font-weight:600}
.panes{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:10px}.pane{min-width:0}
.pane h4{margin:6px 0 4px;font-size:12px;color:#555;overflow-wrap:anywhere}
pre.code{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;background:#fbfbfc;border:1px solid #e3e6ec;
padding:8px;overflow:auto;max-height:560px;margin:0;white-space:pre}
pre.code span.shared{background:#ffd9a8}pre.code span.gap{color:#888;font-style:italic}.ln{color:#999;user-select:none}.muted{color:#666;font-size:12px}
""" + TARGET_CSS + VIEWS_CSS


def report_paths(folder: Path) -> dict[str, Path]:
    """kind -> the file of that kind in ``folder``."""
    return {kind: folder / name for kind, name in NAMES.items()}


def write_similarity(folder: Path, problems: Sequence[ProblemSimilarity], threshold: float) -> dict[str, Path]:
    """Write the three files into ``folder``; kind -> path."""
    paths = report_paths(folder)
    data = report_data(problems, threshold)
    replace_report(paths["json"], lambda fh: fh.write(json.dumps(data, ensure_ascii=False, indent=1) + "\n"))
    replace_report(paths["csv"], lambda fh: fh.write(csv_text(data)))
    replace_report(paths["html"], lambda fh: fh.write(build_page(problems, threshold)))
    return paths


def _cluster_of(problem: ProblemSimilarity) -> dict[str, int]:
    return {member: n for n, group in enumerate(problem.result.clusters, 1) for member in group}


def report_data(problems: Sequence[ProblemSimilarity], threshold: float) -> dict[str, Any]:
    """The JSON report: per problem, the work done, the flagged pairs (with their matched regions),
    clusters, statuses, the histogram of every compared pair's score (``BINS`` bins over 0..1) and
    the pairs just below the threshold."""
    out = []
    for problem in problems:
        result, cluster = problem.result, _cluster_of(problem)
        errors = set(result.syntax_errors)
        out.append({
            "problem": problem.problem, "language": problem.language, "method": result.method,
            "compared_pairs": result.compared, "possible_pairs": result.possible, "unlisted_pairs": result.unlisted,
            "starter_files": problem.starter_files,
            "pairs": [{"first": p.first, "second": p.second, "score": p.score, "containment": p.containment,
                       "shared_kgrams": p.shared_kgrams, "cluster": cluster.get(p.first),
                       "first_source": problem.sources.get(p.first), "second_source": problem.sources.get(p.second),
                       "first_lines": [n + 1 for n in p.first_lines], "second_lines": [n + 1 for n in p.second_lines],
                       "regions": [{"first_lines": [n + 1 for n in r.first_lines],
                                    "second_lines": [n + 1 for n in r.second_lines]} for r in p.regions]}
                      for p in result.pairs],
            "histogram": list(result.histogram),
            "near_pairs": [{"first": p.first, "second": p.second, "score": p.score, "containment": p.containment}
                           for p in result.near],
            "clusters": [list(group) for group in result.clusters],
            "submissions": [{"id": name, "source": problem.sources.get(name), "status": status,
                             "syntax_errors": name in errors} for name, status in result.status.items()],
        })
    return {"note": HINT, "threshold": threshold, "problems": out}


def csv_text(data: dict[str, Any]) -> str:
    """One line per flagged pair (a header only when none is)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for problem in data["problems"]:
        for pair in problem["pairs"]:
            row = {**pair, "problem": problem["problem"]}
            writer.writerow(["" if row.get(c) is None else neutralise(str(row[c])) if isinstance(row[c], str)
                             else f"{row[c]:.6f}" if isinstance(row[c], float) else row[c] for c in CSV_COLUMNS])
    return buffer.getvalue()


def build_page(problems: Sequence[ProblemSimilarity], threshold: float) -> str:
    """The self-contained HTML page (inline CSS, no script, no external URL)."""
    total = sum(len(p.result.pairs) for p in problems)
    headline = (NOTHING_TO_COMPARE[0].upper() + NOTHING_TO_COMPARE[1:] if not any(p.result.possible for p in problems)
                else f"{total} pair{'s' * (total != 1)} at or above {threshold:.2f}")
    out = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>Similarity among submissions</title><style>{CSS}</style></head><body>",
           f"<header><h1>Similarity among submissions</h1><p>{safe_text(headline)}</p></header><main>",
           f'<p class="hint" id="hint">{safe_text(HINT)}</p>']
    shown = 0
    for index, problem in enumerate(problems):
        out.append(_problem(index, problem, shown))
        shown += min(len(problem.result.pairs), max(0, SIDE_BY_SIDE_LIMIT - shown))
    out.append("</main></body></html>")
    return "\n".join(out)


def _problem(index: int, problem: ProblemSimilarity, shown_before: int) -> str:
    result = problem.result
    name = safe_text(problem.problem or "All submissions")
    nothing = result.possible == 0  # one submission (or one with code): no pair at all
    how = ("nothing to compare" if nothing else "every pair compared" if result.method == "all" else
           f"candidate pairs by MinHash/LSH: {result.compared:,} of {result.possible:,} pairs compared exactly")
    starter = f"; starter code removed ({problem.starter_files} file{'s' * (problem.starter_files != 1)})" \
        if problem.starter_files else ""
    out = [f"<h2>{name} <span class=\"muted\">({safe_text(problem.language or '')}; {how}{starter})</span></h2>",
           distribution(problem)]
    if result.unlisted:
        out.append(f'<p class="muted">{result.unlisted:,} more pairs are flagged and not listed anywhere (past '
                   f"{len(result.pairs):,}): the groups below hold every flagged submission.</p>")
    if result.clusters:
        out.append("<p>Groups: " + "; ".join(safe_text(", ".join(g)) for g in result.clusters) + "</p>")
    if nothing:
        out.append(f"<p>{safe_text(NOTHING_TO_COMPARE[0].upper() + NOTHING_TO_COMPARE[1:])}.</p>")
    elif not result.pairs:
        out.append("<p>No pair at or above the threshold.</p>")
    else:
        out.append('<table class="pairs"><thead><tr><th>First</th><th>Second</th><th>Score</th>'
                   "<th>Containment</th></tr></thead><tbody>")
        room = max(0, SIDE_BY_SIDE_LIMIT - shown_before)
        for n, pair in enumerate(result.pairs[:TABLE_LIMIT]):
            first = safe_text(pair.first)
            first = f'<a href="#p{index}-{n}">{first}</a>' if n < room else first
            out.append(f'<tr><td>{first}</td><td>{safe_text(pair.second)}</td>'
                       f'<td class="num">{pair.score:.3f}</td><td class="num">{pair.containment:.3f}</td></tr>')
        out.append("</tbody></table>")
        if len(result.pairs) > TABLE_LIMIT:
            out.append(f'<p class="muted">{len(result.pairs) - TABLE_LIMIT:,} more pairs are in similarity.json and '
                       "similarity.csv.</p>")
    out.append(submissions_list(index, problem, max(0, SIDE_BY_SIDE_LIMIT - shown_before)))
    out.append(near_pairs(problem))
    skipped = [(n, s) for n, s in result.status.items() if s != "compared"]
    if skipped:
        out.append("<p class=\"muted\">Not compared: " + "; ".join(f"{safe_text(n)} ({safe_text(s)})" for n, s in skipped)
                   + "</p>")
    room = max(0, SIDE_BY_SIDE_LIMIT - shown_before)
    for n, pair in enumerate(result.pairs[:room]):
        out.append(_side_by_side(f"p{index}-{n}", problem, pair, n == 0 and shown_before == 0))
    if len(result.pairs) > room:
        out.append(f"<p class=\"muted\">The other {len(result.pairs) - room:,} pairs are not shown side by side "
                   "here.</p>")
    return "\n".join(out)


def _side_by_side(anchor: str, problem: ProblemSimilarity, pair: Any, open_: bool) -> str:
    panes = []
    for side, (name, lines) in enumerate(((pair.first, pair.first_lines), (pair.second, pair.second_lines))):
        source = problem.sources.get(name)
        where = f" &middot; {safe_text(source)}" if source and source != name else ""
        panes.append(f'<div class="pane"><h4>{safe_text(name)}{where}</h4><pre class="code">'
                     f'{_code(problem.texts.get(name, ""), set(lines), line_regions(pair.regions, side))}</pre></div>')
    return (f'<details id="{safe_attr(anchor)}"{" open" if open_ else ""}><summary>{safe_text(pair.first)} and '
            f"{safe_text(pair.second)}: {pair.score:.3f}</summary>"
            '<p class="muted">Marked: lines in code both share (after names, comments and starter code are '
            "set aside); each matched region has its own colour and number, the same on both sides.</p>"
            f'<div class="panes">{"".join(panes)}</div></details>')


#: Blank lines in a row shown as one line saying how many (the starter code leaves its lines blank).
GAP = 3


def _code(text: str, shared: set[int], regions: dict[int, int] | None = None) -> str:
    """The text with line numbers, shared lines marked (``regions``: line -> its matched region,
    each in its colour), runs of ``GAP`` or more blank lines folded."""
    regions = regions or {}
    lines = text.split("\n")
    out: list[str] = []
    number = 0
    while number < len(lines):
        end = number
        while end < len(lines) and not lines[end].strip():
            end += 1
        if end - number >= GAP:
            out.append(f'<span class="ln">{"":4s} </span><span class="gap">lines {number + 1}-{end}: blank '
                       "(starter code is left out)</span>")
            number = end
            continue
        body = safe_text(lines[number])
        if number in regions:
            body = region_line(body, regions[number], regions.get(number - 1) != regions[number])
        elif number in shared:
            body = f'<span class="shared">{body}</span>'
        out.append(f'<span class="ln">{number + 1:4d} </span>{body}')
        number += 1
    return "\n".join(out)


# --- The views beside the flagged pairs

def region_colour(number: int) -> str:
    """The background of region ``number`` (0-based)."""
    hue = HUES[number % len(HUES)]
    light = 82 if number < len(HUES) else 90
    return f"hsl({hue},85%,{light}%)"


def distribution(problem: ProblemSimilarity) -> str:
    """The histogram of every compared pair's score with the threshold, and what it counts."""
    result = problem.result
    if not result.histogram or not result.possible:
        return ""
    counted = sum(result.histogram)
    how = (f"all {counted:,} pairs" if result.method == "all" else
           f"the {counted:,} candidate pairs MinHash/LSH found (of {result.possible:,}; the others share little)")
    svg = counts_svg("Score of every pair", result.histogram, counted, None, result.threshold, width=520)
    return (f'<div class="dist">{svg}<p class="muted">The scores of {how}; the red line is the threshold '
            f"({result.threshold:.2f}). A class's own work sits to the left; pairs far to the right of the rest "
            "stand out whatever the threshold.</p></div>")


def near_pairs(problem: ProblemSimilarity) -> str:
    """The highest pairs just below the threshold (not flagged, worth a look when close)."""
    near = problem.result.near
    if not near:
        return ""
    rows = "".join(f'<tr><td>{safe_text(p.first)}</td><td>{safe_text(p.second)}</td><td class="num">{p.score:.3f}</td>'
                   f'<td class="num">{p.containment:.3f}</td></tr>' for p in near)
    return (f'<h3>Just below the threshold (the highest {len(near)})</h3><table class="pairs near"><thead><tr>'
            "<th>First</th><th>Second</th><th>Score</th><th>Containment</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def line_regions(regions: Sequence[Any], side: int) -> dict[int, int]:
    """0-based line -> the number of the longest region covering it on ``side`` (0: first, 1: second)."""
    out: dict[int, int] = {}
    for number, region in enumerate(regions):
        for line in (region.first_lines if side == 0 else region.second_lines):
            out.setdefault(line, number)
    return out


def region_line(body: str, number: int | None, first_of_region: bool) -> str:
    """One line's text in its region's colour, the region's number at its first line."""
    if number is None:
        return body
    mark = f'<sup class="rn">{number + 1}</sup>' if first_of_region else ""
    return (f'<span class="region r{number}" style="background:{region_colour(number)}" '
            f'title="matched region {number + 1}"><span class="shared">{body}</span></span>{mark}')


# --- Each flagged submission and its pairs

def submission_anchor(problem: str | None, name: str) -> str:
    """The id of a submission's entry on the similarity page (the same from the grade page)."""
    digest = hashlib.sha1(f"{problem or ''}\0{name}".encode("utf-8")).hexdigest()[:12]
    return f"sub-{digest}"


def submissions_list(index: int, problem: ProblemSimilarity, room: int) -> str:
    """The flagged submissions of ``problem`` (its ``index`` on the page), each with its pairs;
    ``room``: the first pairs of this problem shown side by side (linked)."""
    pairs: dict[str, list[tuple[str, float, int]]] = {}
    for n, pair in enumerate(problem.result.pairs):
        pairs.setdefault(pair.first, []).append((pair.second, pair.score, n))
        pairs.setdefault(pair.second, []).append((pair.first, pair.score, n))
    if not pairs:
        return ""
    out = [f'<h3>Each flagged submission and its pairs ({len(pairs):,})</h3>'
           '<table class="pairs by-submission"><thead><tr><th>Submission</th><th>Flagged pairs</th></tr></thead><tbody>']
    for name in problem.result.status:
        if name not in pairs:
            continue
        cells = []
        for other, score, n in sorted(pairs[name], key=lambda entry: (-entry[1], entry[0])):
            text = f"{safe_text(other)} ({score:.3f})"
            cells.append(f'<a href="#p{index}-{n}">{text}</a>' if n < room else text)
        out.append(f'<tr id="{safe_attr(submission_anchor(problem.problem, name))}"><td>{safe_text(name)}</td>'
                   f"<td>{'; '.join(cells)}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)
