"""A text's code tokens as the parser sees them: the leaves of its tree, comments and docstrings
left out, each string literal one token, with a coarse kind and code-point offsets.

The difference finder (``metrics.differences``) aligns these between a candidate and its
reference; like every parse, they are made here (``analysis`` is the only package that touches
tree-sitter) and cached by content.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Literal, NamedTuple

from tree_sitter import Node

from .. import languages
from .cache import sized_cache
from ..parsing.memo import TextMemo
from ..parsing.parsed import parse
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
    """The code tokens of ``text`` in order (cached by content); () for an unknown language.

    An error-free tree is read per top-level part (a child of its root), each part's tokens kept
    by the part's text (``_PARTS``): an edit reads again only the parts it changed, the others'
    tokens are shifted to their new place. A tree with errors is read whole."""
    try:
        spec = languages.get(language)
    except languages.UnknownLanguageError:
        return ()
    root, offsets, parts = _read(text, spec)
    if parts is None:
        return _whole(root, text, offsets, spec)
    found: list[CodeToken] = []
    for part in parts:
        found.extend(part.tokens().placed(part.start, part.line))
    return tuple(found)


def code_tokens_over(text: str, language: str, limit: int = MAX_TOKENS) -> bool:
    """Whether ``text`` has more than ``limit`` code tokens (``len(code_tokens(...)) > limit``),
    read part by part only until the count passes the limit: a 20,000-line file's 100,000 tokens
    are never built to learn that they are too many (an unknown language has none)."""
    found = code_tokens.peek(text, language)
    if found is not None:
        return len(found) > limit
    try:
        spec = languages.get(language)
    except languages.UnknownLanguageError:
        return False
    parts = _read(text, spec)[2]
    if parts is None:
        return len(code_tokens(text, language)) > limit
    count = 0
    for part in parts:
        count += len(part.tokens().relative)
        if count > limit:
            return True
    return False


def _read(text: str, spec: languages.LanguageSpec) -> tuple[Node, OffsetMap, list["_PartAt"] | None]:
    """The tree's root, the offset map and, for an error-free tree, its parts (kept ones reused)
    with the offset and line each starts at (None: read the tree whole). The last text read is
    kept: a count, then the tokens of the same text, parse it once."""
    last = _LAST_READ[0]
    if last is not None and last[0] is text and last[1] == spec.name:
        return last[2]
    read = _read_tree(text, spec)
    _LAST_READ[0] = (text, spec.name, read)
    return read


_LAST_READ: list = [None]  # (text, language, what ``_read`` gave), one entry


def _read_tree(text: str, spec: languages.LanguageSpec) -> tuple[Node, OffsetMap, list["_PartAt"] | None]:
    root = parse(spec, text.encode("utf-8")).root_node
    offsets = OffsetMap(text)
    if root.has_error or root.child_count == 0 or root.type in _WHOLE:
        return root, offsets, None
    return root, offsets, [_PartAt(node, text, offsets, spec) for node in _parts(root, spec)]


class _PartAt:
    """A top-level part of a text where it stands: its offset and first line, and its tokens
    (``tokens``: the part kept by its text, read on first use)."""

    __slots__ = ("node", "text", "offsets", "spec", "start", "end", "line")

    def __init__(self, node: Node, text: str, offsets: OffsetMap, spec: languages.LanguageSpec) -> None:
        self.node, self.text, self.offsets, self.spec = node, text, offsets, spec
        self.start, self.end = offsets.from_byte(node.start_byte), offsets.from_byte(node.end_byte)
        self.line = node.start_point[0]

    def tokens(self) -> "_Part":
        return _PARTS(self.text[self.start:self.end], self.spec.name,
                      lambda: _Part(_relative(self.node, self.text, self.offsets, self.spec, self.start, self.line)))


class _Part:
    """One part's tokens from its start, and the last place they were put (a part before an edit
    stays where it was: its tokens are reused as they are)."""

    __slots__ = ("relative", "last")

    def __init__(self, relative: list[CodeToken]) -> None:
        self.relative = relative
        self.last: tuple[int, int, list[CodeToken]] = (0, 0, relative)

    def placed(self, start: int, line: int) -> list[CodeToken]:
        """The tokens with offsets from ``start`` and lines from ``line``."""
        last = self.last  # one read: another thread may place the part elsewhere meanwhile
        if last[0] == start and last[1] == line:
            return last[2]
        tokens = [CodeToken(t, k, y, a + start, b + start, n + line) for t, k, y, a, b, n in self.relative]
        self.last = (start, line, tokens)
        return tokens


def whole_code_tokens(text: str, language: str) -> tuple[CodeToken, ...]:
    """``code_tokens`` read from the whole tree, no part kept or reused (not cached: the
    reading the parts must agree with)."""
    spec = languages.get(language)
    return _whole(spec.parse(text.encode("utf-8")).root_node, text, OffsetMap(text), spec)


def _whole(root: Node, text: str, offsets: OffsetMap, spec: languages.LanguageSpec) -> tuple[CodeToken, ...]:
    return tuple(sorted(_walk([root], text, offsets, spec), key=_START))


#: A top-level part's tokens by its text, offsets and lines from the part's start (a 20,000-line
#: file has about 2,000 parts).
_PARTS: TextMemo["_Part"] = TextMemo(entries=8192, chars=4_000_000)
_START = attrgetter("start")


def _parts(root: Node, spec: languages.LanguageSpec) -> list[Node]:
    """The root's children whose tokens count (not a module docstring; comments give none)."""
    children = root.children
    if spec.docstrings and root.type in _BODIES and children and is_docstring(children[0]):
        children = children[1:]
    return children


def _relative(part: Node, text: str, offsets: OffsetMap, spec: languages.LanguageSpec, start: int,
              line: int) -> list[CodeToken]:
    """The tokens of one part, their offsets and lines counted from the part's start."""
    found = sorted(_walk([part], text, offsets, spec), key=_START)
    return [CodeToken(t, k, y, a - start, b - start, n - line) for t, k, y, a, b, n in found]


def _walk(stack: list[Node], text: str, offsets: OffsetMap, spec: languages.LanguageSpec) -> list[CodeToken]:
    """The tokens under the nodes of ``stack`` (the last one first), in the order met."""
    skip = spec.comment_node_types
    found: list[CodeToken] = []
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
    return found
