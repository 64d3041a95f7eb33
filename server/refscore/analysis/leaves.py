"""A text's code tokens as the parser sees them: the leaves of its tree, comments and docstrings
left out, each string literal one token, with a coarse kind and code-point offsets.

The difference finder (``metrics.differences``) aligns these between a candidate and its
reference; like every parse, they are made here (``analysis`` is the only package that touches
tree-sitter) and cached by content.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from .. import languages
from .cache import sized_cache
from .text import OffsetMap
from ..parsing.trees import is_docstring

Kind = Literal["name", "number", "string", "keyword", "operator", "punct", "literal"]

#: Node types read as one token even though they have children (their pieces are not code).
_WHOLE = frozenset({"string", "string_literal", "character_literal", "char_literal", "template_string",
                    "raw_string_literal", "concatenated_string", "text_block", "interpreted_string_literal",
                    "regex"})
_PUNCT = frozenset("()[]{},;:.") | {"::", "->", "=>", "...", "?."}
_BODIES = frozenset({"module", "block"})
#: Token texts past this many are not aligned (the finder says so instead).
MAX_TOKENS = 12_000


class CodeToken(NamedTuple):
    """One token: its text, coarse kind, tree-sitter type, code-point span and 0-based line."""

    text: str
    kind: Kind
    type: str
    start: int
    end: int
    line: int


def _kind(node_type: str, named: bool, text: str) -> Kind:
    if node_type in _WHOLE or "string" in node_type:
        return "string"
    if "identifier" in node_type or node_type in ("name", "constant"):
        return "name"
    if any(part in node_type for part in ("integer", "float", "number", "decimal", "hex", "octal")):
        return "number"
    if named:
        return "literal"  # true, false, None, this, null ...
    if text in _PUNCT:
        return "punct"
    if text[:1].isalpha() or text[:1] == "_":
        return "keyword"
    return "operator"


@sized_cache(max_entries=512, max_chars=4_000_000)
def code_tokens(text: str, language: str) -> tuple[CodeToken, ...]:
    """The code tokens of ``text`` in order (cached by content); () for an unknown language."""
    try:
        spec = languages.get(language)
    except languages.UnknownLanguageError:
        return ()
    source = text.encode("utf-8")
    root = spec.parse(source).root_node
    offsets = OffsetMap(text)
    skip = spec.comment_node_types
    found: list[CodeToken] = []
    stack = [root]
    while stack:
        node = stack.pop()
        node_type = node.type
        if node_type in skip:
            continue
        if node.child_count == 0 or node_type in _WHOLE:
            if node.end_byte > node.start_byte:
                start, end = offsets.from_byte(node.start_byte), offsets.from_byte(node.end_byte)
                piece = text[start:end]
                if piece.strip():
                    found.append(CodeToken(piece, _kind(node_type, node.is_named, piece), node_type, start, end,
                                           node.start_point[0]))
            continue
        children = node.children
        if spec.docstrings and node_type in _BODIES and children and is_docstring(children[0]):
            children = children[1:]
        stack.extend(reversed(children))
    found.sort(key=lambda t: t.start)
    return tuple(found)
