"""Comment and docstring removal, in the two flavours RefScore needs.

* ``strip_compat``: what the ``codebleu`` package does before its syntax and dataflow match
  (the language's ``LanguageSpec.compat_comments``: ``tokenize`` for Python, through an exact
  fast path, ``strip_python_fast``; ``none`` for Ruby; ``c_style`` for every other language:
  C/Java comment rules on the raw text), so the compat API reproduces its numbers.
* Native analysis does not strip text at all: it parses the original text and skips the
  language's comment nodes (see ``refscore.parsing.trees``), so positions stay true.
"""

from __future__ import annotations

import io
import re
import tokenize
from bisect import bisect_right
from itertools import product

from .. import languages
from .cache import sized_cache

_C_STYLE = re.compile(r"""//.*?$|/\*.*?\*/|'(?:\\.|[^\\'])*'|"(?:\\.|[^\\"])*\"""", re.DOTALL | re.MULTILINE)


def _drop_blank_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line.strip())


def _strip_c_style(source: str) -> str:
    def keep_strings(match: re.Match[str]) -> str:
        found = match.group(0)
        return " " if found.startswith("/") else found

    return _drop_blank_lines(_C_STYLE.sub(keep_strings, source))


def _strip_python(source: str) -> str:
    """Rebuild the source from its tokens, leaving out comments and statement-level strings."""
    pieces: list[str] = []
    previous_type = tokenize.INDENT
    last_row, last_col = -1, 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        (start_row, start_col), (end_row, end_col) = token.start, token.end
        if start_row > last_row:
            last_col = 0
        if start_col > last_col:
            pieces.append(" " * (start_col - last_col))
        if token.type == tokenize.COMMENT:
            pass
        elif token.type == tokenize.STRING:
            # A string right after INDENT or NEWLINE, or at column 0, is a docstring-like statement.
            if previous_type not in (tokenize.INDENT, tokenize.NEWLINE) and start_col > 0:
                pieces.append(token.string)
        else:
            pieces.append(token.string)
        previous_type = token.type
        last_row, last_col = end_row, end_col
    return _drop_blank_lines("".join(pieces))


# A fast, exact path for the ``codebleu`` package's Python comment and docstring removal.
#
# The package rebuilds Python source from the ``tokenize`` module's tokens, leaving out comments
# and every STRING token that follows an INDENT or NEWLINE token or starts at column 0, and keeps
# the text unchanged when ``tokenize`` raises (e.g. "unindent does not match any outer indentation
# level", common in HumanEval-style function bodies). ``tokenize`` is pure Python and dominated
# scoring time. For ordinary source (no tabs, form feeds, carriage returns, NULs or backslash
# continuations) only comments, strings and brackets decide what it does, so we find those with
# tokenize's own string and comment patterns (one regular-expression search per comment or
# string), replay its line and indentation logic on whole rows, and delete the dropped tokens.
# Whatever tokenize would stop on (an unterminated string, unbalanced brackets) returns None and the
# caller takes the tokenize path, so results never differ.

_UNSAFE = ("\t", "\f", "\v", "\r", "\\\n", "\x00")

# tokenize's string bodies (Python 3.11): single-quoted ones end on their line, triple-quoted
# ones may span lines; a backslash escapes the next character.
_SINGLE = re.compile(r"""'[^\n'\\]*(?:\\.[^\n'\\]*)*'|"[^\n"\\]*(?:\\.[^\n"\\]*)*\"""")
_TRIPLE = re.compile(r"""'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''|\"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"""",
                     re.DOTALL)
_START = re.compile(r"""[#'"]""")
#: tokenize's string prefixes, every casing (a prefix is part of the STRING token)
_PREFIXES = frozenset("".join(p) for base in ("r", "u", "f", "b", "br", "rb", "fr", "rf")
                      for p in product(*[(c, c.upper()) for c in base]))

CODE, CONTINUATION, BLANK = 0, 1, 2


def _token_start(source: str, quote: int) -> int:
    """Where the string whose opening quote is at ``quote`` starts (before its prefix, if any)."""
    for width in (2, 1):
        start = quote - width
        if start >= 0 and source[start:quote] in _PREFIXES:
            before = source[start - 1] if start else " "
            if not (before.isalnum() or before == "_"):
                return start
    return quote


def _comments_and_strings(source: str) -> list[tuple[int, int, bool]] | None:
    """(start, end, is a string) of each comment and string token; None if a string is unterminated."""
    found: list[tuple[int, int, bool]] = []
    position = 0
    search = _START.search
    while True:
        match = search(source, position)
        if match is None:
            return found
        at = match.start()
        mark = source[at]
        if mark == "#":
            end = source.find("\n", at)
            end = len(source) if end < 0 else end
            found.append((at, end, False))
        else:
            body = (_TRIPLE if source.startswith(mark * 3, at) else _SINGLE).match(source, at)
            if body is None:
                return None
            end = body.end()
            found.append((_token_start(source, at), end, True))
        position = end


def _row_kinds(lines: list[str], code_lines: list[str], string_rows: set[int] | tuple) -> list[int] | None:
    """For each row: CODE (starts a logical line), CONTINUATION, or BLANK (empty or comment-only).
    ``code_lines`` are the rows with comments and strings removed (for counting brackets); None
    when the brackets do not balance (tokenize would raise or treat rows differently)."""
    kinds, depth = [], 0
    for row, line in enumerate(lines):
        if depth > 0 or row in string_rows:
            kinds.append(CONTINUATION)
        else:
            stripped = line.lstrip(" ")
            kinds.append(BLANK if not stripped or stripped[0] == "#" else CODE)
        code = code_lines[row]
        if "(" in code or ")" in code or "[" in code or "]" in code or "{" in code or "}" in code:
            depth += (code.count("(") + code.count("[") + code.count("{")
                      - code.count(")") - code.count("]") - code.count("}"))
            if depth < 0:
                return None
    return kinds if depth == 0 else None


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
    for mark in _UNSAFE:
        if mark in source:
            return None
    lines = source.split("\n")
    if "#" not in source and "'" not in source and '"' not in source and all(map(str.strip, lines)):
        return source  # nothing to remove and no blank line to drop, whatever the indentation
    tokens = _comments_and_strings(source)
    if tokens is None:
        return None
    rows: list[int] = []
    starts: list[int] = []
    string_rows: set[int] | tuple = ()
    if tokens:
        starts = [0]
        offset = 0
        for line in lines:
            offset += len(line) + 1
            starts.append(offset)
        pieces, position, string_rows = [], 0, set()
        for start, end, is_string in tokens:
            first = bisect_right(starts, start) - 1
            rows.append(first)
            pieces.append(source[position:start])
            if is_string:
                last = bisect_right(starts, end - 1, first) - 1
                if last > first:
                    string_rows.update(range(first + 1, last + 1))
                    pieces.append("\n" * (last - first))
            position = end
        pieces.append(source[position:])
        code_lines = "".join(pieces).split("\n")
    else:
        code_lines = lines
    kinds = _row_kinds(lines, code_lines, string_rows)
    if kinds is None:
        return None
    drops = _dropped_line_starts(lines, kinds)
    if drops is None:
        return source  # tokenize raises IndentationError: the package keeps the text as it is
    cuts = []
    for (start, end, is_string), row in zip(tokens, rows):
        if not is_string or start == starts[row] or (
                drops.get(row) and kinds[row] == CODE and not source[starts[row]:start].strip(" ")):
            cuts.append((start, end))
    text = source
    if cuts:
        kept, position = [], 0
        for start, end in cuts:
            kept.append(source[position:start])
            position = end
        kept.append(source[position:])
        text = "".join(kept)
    return "\n".join(line for line in text.split("\n") if line.strip())


@sized_cache(max_entries=8192, max_chars=4_000_000)
def strip_compat(source: str, language: str) -> str:
    """Remove comments (and Python docstrings) exactly as ``codebleu`` 0.7.0 does.

    Like the package, any failure (e.g. Python that does not tokenize) leaves the text unchanged;
    a language not in the registry raises ``UnknownLanguageError``.
    """
    rule = languages.get(language).compat_comments
    try:
        if rule == "tokenize":
            fast = strip_python_fast(source)
            return fast if fast is not None else _strip_python(source)
        if rule == "none":
            return source
        return _strip_c_style(source)
    except Exception:  # noqa: BLE001 - the package's rule: on failure, keep the text
        return source


def strip_compat_times(source: str, language: str, times: int) -> str:
    """Apply ``strip_compat`` ``times`` times (the package re-strips once per reference)."""
    for _ in range(times):
        stripped = strip_compat(source, language)
        if stripped == source:
            break
        source = stripped
    return source
