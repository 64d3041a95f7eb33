"""Short text forms of scores shared by diagnostics, hovers and lenses."""

from __future__ import annotations

import re
from typing import Any

from ..behaviour.result import BehaviourResult
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


def refscore_meaning(combined: RefScore) -> str:
    """What the combined number means, in words (with behaviour when the fit stacked it)."""
    by = "what it does on the reference's inputs and its similarity" if "behaviour" in dict(combined.components) \
        else "its similarity"
    return f"how likely the code is correct, judging by {by} to the reference"


def refscore_line(combined: RefScore) -> str:
    """``RefScore 0.43: how likely the code is correct, judging by its similarity to the
    reference`` (no logits, no signature: those are in the summary's ``data``)."""
    return f"RefScore {num(combined.score)}: {refscore_meaning(combined)}"


def withheld_line(reason: str) -> str:
    """The line shown instead of a combined number outside its fit's data."""
    return f"combined number not shown: {reason}"


def behaviour_line(behaviour: BehaviourResult | None) -> str | None:
    """``behaves like the reference on 37 of 40 inputs (average 17/20, median 20/20)``, or why it
    did not run; None without a behaviour result."""
    if behaviour is None:
        return None
    if not behaviour.ran:
        return f"behaviour not run: {behaviour.not_run}" if behaviour.not_run else None
    line = f"behaves like the reference on {behaviour.agreed} of {behaviour.inputs} inputs"
    if len(behaviour.functions) > 1:
        line += " (" + ", ".join(f"{f.name} {f.agreed}/{f.inputs}" for f in behaviour.functions) + ")"
    return line


def bert_state_line(state: str, note: str | None) -> str | None:
    """What the summary says of CodeBERTScore when it has no numbers: pending, skipped and why,
    unavailable and why, not set up; None when it is off by the settings."""
    if state == "pending":
        return "CodeBERTScore pending"
    if state == "skipped":
        return note or "CodeBERTScore skipped"
    if state == "unavailable":
        why = (note or "").removeprefix("CodeBERTScore is unavailable: ")
        return "CodeBERTScore unavailable" + (f": {why}" if why else "")
    if state == "setup":
        return "CodeBERTScore not set up (refscore setup)"
    return None


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


#: CodeBLEU's data-flow relations in words.
_RELATIONS = {"comesFrom": "comes from", "computedFrom": "is computed from"}
_NODE_TYPE = re.compile(r"[a-z_]+")


def plain_explanation(component: str, text: str) -> str:
    """A CodeBLEU explanation as a reader says it: a subtree's code without its grammar node type
    (``if_statement: if n > 0: ...``: ``if n > 0: ...``), a data-flow edge in words (``total
    computedFrom value``: ``total is computed from value``)."""
    if component == "syntax_match":
        head, sep, code = text.partition(": ")
        return code if sep and _NODE_TYPE.fullmatch(head) else text
    if component == "dataflow_match":
        words = text.split(" ", 2)
        if len(words) == 3 and words[1] in _RELATIONS:
            name, relation, parents = words
            return f"{name} is defined" if parents == "(definition)" else f"{name} {_RELATIONS[relation]} {parents}"
    return text


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def plain_quotes(text: str) -> str:
    """``text`` with its markdown code spans (`+=`) as quotes ('+='): for diagnostic messages,
    which every client shows as plain text."""
    return _CODE_SPAN.sub(r"'\1'", text)


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
