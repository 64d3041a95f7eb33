"""The typed CodeBERTScore result: the same object in-process, from the daemon and from a cache.

``BertScore.to_dict(explain=...)`` is its JSON form and ``BertScore.from_dict`` rebuilds it from
either form (the summary form has no token alignments), so every reader sees one shape.
``merge_pieces`` gives the alignments as a reader sees them, subword pieces merged into words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

#: The four scores, in report order.
SCORE_FIELDS = ("precision", "recall", "f1", "f3")


@dataclass(frozen=True)
class TokenAlignment:
    """One scored token of one side and its best match on the other side.

    ``start``/``end`` (and ``match_start``/``match_end``) are Python string indices (code points)
    into the ORIGINAL texts. ``match_*`` is None when the best match is not a text token (a
    model's special token such as ``[SEP]`` is never named as a match). ``similarity`` is the raw
    cosine (never rescaled); for candidate tokens it is the precision contribution, for reference
    tokens the recall contribution (low = missing in the candidate).
    """

    text: str
    start: int
    end: int
    similarity: float
    weight: float = 1.0
    match_text: str | None = None
    match_start: int | None = None
    match_end: int | None = None


@dataclass(frozen=True)
class BertScore:
    """CodeBERTScore of one candidate against its references, and how it was made."""

    precision: float
    recall: float
    f1: float
    f3: float
    model: str
    layer: int
    device: str
    idf: bool
    rescaled: bool
    context: bool
    signature: str
    candidate_tokens: tuple[TokenAlignment, ...] = ()
    reference_tokens: tuple[TokenAlignment, ...] = ()
    reference_index: int = 0  # which reference the alignments are for (best F1)
    per_reference: tuple[tuple[float, float, float, float], ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        """The JSON summary (scores, model, layer, device, signature)."""
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1, "f3": self.f3,
                "model": self.model, "layer": self.layer, "device": self.device,
                "signature": self.signature}

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        """The summary, or with ``explain`` every field (alignments included), JSON-ready."""
        if not explain:
            return self.as_dict()
        out = {**self.as_dict(), "idf": self.idf, "rescaled": self.rescaled, "context": self.context,
               "reference_index": self.reference_index}
        out["candidate_tokens"] = [_token_dict(t) for t in self.candidate_tokens]
        out["reference_tokens"] = [_token_dict(t) for t in self.reference_tokens]
        out["per_reference"] = [list(row) for row in self.per_reference]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "BertScore":
        """Rebuild from either ``to_dict`` form (missing alignments stay empty)."""
        return cls(
            precision=float(data["precision"]), recall=float(data["recall"]), f1=float(data["f1"]),
            f3=float(data["f3"]), model=str(data.get("model", "unknown")), layer=int(data.get("layer", -1)),
            device=str(data.get("device", "")), idf=bool(data.get("idf", False)),
            rescaled=bool(data.get("rescaled", False)), context=bool(data.get("context", False)),
            signature=str(data.get("signature", "")),
            candidate_tokens=tuple(TokenAlignment(**t) for t in data.get("candidate_tokens", ())),
            reference_tokens=tuple(TokenAlignment(**t) for t in data.get("reference_tokens", ())),
            reference_index=int(data.get("reference_index", 0)),
            per_reference=tuple(tuple(float(v) for v in row) for row in data.get("per_reference", ())))


def _token_dict(token: TokenAlignment) -> dict[str, Any]:
    return {"text": token.text, "start": token.start, "end": token.end, "similarity": token.similarity,
            "weight": token.weight, "match_text": token.match_text, "match_start": token.match_start,
            "match_end": token.match_end}


# Token alignments as a reader sees them: subword pieces merged into words (``merge_pieces``);
# ``start``/``end`` are code-point indices into the original text, as ``TokenAlignment``'s are
# (``refscore.analysis.positions`` turns them into line/column positions).

def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


@dataclass(frozen=True)
class WordAlignment:
    """A reader-level token: adjacent word pieces merged (``foo_bar`` from ``foo``, ``_``, ``bar``).

    ``similarity`` is the weight-averaged similarity of its pieces (plain mean when all weights
    are 0); the match is that of its best-matching piece.
    """

    text: str
    start: int
    end: int
    similarity: float
    match_text: str | None
    match_start: int | None
    match_end: int | None
    pieces: int


def merge_pieces(tokens: Sequence[TokenAlignment], text: str) -> list[WordAlignment]:
    """Merge touching pieces whose junction lies inside a word (letters, digits, underscore)."""
    groups: list[list[TokenAlignment]] = []
    for tok in sorted(tokens, key=lambda t: (t.start, t.end)):
        if groups:
            prev = groups[-1][-1]
            if (prev.end == tok.start and 0 < tok.start < len(text)
                    and _is_word_char(text[tok.start - 1]) and _is_word_char(text[tok.start])):
                groups[-1].append(tok)
                continue
        groups.append([tok])
    out = []
    for group in groups:
        total = sum(t.weight for t in group)
        if total > 0:
            sim = sum(t.similarity * t.weight for t in group) / total
        else:
            sim = sum(t.similarity for t in group) / len(group)
        best = max(group, key=lambda t: t.similarity)
        start, end = group[0].start, group[-1].end
        out.append(WordAlignment(text[start:end], start, end, sim, best.match_text,
                                 best.match_start, best.match_end, len(group)))
    return out
