"""What pairing reads of a function besides its body: its parameter count and its name's words."""

from __future__ import annotations

import re

from ..languages import LanguageSpec

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
#: Words shorter than this say little about what a function does (``ai``, ``v2``, ``fn``).
MIN_WORD = 3


def parameter_count(function_text: str, spec: LanguageSpec) -> int | None:
    """How many parameters the first function in ``function_text`` declares (the grammar's
    ``parameters`` field, comments left out); None when none is found."""
    root = spec.parse(function_text.encode("utf-8")).root_node
    stack = [root]
    while stack:
        node = stack.pop()
        parameters = node.child_by_field_name("parameters")
        if parameters is not None:
            return sum(1 for child in parameters.named_children if child.type not in spec.comment_node_types)
        stack.extend(reversed(node.named_children))
    return None


def name_words(name: str) -> set[str]:
    """The lower-cased words of a name (``average_ai`` -> {average}; ``columnMeans`` -> {column,
    means}), each at least ``MIN_WORD`` letters."""
    return {w.lower() for w in _WORD.findall(name) if len(w) >= MIN_WORD}
