"""Inline SVG histograms (no scripts, no external references)."""

from __future__ import annotations

from html import escape
from typing import Sequence

WIDTH, HEIGHT, PAD_LEFT, PAD_BOTTOM, PAD_TOP = 250, 130, 16, 22, 30
#: Longest heading that fits on one line of the chart (its font at 250 px wide).
HEADING_CHARS = 32


def bin_counts(values: Sequence[float], bins: int = 10, low: float = 0.0, high: float = 1.0) -> list[int]:
    """Counts per equal-width bin over [low, high]; values outside are clamped into the end bins."""
    counts = [0] * bins
    span = (high - low) or 1.0
    for value in values:
        index = int((value - low) / span * bins)
        counts[min(bins - 1, max(0, index))] += 1
    return counts


def histogram_svg(title: str, values: Sequence[float], bins: int = 10) -> str:
    """An SVG bar chart of ``values`` in [0, 1] with a title, the count on each bar and the mean."""
    mean = sum(values) / len(values) if values else None
    return counts_svg(title, bin_counts(values, bins), len(values), mean)


def counts_svg(title: str, counts: Sequence[int], n: int, mean: float | None, threshold: float | None = None,
               width: int = WIDTH) -> str:
    """The bar chart of ``histogram_svg`` from bin counts already made (large runs stream them);
    ``threshold``: a marked line at that score (the similarity page's), labelled."""
    bins = len(counts)
    top = max(counts) if counts and max(counts) else 1
    facts = f"(n={n:,}" + (f", mean {mean:.3f})" if mean is not None else ")")
    heading = f"{title} {facts}"
    split = len(heading) > HEADING_CHARS  # the title's own line, then n and the mean: none cut off
    pad_top = PAD_TOP + (8 if split else 0)
    plot_w, plot_h = width - PAD_LEFT - 6, HEIGHT - PAD_BOTTOM - pad_top
    bar_w = plot_w / bins
    parts = [f'<svg class="hist" width="{width}" height="{HEIGHT}" viewBox="0 0 {width} {HEIGHT}" '
             f'role="img" aria-label="{escape(title)} histogram">']
    if split:
        parts.append(f'<text x="{PAD_LEFT}" y="12" class="ht">{escape(title)}</text>'
                     f'<text x="{PAD_LEFT}" y="25" class="ht">{escape(facts)}</text>')
    else:
        parts.append(f'<text x="{PAD_LEFT}" y="14" class="ht">{escape(heading)}</text>')
    base = pad_top + plot_h
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = PAD_LEFT + i * bar_w
        hue = int(120 * (i + 0.5) / bins)
        parts.append(f'<rect x="{x + 1:.1f}" y="{base - h:.1f}" width="{bar_w - 2:.1f}" height="{h:.1f}" '
                     f'fill="hsl({hue},60%,55%)"><title>{i / bins:.1f}-{(i + 1) / bins:.1f}: {count}</title></rect>')
        if count:
            parts.append(f'<text x="{x + bar_w / 2:.1f}" y="{base - h - 2:.1f}" class="hc">{count}</text>')
    parts.append(f'<line x1="{PAD_LEFT}" y1="{base}" x2="{PAD_LEFT + plot_w}" y2="{base}" class="ax"/>')
    for tick in (0.0, 0.5, 1.0):
        x = PAD_LEFT + plot_w * tick
        parts.append(f'<text x="{x:.1f}" y="{base + 14}" class="hx">{tick:g}</text>')
    if mean is not None:
        x = PAD_LEFT + plot_w * min(1.0, max(0.0, mean))
        parts.append(f'<line x1="{x:.1f}" y1="{pad_top}" x2="{x:.1f}" y2="{base}" class="mean"/>')
    if threshold is not None:
        x = PAD_LEFT + plot_w * min(1.0, max(0.0, threshold))
        parts.append(f'<line x1="{x:.1f}" y1="{pad_top - 4}" x2="{x:.1f}" y2="{base}" class="threshold" '
                     f'stroke="#c0392b" stroke-width="2" stroke-dasharray="4 2"/>'
                     f'<text x="{x - 3:.1f}" y="{pad_top - 6}" class="thr">'
                     f"threshold {threshold:.2f}</text>")
    parts.append("</svg>")
    return "".join(parts)
