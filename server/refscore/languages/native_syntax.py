"""A language's own parser, where RefScore can run it in process, as the judge of a syntax error.

tree-sitter recovers from an error somewhere near it: for ``for w in words`` without its colon
it marks the next line, one off from what Python says. Where a language's own parser is at hand
(Python's ``compile``), its line is the line a student's error message names, and code it
accepts parses whatever tree-sitter's recovery thought.
"""

from __future__ import annotations

import warnings

from .spec import LanguageSpec

#: Nothing parsed: the language has no parser RefScore can run in process.
UNKNOWN = "unknown"


def native_error_line(spec: LanguageSpec, text: str) -> int | str | None:
    """The 1-based line of the first syntax error the language's own parser reports, None when
    it accepts ``text``, ``UNKNOWN`` when the language has no in-process parser here."""
    if spec.runner != "python3":
        return UNKNOWN
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and the like are no syntax error
            warnings.simplefilter("ignore")
            compile(text, "<submission>", "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except SyntaxError as error:  # IndentationError and TabError too
        return max(1, int(error.lineno or 1))
    except (ValueError, RecursionError, MemoryError):  # a NUL byte, nesting deeper than the parser's
        return UNKNOWN
    return None
