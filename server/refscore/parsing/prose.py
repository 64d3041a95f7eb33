"""Where code holds prose, not code: its comments and (where the language has them) docstrings,
found with the language's tree-sitter grammar. The editor keeps its weak-token marks and heat out
of them: a word of an explanation is no token of the solution."""

from __future__ import annotations

import bisect

from ..languages import LanguageSpec
from .trees import is_docstring

_BODIES = frozenset({"module", "block"})


def prose_spans(text: str, spec: LanguageSpec) -> list[tuple[int, int]]:
    """The ``(start, end)`` character offsets of ``text``'s comments and docstrings, in order."""
    data = text.encode("utf-8")
    try:
        root = spec.parse(data).root_node
    except Exception:  # noqa: BLE001 - no grammar here: no prose known
        return []
    spans: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in spec.comment_node_types:
            spans.append((node.start_byte, node.end_byte))
            continue
        if spec.docstrings and node.type in _BODIES:
            first = next((child for child in node.named_children if child.type not in spec.comment_node_types), None)
            if first is not None and is_docstring(first):
                spans.append((first.start_byte, first.end_byte))
        stack.extend(reversed(node.children))
    return sorted(_to_characters(data, spans))


def _to_characters(data: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte spans of UTF-8 ``data`` as character spans (one pass over the sorted offsets)."""
    if data.isascii():
        return spans
    chars: dict[int, int] = {}
    done = count = 0
    for offset in sorted({o for span in spans for o in span}):
        count += len(data[done:offset].decode("utf-8", errors="replace"))
        chars[offset], done = count, offset
    return [(chars[start], chars[end]) for start, end in spans]


def inside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` lies within one of the sorted, non-overlapping ``spans``."""
    at = bisect.bisect_right(spans, (start, float("inf"))) - 1
    return at >= 0 and spans[at][0] <= start and end <= spans[at][1]
