"""What the reference has that the candidate lacks: CodeBLEU explanations and, with CodeBERTScore,
the reference tokens the candidate matches weakly (low recall), each with its reference range."""

from __future__ import annotations

from typing import Any

from .markup import escape
from .render import plain_explanation
from .results import Result

MAX_ITEMS = 200


def _range_dict(result: Result, index: int, start: int, end: int) -> dict[str, Any]:
    rng = result.reference_positions(index).range(start, end)
    return {"start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character}}


def missing_items(result: Result, threshold: float) -> list[dict[str, Any]]:
    """``[{kind, text, uri, range, similarity?}]``: explanations first, then weak reference tokens."""
    items: list[dict[str, Any]] = []
    report = result.report
    if report is not None and report.codebleu is not None:
        for exp in report.codebleu.explanations[:MAX_ITEMS]:
            if 0 <= exp.reference_index < len(result.reference_uris):
                items.append({"kind": exp.component, "text": plain_explanation(exp.component, exp.text),
                              "uri": result.reference_uris[exp.reference_index],
                              "range": _range_dict(result, exp.reference_index, exp.start, exp.end)})
    bert = result.bert
    if bert is not None and getattr(bert, "reference_tokens", None):
        index = getattr(bert, "reference_index", 0)
        weak = sorted((t for t in bert.reference_tokens if t.similarity < threshold), key=lambda t: t.similarity)
        for token in sorted(weak[:MAX_ITEMS], key=lambda t: t.start):
            items.append({"kind": "codebertscore_recall", "text": token.text, "similarity": token.similarity,
                          "uri": result.reference_uris[index], "range": _range_dict(result, index, token.start, token.end)})
    return items


def link(uri: str, line: int, label: str) -> str:
    """A markdown link to a reference line (``uri#Ln``, which VS Code and most clients open)."""
    return f"[{escape(label)}]({uri}#L{line + 1})"
