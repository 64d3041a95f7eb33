"""The HTML report of a large run: summary statistics, histograms, the lowest and highest items.

Its size does not grow with the number of items (a million-row table helps nobody); every row is
in the CSV, JSON, JSONL and Parquet files beside it. Inline CSS only; no script, no external URL.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .heatmap import heat_color, safe_attr, safe_text
from .histogram import counts_svg
from .html_report import CSS
from .rows import LABELS, SCORE_COLUMNS
from .stream_stats import RowStats


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) and math.isfinite(value) else "&ndash;"


def build_summary_html(stats: RowStats, settings: dict[str, Any], title: str,
                       files: Sequence[str] = ()) -> str:
    """The whole report as one HTML string."""
    summary = stats.summary()
    columns = [c for c in SCORE_COLUMNS if c in stats.columns]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{safe_attr(title)}</title><style>{CSS}</style></head><body>",
           f"<header><h1>{safe_text(title)}</h1><p>{summary['submissions']:,} submissions, "
           f"{summary['with_errors']:,} with errors &middot; metrics: "
           f"{safe_text(', '.join(settings.get('metrics', [])))} &middot; engine: "
           f"{safe_text(str(settings.get('engine', 'local')))} &middot; refscore "
           f"{safe_text(str(settings.get('refscore_version', '')))}</p></header><main>"]
    if files:
        out.append('<p class="legend">Every item is in ' + ", ".join(safe_text(f) for f in files)
                   + "; this page shows statistics and the extremes only.</p>")
    out.append('<div class="tablewrap"><table id="summary"><thead><tr><th>Metric</th><th>n</th>'
               "<th>mean</th><th>std</th><th>min</th><th>max</th></tr></thead><tbody>")
    for column in columns:
        col = stats.columns[column]
        out.append(f"<tr><td>{safe_text(LABELS.get(column, column))}</td><td class=\"num\">{col.n:,}</td>"
                   + "".join(f'<td class="num">{_fmt(v)}</td>'
                             for v in (col.total / col.n, col.std(), col.low, col.high)) + "</tr>")
    out.append("</tbody></table></div>")
    out.append('<section class="hists">')
    for column in columns:
        col = stats.columns[column]
        out.append(counts_svg(LABELS.get(column, column), col.bins, col.n, col.total / col.n))
    out.append("</section>")
    if stats.rank_by and stats.rank_by in stats.columns:
        label = LABELS.get(stats.rank_by, stats.rank_by)
        out.append(f"<h2>Lowest {len(stats.lowest())} by {safe_text(label)}</h2>")
        out.append(_table("lowest", stats.lowest(), columns))
        out.append(f"<h2>Highest {len(stats.highest())} by {safe_text(label)}</h2>")
        out.append(_table("highest", stats.highest(), columns))
    out.append("</main></body></html>")
    return "\n".join(out)


def _table(name: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    head = ["Submission", "Problem", "Language", *(LABELS.get(c, c) for c in columns), "Notes"]
    out = [f'<div class="tablewrap"><table id="{name}"><thead><tr>']
    out.extend(f"<th>{safe_text(h)}</th>" for h in head)
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append(f'<tr data-id="{safe_attr(str(row["id"]))}"><td>{safe_text(str(row["id"]))}</td>'
                   f'<td>{safe_text(str(row.get("problem") or ""))}</td>'
                   f'<td>{safe_text(str(row.get("language") or ""))}</td>')
        for column in columns:
            value = row.get(column)
            style = f' style="background:{heat_color(value)}"' if isinstance(value, float) else ""
            out.append(f'<td class="num"{style}>{_fmt(value)}</td>')
        out.append(f'<td class="err">{safe_text("; ".join(row.get("errors") or []))}</td></tr>')
    out.append("</tbody></table></div>")
    return "".join(out)
