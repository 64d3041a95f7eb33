"""Comment and docstring removal, in the two flavours RefScore needs.

* ``strip_compat``: what the ``codebleu`` package does before its syntax and dataflow match
  (the language's ``LanguageSpec.compat_comments``: ``tokenize`` for Python, ``none`` for Ruby,
  ``c_style`` for every other language: C/Java comment rules on the raw text), so the compat API
  reproduces its numbers.
* Native analysis does not strip text at all: it parses the original text and skips the
  language's comment nodes (see ``refscore.parsing.trees``), so positions stay true.
"""

from __future__ import annotations

import io
import re
import tokenize

from .. import languages
from .cache import sized_cache
from .python_strip import strip_python_fast

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
