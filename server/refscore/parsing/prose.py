"""Where code holds prose, not code: its comments and (where the language has them) docstrings,
found with the language's tree-sitter grammar. The editor keeps its weak-token marks and heat out
of them: a word of an explanation is no token of the solution."""

from __future__ import annotations

import bisect

from tree_sitter import Node

from ..languages import LanguageSpec
from .memo import TextMemo
from .parsed import parse
from .trees import is_docstring

_BODIES = frozenset({"module", "block"})


def prose_spans(text: str, spec: LanguageSpec) -> list[tuple[int, int]]:
    """The ``(start, end)`` character offsets of ``text``'s comments and docstrings, in order.

    An error-free tree is read per top-level part, each part's spans kept by its bytes
    (``_PARTS``): an edit reads again only the parts it changed."""
    data = text.encode("utf-8")
    try:
        root = parse(spec, data).root_node
    except Exception:  # noqa: BLE001 - no grammar here: no prose known
        return []
    if root.has_error or not root.child_count or root.type in spec.comment_node_types:
        return sorted(_to_characters(data, _walk([root], spec)))
    spans = _docstring(root, spec)
    for child in root.children:
        at = child.start_byte
        kept = _PARTS(data[at:child.end_byte], spec.name,
                      lambda: [(a - at, b - at) for a, b in _walk([child], spec)])  # noqa: B023 - called at once
        spans.extend([(a + at, b + at) for a, b in kept] if at else kept)
    return sorted(_to_characters(data, spans))


def whole_prose_spans(text: str, spec: LanguageSpec) -> list[tuple[int, int]]:
    """``prose_spans`` read from the whole tree, no part kept or reused (the reading the parts
    must agree with)."""
    data = text.encode("utf-8")
    return sorted(_to_characters(data, _walk([spec.parse(data).root_node], spec)))


#: A top-level part's prose byte spans from its start, by its bytes.
_PARTS: TextMemo[list[tuple[int, int]]] = TextMemo(entries=8192, chars=4_000_000)


def _docstring(node: Node, spec: LanguageSpec) -> list[tuple[int, int]]:
    """The byte span of ``node``'s docstring, if it is a body that has one."""
    if spec.docstrings and node.type in _BODIES:
        first = next((child for child in node.named_children if child.type not in spec.comment_node_types), None)
        if first is not None and is_docstring(first):
            return [(first.start_byte, first.end_byte)]
    return []


def _walk(stack: list[Node], spec: LanguageSpec) -> list[tuple[int, int]]:
    """The byte spans of the comments and docstrings under the nodes of ``stack``."""
    spans: list[tuple[int, int]] = []
    while stack:
        node = stack.pop()
        if node.type in spec.comment_node_types:
            spans.append((node.start_byte, node.end_byte))
            continue
        spans.extend(_docstring(node, spec))
        stack.extend(reversed(node.children))
    return spans


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
