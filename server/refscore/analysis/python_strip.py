"""A fast, exact path for the ``codebleu`` package's Python comment and docstring removal.

The package rebuilds Python source from the ``tokenize`` module's tokens, leaving out comments
and every STRING token that follows an INDENT or NEWLINE token or starts at column 0, and keeps
the text unchanged when ``tokenize`` raises (e.g. "unindent does not match any outer indentation
level", common in HumanEval-style function bodies). ``tokenize`` is pure Python and dominated
scoring time, so for ordinary source (no tabs, form feeds, carriage returns or backslash
continuations; no tree-sitter errors) we locate the same tokens with a tree-sitter query, replay
tokenize's line and indentation logic on whole rows, and delete the dropped tokens from the bytes.
Anything else returns None and the caller takes the tokenize path, so results never differ.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import tree_sitter

from .. import languages

_UNSAFE = ("\t", "\f", "\v", "\r", "\\\n", "\x00")
_PATTERN = '(comment) @comment (string) @string ["(" "[" "{"] @open [")" "]" "}"] @close'

CODE, CONTINUATION, BLANK = 0, 1, 2

#: Per thread, the last (source, tree) parsed here: when stripping changes nothing, the analysis
#: of the same text reuses the tree instead of parsing it again (see ``take_parsed``). Per thread
#: because tree-sitter trees are not to be shared between threads.
_last = threading.local()


def take_parsed(source: str) -> tree_sitter.Tree | None:
    """The Python tree of ``source`` if it was the last text this thread parsed here (else None)."""
    last = getattr(_last, "parse", None)
    if last is not None and last[0] == source:
        return last[1]
    return None


@lru_cache(maxsize=1)
def _cursor() -> tree_sitter.QueryCursor:
    return tree_sitter.QueryCursor(tree_sitter.Query(languages.get("python").ts_language, _PATTERN))


def _row_kinds(lines: list[str], captures: dict[str, list[tree_sitter.Node]],
               strings: list[tree_sitter.Node]) -> list[int]:
    """For each row: CODE (starts a logical line), CONTINUATION, or BLANK (empty or comment-only)."""
    depth_change = [0] * (len(lines) + 1)
    for node in captures.get("open", []):
        depth_change[node.start_point[0] + 1] += 1
    for node in captures.get("close", []):
        depth_change[node.start_point[0] + 1] -= 1
    inside_string = [False] * len(lines)
    for node in strings:
        for row in range(node.start_point[0] + 1, node.end_point[0] + 1):
            inside_string[row] = True
    kinds, depth = [], 0
    for row, line in enumerate(lines):
        depth += depth_change[row]
        if depth > 0 or inside_string[row]:
            kinds.append(CONTINUATION)
        else:
            stripped = line.lstrip(" ")
            kinds.append(BLANK if not stripped or stripped.startswith("#") else CODE)
    return kinds


def _dropped_line_starts(lines: list[str], kinds: list[int]) -> dict[int, bool] | None:
    """For each CODE row: whether a STRING that begins it is dropped; None on an IndentationError."""
    drops: dict[int, bool] = {}
    indents = [0]
    previous_kind = CODE  # tokenize starts as if an INDENT had just been read
    for row, (line, kind) in enumerate(zip(lines, kinds)):
        if kind == CODE:
            column = len(line) - len(line.lstrip(" "))
            if column > indents[-1]:
                indents.append(column)
                drops[row] = True  # after INDENT
            elif column < indents[-1]:
                while column < indents[-1]:
                    indents.pop()
                if column != indents[-1]:
                    return None
                drops[row] = column == 0  # after DEDENT
            else:
                drops[row] = column == 0 or previous_kind != BLANK  # NEWLINE, or NL after a blank line
        previous_kind = kind
    return drops


def strip_python_fast(source: str) -> str | None:
    """The package's stripped text, or None when only the tokenize path can tell."""
    if any(mark in source for mark in _UNSAFE):
        return None
    data = source.encode("utf-8")
    tree = languages.get("python").parse(data)
    _last.parse = (source, tree)
    if tree.root_node.has_error:
        return None
    captures = _cursor().captures(tree.root_node)
    strings, outer_end = [], -1
    for node in sorted(captures.get("string", []), key=lambda n: (n.start_byte, -n.end_byte)):
        if node.start_byte >= outer_end:  # strings nested in f-strings belong to the outer token
            strings.append(node)
            outer_end = node.end_byte
    lines = source.split("\n")
    kinds = _row_kinds(lines, captures, strings)
    drops = _dropped_line_starts(lines, kinds)
    if drops is None:
        return source  # tokenize raises IndentationError: the package keeps the text as it is
    cuts = [(n.start_byte, n.end_byte) for n in captures.get("comment", [])]
    for node in strings:
        row, column = node.start_point
        begins_row = kinds[row] == CODE and not data[node.start_byte - column:node.start_byte].strip(b" ")
        if column == 0 or (begins_row and drops[row]):
            cuts.append((node.start_byte, node.end_byte))
    cuts.sort()
    pieces, position = [], 0
    for start, end in cuts:
        pieces.append(data[position:start])
        position = end
    pieces.append(data[position:])
    text = b"".join(pieces).decode("utf-8")
    return "\n".join(line for line in text.split("\n") if line.strip())
