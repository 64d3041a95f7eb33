"""Hovers from the last result (never waiting for scoring): on the summary line the scores, their
components and what the reference has that the candidate lacks; on any token its similarity, the
reference token it matched (with a link to that reference line) and the component breakdown."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..behaviour.result import BehaviourResult
from ..parsing.prose import inside
from ..vocabulary import MISSING_LABELS
from .current import view
from .diagnostics import document_behaviour, headline_parts, summary_range
from .missing import link, missing_items
from .markup import escape, hover_content
from .render import num, word_around
from .results import Result
from .uris import file_name

if TYPE_CHECKING:
    from .server import RefScoreServer

MAX_MISSING_LINES = 8


def _breakdown(result: Result, ran: BehaviourResult | None = None) -> list[str]:
    """The summary's lines in words: behaviour, the combined number, the metrics, what became
    of CodeBERTScore (``refscore setup`` as code where it needs setting up)."""
    lines = headline_parts(result, ran)
    if result.bert is None and result.bert_state == "setup":
        lines[-1] = result.bert_note or "CodeBERTScore is not set up: run `refscore setup`"
    return lines


def summary_hover(result: Result, threshold: float, ran: BehaviourResult | None = None) -> str:
    lines = ["**RefScore** vs " + ", ".join(link(u, 0, file_name(u)) for u in result.reference_uris)
             + f" ({result.choice.source})", ""]
    lines += [f"- {line}" for line in _breakdown(result, ran)]
    items = missing_items(result, threshold)
    if items:
        lines += ["", "**Missing from the candidate** (in the reference):"]
        for item in items[:MAX_MISSING_LINES]:
            label = item["text"] if len(item["text"]) <= 60 else item["text"][:59] + "…"
            kind = MISSING_LABELS.get(item["kind"], item["kind"])
            lines.append(f"- {kind}: {link(item['uri'], item['range']['start']['line'], label)}")
        if len(items) > MAX_MISSING_LINES:
            lines.append(f"- … {len(items) - MAX_MISSING_LINES} more (RefScore: Show What the Reference Has "
                         "That This File Lacks)")
    return "\n".join(lines)


def token_hover(result: Result, offset: int) -> tuple[str, int, int] | None:
    """The hover of the code token at ``offset`` of the result's text: its markdown and its span.
    A token in a ranked difference leads with that difference."""
    difference = next((d for d in result.differences.differences if d.start <= offset < d.end), None)
    lead = [f"differs from the reference: {difference.reason}"] if difference is not None else []
    token = next((t for t in result.code_tokens if t.start <= offset < t.end), None)
    if token is not None:
        lines = [f"**{escape(token.text)}**: similarity {num(token.similarity)}", *lead]
        bert = result.bert
        index = getattr(bert, "reference_index", 0)
        if token.match_start is not None and token.match_end is not None and index < len(result.reference_texts):
            start, end = word_around(result.reference_texts[index], token.match_start, token.match_end)
            if not inside(result.reference_prose(index), start, end):  # the whole word, never prose
                line = result.reference_positions(index).position(start).line
                word = result.reference_texts[index][start:end]
                lines.append(f"matched reference token {link(result.reference_uris[index], line, word)}"
                             f" (line {line + 1})")
        lines += ["", *(f"- {b}" for b in _breakdown(result))]
        return "\n".join(lines), token.start, token.end
    if result.code_tokens:  # CodeBERTScore covered the text: nothing here is code it scored
        return None
    word = _word_at(result.text, offset)
    if word is None:
        return None
    start, end = word
    text = result.text[start:end]
    lines = [f"**{escape(text)}**", *lead]
    whole = re.compile(r"(?<!\S)" + re.escape(text) + r"(?!\S)")  # the same whitespace token (CodeBLEU's unit)
    for index, ref in enumerate(result.reference_texts):
        found = whole.search(ref)
        if found is not None:
            if not lead:  # beside a difference, "also in the reference" would contradict it
                line = result.reference_positions(index).position(found.start()).line
                lines.append(f"also in the reference: {link(result.reference_uris[index], line, text)} "
                             f"(line {line + 1})")
            break
    else:
        lines.append("not in the reference")
    lines += ["", *(f"- {b}" for b in _breakdown(result))]
    return "\n".join(lines), start, end


def _word_at(text: str, offset: int) -> tuple[int, int] | None:
    if not 0 <= offset < len(text) or text[offset].isspace():
        return None
    start, end = offset, offset + 1
    while start > 0 and not text[start - 1].isspace() and offset - start < 200:
        start -= 1
    while end < len(text) and not text[end].isspace() and end - offset < 200:
        end += 1
    return start, end


def register(server: "RefScoreServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: "RefScoreServer", params: types.HoverParams) -> Any:
        seen = view(ls, params.text_document.uri)
        if seen is None or seen.result.problem is not None or seen.result.report is None:
            return None
        result = seen.result
        summary = summary_range(result, seen.positions)  # the summary line of the text shown now
        if params.position.line == summary.start.line:
            return types.Hover(contents=hover_content(ls.client_capabilities,
                                                      summary_hover(result, ls.settings.weak_threshold,
                                                                    document_behaviour(ls.behaviour, result))),
                               range=seen.positions.line_range(summary.start.line))
        offset = seen.offset(params.position)
        found = token_hover(result, offset) if offset is not None else None
        rng = seen.range(found[1], found[2]) if found is not None else None
        if found is None or rng is None:  # nothing there, or a token the latest edit changed
            return None
        return types.Hover(contents=hover_content(ls.client_capabilities, found[0]), range=rng)
