"""Code panes for the HTML report: tokens coloured by how well they match, missing parts marked.

With CodeBERTScore token alignments, each candidate token is coloured by the heat bucket of its
best similarity to the reference, and each reference token by that of its best similarity to the
candidate (weak = the candidate lacks it): the vocabulary's buckets around the weak-token
threshold (``vocabulary.heat_bucket``), as the editor and ``score --heat`` draw them. CodeBLEU
explanations (what the reference has that the candidate lacks) are outlined in the reference;
without CodeBERTScore they also shade it, darker where several components agree something is
missing.
"""

from __future__ import annotations

import html as _html
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from ..bidi import BIDI_PATTERN, reveal
from ..metrics.codebertscore_result import TokenAlignment
from ..vocabulary import (
    HEAT_BUCKET_WIDTH,
    HEAT_BUCKETS,
    WEAK_TOKEN_THRESHOLD,
    heat_bucket,
)

#: Longest text shown in a pane (characters); longer code is cut with a note.
MAX_PANE_CHARS = 60_000
#: Each heat bucket's background: the VS Code client's light-theme defaults (package.json
#: ``refscore.heat.<bucket>Background``), so a report reads like the editor.
BUCKET_COLORS = dict(zip(HEAT_BUCKETS, ("#e0505055", "#f0a03a60", "#e8d04a48")))


@dataclass(frozen=True)
class Heat:
    """A span to colour with a CSS ``background``."""

    start: int
    end: int
    background: str
    title: str


@dataclass(frozen=True)
class Missing:
    """A span of the reference that the candidate lacks."""

    start: int
    end: int
    label: str


def safe_attr(text: str) -> str:
    """Text for an HTML attribute or ``<title>``: escaped, bidi controls shown as ``<U+202E>``."""
    return _html.escape(reveal(text))


def safe_text(text: str) -> str:
    """Text for HTML content: escaped, and each bidi control (which would reorder what is shown,
    e.g. a file name) replaced by a visible, highlighted ``<U+202E>`` marker."""
    if BIDI_PATTERN.search(text) is None:  # the common case: nothing to reveal
        return _html.escape(text)
    out, last = [], 0
    for match in BIDI_PATTERN.finditer(text):
        out.append(_html.escape(text[last:match.start()]))
        code = f"U+{ord(match.group()):04X}"
        out.append(f'<mark class="bidi" title="bidirectional control character {code}">&lt;{code}&gt;</mark>')
        last = match.end()
    out.append(_html.escape(text[last:]))
    return "".join(out)


#: How each kind of note is told apart, in words as well as in colour (no colour, a screen reader):
#: the grade report's Notes column and the students' feedback pages alike.
NOTE_KINDS = {"error": "Error: ", "warning": "Warning: ", "hint": ""}
#: Their colours, for a page's CSS (``note_span``'s classes).
NOTE_CSS = ".note-error{color:#a12a2a}.note-warning{color:#7a5200}.note-hint{color:#3c4a66}"


def note_span(kind: str, text: str) -> str:
    """One note, its kind said before it (``Error: ...``) and coloured by the ``note-KIND`` class."""
    return f'<span class="note-{kind}">{NOTE_KINDS[kind]}{safe_text(text)}</span>'


def heat_color(value: float) -> str:
    """Red (0) through yellow to green (1), light enough to read code on."""
    value = min(1.0, max(0.0, value))
    return f"hsl({int(120 * value)},75%,{84 - 6 * (1 - value):.0f}%)"


def bucket_edges(threshold: float = WEAK_TOKEN_THRESHOLD) -> dict[str, float]:
    """Each heat bucket's upper edge (similarities below it fall in the bucket), as
    ``vocabulary.heat_bucket`` rounds them."""
    edges = (threshold - HEAT_BUCKET_WIDTH, threshold, threshold + HEAT_BUCKET_WIDTH)
    return {bucket: round(edge, 6) for bucket, edge in zip(HEAT_BUCKETS, edges)}


def token_heat(tokens: Iterable[TokenAlignment], text: str, threshold: float = WEAK_TOKEN_THRESHOLD,
               *, matches: bool = True) -> list[Heat]:
    """Heat spans from CodeBERTScore token alignments: one per token in a heat bucket (tokens
    above the top bucket are not marked); ``matches``: the tooltip names the best match."""
    out = []
    for token in tokens:
        bucket = heat_bucket(token.similarity, threshold)
        if bucket is None or not 0 <= token.start < token.end <= len(text):
            continue
        match = token.match_text if matches else None
        title = f"similarity {token.similarity:.3f} ({bucket})" + (f", best match {match!r}" if match else "")
        out.append(Heat(token.start, token.end, BUCKET_COLORS[bucket], title))
    return out


def missing_heat(missing: Sequence[Missing], length: int) -> list[Heat]:
    """Heat spans from missing-part coverage: the more explanations cover a char, the redder."""
    if not missing:
        return []
    depth: dict[int, int] = {}  # the coverage changes only where a span starts or ends
    for m in missing:
        start, end = max(0, m.start), min(length, m.end)
        depth[start] = depth.get(start, 0) + 1
        depth[end] = depth.get(end, 0) - 1
    out, run_start, level, current = [], 0, 0, 0
    for i in [*sorted(p for p in depth if p < length), length]:
        current = current + depth[i] if i < length else 0
        new_level = min(3, current)
        if new_level != level:
            if level:
                out.append(Heat(run_start, i, missing_color(level), f"missing in {level}+ component(s)"))
            run_start, level = i, new_level
    return out


def missing_color(level: int) -> str:
    """The shade of a reference part that ``level`` (1..3) CodeBLEU components miss: the more, the redder."""
    return heat_color(0.55 - 0.18 * level)


def render_pane(text: str, heat: Sequence[Heat] = (), missing: Sequence[Missing] = ()) -> str:
    """``<pre>`` with escaped code: heat spans get a background, missing spans an outline."""
    note = ""
    if len(text) > MAX_PANE_CHARS:
        note = f'<div class="note">showing the first {MAX_PANE_CHARS} of {len(text)} characters</div>'
        text = text[:MAX_PANE_CHARS]
    n = len(text)
    cuts = {0, n}
    for span in (*heat, *missing):
        cuts.update((min(n, max(0, span.start)), min(n, max(0, span.end))))
    points = sorted(cuts)
    heat_sorted = sorted(heat, key=lambda h: h.start)
    starts: dict[int, list[Missing]] = {}
    for m in missing:
        starts.setdefault(max(0, m.start), []).append(m)
    active: list[Missing] = []
    h_index = 0
    html = []
    for a, b in zip(points, points[1:]):
        active = [m for m in active if m.end > a] + starts.get(a, [])
        while h_index < len(heat_sorted) and heat_sorted[h_index].end <= a:
            h_index += 1
        piece = safe_text(text[a:b])
        cover = heat_sorted[h_index] if h_index < len(heat_sorted) and heat_sorted[h_index].start <= a else None
        attrs, titles = [], []
        if cover is not None:
            attrs.append(f'style="background:{cover.background}"')
            titles.append(cover.title)
        if active:
            attrs.append('class="miss"')
            titles.append("missing from the candidate: " + ", ".join(sorted({m.label for m in active})))
        if attrs:
            html.append(f'<span {" ".join(attrs)} title="{safe_attr("; ".join(titles))}">{piece}</span>')
        else:
            html.append(piece)
    return f'{note}<pre class="code">{"".join(html)}</pre>'


def explanation_spans(explanations: Iterable[Any], reference_index: int, text: str) -> list[Missing]:
    """CodeBLEU explanations that point into reference ``reference_index``."""
    out = []
    for e in explanations or ():
        if getattr(e, "reference_index", None) != reference_index:
            continue
        if 0 <= e.start < e.end <= len(text):
            out.append(Missing(e.start, e.end, e.component.replace("_match", "")))
    return out
