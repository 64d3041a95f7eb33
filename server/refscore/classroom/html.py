"""The HTML report's "Class" section: each class read, its students, the roster's missing
students and the files that matched no problem (``run`` puts them in ``settings["classes"]``)."""

from __future__ import annotations

from typing import Any, Sequence

from ..grade.heatmap import safe_text
from .assign import headcount


def class_section(classes: Sequence[dict[str, Any]]) -> str:
    """One short section per class; '' when the run read none."""
    out = []
    for info in classes:
        out.append(f'<section class="class"><h2>Class: {safe_text(str(info.get("source", "")))}</h2><p>'
                   f'layout {safe_text(str(info.get("layout", "")))} &middot; {safe_text(headcount(info))}'
                   f' &middot; {int(info.get("refused_entries", 0))} entries refused</p>')
        for key, label in (("missing_students", "On the roster, handed nothing in"),
                           ("not_on_roster", "Not on the roster (graded)"),
                           ("unmatched_files", "Files that matched no problem (not graded)")):
            names = info.get(key) or []
            if names:
                items = "".join(f"<li>{safe_text(str(n))}</li>" for n in names)
                out.append(f'<h3>{label} ({len(names)})</h3><ul class="{key}">{items}</ul>')
        out.append("</section>")
    return "".join(out)
