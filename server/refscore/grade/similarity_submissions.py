"""The similarity page's list per submission: each flagged submission of a problem, at its own
anchor (``submission_anchor``: the grade page's teacher table links there), with each of its pairs
and a link to the pair side by side (``TARGET_CSS`` marks the one a link points at)."""

from __future__ import annotations

import hashlib

from .heatmap import safe_attr, safe_text
from .similarity import ProblemSimilarity

TARGET_CSS = "tr:target td{background:#fff2b3}"


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
