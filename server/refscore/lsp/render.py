"""Short text forms of scores shared by diagnostics, hovers and lenses."""

from __future__ import annotations

from typing import Any

from ..metrics.codebertscore_result import BertScore
from ..metrics.codebleu import CodeBleuResult
from ..scoring.report import RefScore

from ..vocabulary import COMPONENT_LABELS


def num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def codebleu_line(codebleu: CodeBleuResult) -> str:
    """``CodeBLEU 0.62 (n-gram 0.50, weighted 0.55, syntax 0.70, dataflow 0.73)``."""
    parts = ", ".join(f"{COMPONENT_LABELS.get(c.name, c.name)} {num(c.score)}" for c in codebleu.components)
    return f"CodeBLEU {num(codebleu.score)} ({parts})"


def bert_line(bert: BertScore) -> str:
    """``CodeBERTScore P 0.91 R 0.88 F1 0.89 F3 0.88 [model L6]``."""
    return (f"CodeBERTScore P {num(bert.precision)} R {num(bert.recall)} F1 {num(bert.f1)} F3 {num(bert.f3)} "
            f"[{bert.model} layer {bert.layer}]")


def refscore_line(combined: RefScore) -> str:
    """``RefScore 0.43 combined (moved most by CodeBERTScore recall 0.753 +0.38, ...)``."""
    pulls = ", ".join(f"{text} {c:+.2f}" for _, text, c in combined.strongest(3))
    return f"RefScore {num(combined.score)} combined" + (f" (moved most by {pulls})" if pulls else "")


def refscore_data(combined: RefScore) -> dict[str, Any]:
    """The combined number for a client: ``to_dict()`` plus ``strongest``, the inputs that moved it
    most as ``{input, text, contribution}`` (``text`` ready to show)."""
    return {**combined.to_dict(), "strongest": [{"input": n, "text": text, "contribution": c}
                                                for n, text, c in combined.strongest()]}


def bert_data(bert: BertScore) -> dict[str, Any]:
    return {"precision": bert.precision, "recall": bert.recall, "f1": bert.f1, "f3": bert.f3,
            "model": bert.model, "layer": bert.layer, "signature": bert.signature}


def codebleu_data(codebleu: CodeBleuResult) -> dict[str, Any]:
    return {"score": codebleu.score, "signature": codebleu.signature,
            "components": {c.name: c.score for c in codebleu.components}}


def has_tokens(bert: BertScore | None) -> bool:
    """Whether a CodeBERTScore result carries token alignments."""
    return bert is not None and bool(bert.candidate_tokens)


def word_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole word that ``text[start:end]`` is a piece of (``ers`` of ``helpers``: all of
    ``helpers``); a span that is not part of a word comes back as it is."""
    def wordy(char: str) -> bool:
        return char.isalnum() or char == "_"

    if not (0 <= start < end <= len(text)) or not any(wordy(c) for c in text[start:end]):
        return start, end
    while start > 0 and wordy(text[start - 1]) and wordy(text[start]):
        start -= 1
    while end < len(text) and wordy(text[end]) and wordy(text[end - 1]):
        end += 1
    return start, end
