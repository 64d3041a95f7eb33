"""One read-only shape for a CodeBERTScore result, whether it arrives as the in-process
``BertScoreResult`` or as plain JSON data from the daemon (``ScoreReport.from_dict``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class TokenView:
    """One token, its code-point span, its similarity and its best match on the other side."""

    text: str
    start: int
    end: int
    similarity: float
    match_text: str | None = None
    match_start: int | None = None
    match_end: int | None = None


@dataclass(frozen=True)
class BertView:
    """P/R/F1/F3, what produced them, and the token alignments (for ``reference_index``)."""

    precision: float
    recall: float
    f1: float
    f3: float
    model: str
    layer: int | None
    signature: str
    candidate_tokens: list[TokenView] = field(default_factory=list)
    reference_tokens: list[TokenView] = field(default_factory=list)
    reference_index: int = 0


def _get(source: Any, name: str, default: Any = None) -> Any:
    if isinstance(source, Mapping):
        return source.get(name, default)
    return getattr(source, name, default)


def _tokens(items: Any, text_length: int | None) -> list[TokenView]:
    out = []
    for item in items or []:
        start, end = _get(item, "start"), _get(item, "end")
        if not isinstance(start, int) or not isinstance(end, int) or start < 0 or end < start:
            continue
        if text_length is not None and end > text_length:
            continue
        out.append(TokenView(str(_get(item, "text", "")), start, end, float(_get(item, "similarity", 0.0)),
                             _get(item, "match_text"), _get(item, "match_start"), _get(item, "match_end")))
    return out


def as_bert(value: Any, candidate_length: int | None = None, reference_lengths: tuple[int, ...] = ()) -> BertView | None:
    """A BertView of ``value`` (None when it is missing or lacks the four scores)."""
    if value is None:
        return None
    try:
        scores = [float(_get(value, k)) for k in ("precision", "recall", "f1", "f3")]
    except (TypeError, ValueError):
        return None
    index = int(_get(value, "reference_index", 0) or 0)
    ref_length = reference_lengths[index] if 0 <= index < len(reference_lengths) else None
    layer = _get(value, "layer")
    return BertView(*scores, model=str(_get(value, "model", "unknown")), layer=layer if isinstance(layer, int) else None,
                    signature=str(_get(value, "signature", "")),
                    candidate_tokens=_tokens(_get(value, "candidate_tokens"), candidate_length),
                    reference_tokens=_tokens(_get(value, "reference_tokens"), ref_length),
                    reference_index=index)
