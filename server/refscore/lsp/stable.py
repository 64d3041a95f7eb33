"""One stable update per edit: a document rescored with exactly the inputs of the result it shows
(a save, autosave or format-on-save of text already scored, a reference saved with the text the
editor already had, a second window) keeps that result. Nothing is withdrawn and republished, so
the weak tokens never vanish and come back and the numbers change only when the text, its
references or the settings do. A newer version of the same text gets the shown result under its
version number: one publish, no rescoring."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .current import View
from .results import Result
from .uris import file_name

#: CodeBERTScore states of a finished result: one in another state (pending, or the daemon could
#: not be had) is scored again.
SETTLED = frozenset({"done", "off", "skipped"})


def same_inputs(shown: Result | None, text: str, prepared: Any, settings: Any, scored_with: Any) -> bool:
    """Whether ``shown`` (the document's last result, made with the settings ``scored_with``) is
    already the finished answer for ``text`` with ``prepared``'s references and ``settings``."""
    if shown is None or shown.bert_state not in SETTLED or shown.problem is not None:
        return False
    return (shown.text == text and prepared.problem is None and shown.reference_texts == prepared.texts
            and shown.reference_uris == prepared.uris and shown.choice == prepared.choice
            and _name(shown.spec) == _name(prepared.spec) and scored_with == settings)


def _name(spec: Any) -> str | None:
    return getattr(spec, "name", None)


def renumber(shown: Result, version: int) -> Result:
    """``shown`` as the result of ``version`` (the same text): what it computed is kept."""
    made = shown.derive(version=version)
    if "differences" in shown.__dict__:
        made.__dict__["differences"] = shown.__dict__["differences"]
    return made


def kept_message(uri: str, version: int) -> str:
    """The log line of a rescoring that found nothing to redo (clients log it; nothing is shown)."""
    return f"RefScore: {file_name(uri)} v{version} unchanged since it was scored: its result stays"


def carried_tokens(shown: Result | None, result: Result) -> tuple[Any, ...]:
    """The code tokens of ``shown`` (the document's last result) that the edit to ``result``'s
    text did not touch, moved to their offsets there; none when the references changed. Shown
    while ``result``'s CodeBERTScore is pending, so an edit's first publish does not withdraw
    the weak tokens it did not touch (they come back, or go, with the new result)."""
    if shown is None or not shown.code_tokens or shown.reference_texts != result.reference_texts:
        return ()
    view = View(shown, result.text)
    moved = ((token, view.span(token.start, token.end)) for token in shown.code_tokens)
    return tuple(replace(token, start=span[0], end=span[1]) for token, span in moved if span is not None)
