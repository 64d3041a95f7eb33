"""The similarity page's views beside the flagged pairs (JPlag/Dolos-like): the histogram of every
compared pair's score with the threshold drawn on it, the pairs just below the threshold, and the
code of a pair with each matched region in its own colour, the same colour on both sides."""

from __future__ import annotations

from typing import Any, Sequence

from .heatmap import safe_text
from .histogram import counts_svg
from .similarity import ProblemSimilarity

#: Regions get these hues in turn (then again, lighter): far apart, readable under dark text.
HUES = (28, 200, 120, 280, 55, 330, 170, 240, 0, 90, 305, 145)
VIEWS_CSS = (".ht{font-size:11px;font-weight:600;fill:#1d2330}.hc,.hx{font-size:9px;fill:#555;text-anchor:middle}"
             ".ax{stroke:#999}.thr{font-size:10px;fill:#c0392b;text-anchor:end}.dist{display:flex;gap:14px;"
             "align-items:flex-start;flex-wrap:wrap}.dist svg{background:#fff;border:1px solid #dde1e8;border-radius:6px}"
             "pre.code span.region{border-radius:2px}pre.code span.region span.shared{background:transparent}pre.code sup.rn{font-size:9px;color:#555;margin-left:4px}")


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
