"""The differences of a scored candidate from its reference (``metrics.differences``), from the
finished report and the analyses of the texts: the one place any front end gets them."""

from __future__ import annotations

import re
from typing import Sequence

from ..analysis.document import analyse_structure
from ..analysis.leaves import MAX_TOKENS, code_tokens, code_tokens_over
from ..analysis.positions import LinePositions
from ..analysis.text import OffsetMap
from ..bidi import printable
from ..metrics.differences import Differences, range_dict, rank_differences
from .report import ScoreReport


def find_differences(candidate: str, references: Sequence[str], report: ScoreReport | None,
                     language: str | None = None) -> Differences:
    """Where ``candidate`` departs from its reference, most significant first (offsets into the
    texts as given; a pragma line is a comment, and comments are never a difference)."""
    candidate, references = _lf(candidate), [_lf(r) for r in references]
    language = language or (report.language if report is not None else "")
    if not references:
        return Differences(note="no reference")
    if any(code_tokens_over(t, language) for t in (candidate, *references)):  # counted as far as the limit, not built
        return Differences(note=f"over {MAX_TOKENS} code tokens: differences are not ranked")
    cand_tokens = code_tokens(candidate, language)
    ref_tokens = [code_tokens(r, language) for r in references]
    if not cand_tokens and not any(ref_tokens):
        return Differences()
    offsets = OffsetMap(candidate)
    nodes = [(s.type, offsets.from_byte(s.start_byte), offsets.from_byte(s.end_byte))
             for s in analyse_structure(candidate, language, "native").subtrees] if cand_tokens else []
    codebleu = report.codebleu if report is not None else None
    bert = report.codebertscore if report is not None else None
    return rank_differences(candidate, references, cand_tokens, ref_tokens, nodes, codebleu, bert)


_LONE_CR = re.compile(r"\r(?!\n)")


def _lf(text: str) -> str:
    """``text`` with each lone ``\r`` (a classic Mac line break) as ``\n``: the ranking reads
    lines at ``\n`` (tree-sitter's rows too), LSP and every range sent also at ``\r``. One
    character for one, so every offset stays."""
    return _LONE_CR.sub("\n", text) if "\r" in text else text


def difference_records(found: Differences, count: int | None = None) -> list[dict]:
    """The JSON ``differences`` list (most significant first; ``count``: only the first ones)."""
    chosen = found.differences if count is None else found.differences[:count]
    return [d.to_dict() for d in chosen]


def placed_records(found: Differences, candidate: str) -> list[dict]:
    """Per CodeBLEU explanation, in the report's order: its candidate span (``candidate_range``,
    None when the code is absent from the candidate) and how it was found."""
    lines = LinePositions(candidate)
    out = []
    for item in found.explanations:
        where = None
        if item.start is not None and item.end is not None:
            (a, b), (c, d) = lines.range(item.start, item.end)
            where = range_dict((a, b, c, d))
        out.append({"candidate_start": item.start, "candidate_end": item.end, "candidate_range": where,
                    "placed": item.how})
    return out


def render_differences(found: Differences, candidate: str, count: int = 10) -> str:
    """The terminal section: the first ``count`` differences, one line each (1-based lines)."""
    if not found.differences:
        return f"  differences from the reference: none{f' ({found.note})' if found.note else ''}"
    lines = [f"  differences from the reference (most significant first, {min(count, len(found.differences))} "
             f"of {len(found.differences)}{f'; {found.note}' if found.note else ''}):"]
    for item in found.differences[:count]:
        code = " ".join(candidate[item.start:item.end].split())
        code = code if len(code) <= 40 else code[:39] + "…"
        lines.append(f"    line {item.range[0] + 1} ({item.weight:.2f}) {printable(code)}: {printable(item.reason)}"
                     f" [reference line {item.reference_range[0] + 1}]")
    return "\n".join(lines)
