"""Warnings about a submission that is scored anyway: syntax errors (tree-sitter recovers) and
bidirectional control characters (the code may display differently from how it runs)."""

from __future__ import annotations

from typing import Sequence

from .. import languages
from ..analysis.cache import sized_cache
from ..bidi import bidi_warning
from ..languages.native_syntax import UNKNOWN, native_error_line
from .rows import NOT_PARSING

#: The warning of a row whose every reference is empty (its scores are 0 for want of a reference).
EMPTY_REFERENCE = "the reference is empty: there is nothing to compare with, so it scores 0"


def syntax_warning(text: str, language: str) -> str | None:
    """``syntax error near line N`` when the parser had to recover, else None."""
    line = syntax_error_line(text, language)
    return None if line is None else f"syntax error near line {line} (scored with the parser's error recovery)"


def parse_error(text: str, language: str, references: Sequence[str]) -> str | None:
    """``syntax error near line N`` when the submission does not parse although a reference does
    (None when it parses, or when no reference parses either: a snippet or a function body); such a
    submission never passes ``--fail-under`` unless ``--allow-syntax-errors``."""
    line = syntax_error_line(text, language)
    if line is None or (references and all(syntax_error_line(r, language) is not None for r in references)):
        return None
    return f"syntax error near line {line}"


@sized_cache(max_entries=1024, max_chars=2_000_000)
def syntax_error_line(text: str, language: str) -> int | None:
    """The 1-based line of the first syntax error tree-sitter recovered from, else None; where the
    language's own parser runs in process (``languages.native_syntax``), its line (the one the
    student's error message names), and None when it accepts what tree-sitter did not.
    Remembered per text: each submission is checked twice, and a reference once per submission."""
    try:
        spec = languages.get(language)
        root = spec.parse(text.encode("utf-8")).root_node
    except Exception:  # noqa: BLE001 - a check must never break grading
        return None
    if not root.has_error:
        return None
    native = native_error_line(spec, text)
    if native != UNKNOWN:
        return native if isinstance(native, int) else None
    stack = [root]
    while stack:  # the first innermost ERROR or MISSING node in document order: where it went wrong
        node = stack.pop()
        inner = [c for c in node.children if c.has_error or c.is_missing]
        if (node.type == "ERROR" or node.is_missing) and not inner:
            return int(node.start_point[0]) + 1
        stack.extend(reversed(inner))
    return 1


def not_parsing_warning(error: str, combined: bool = True) -> str:
    """The warning of a submission that does not parse although a reference does (``parse_error``):
    its numbers are kept (the combined number's fit reads parse errors as one input among many, so
    a missing colon barely lowers it) and said to be for code that cannot run as written;
    ``combined``: it has the combined RefScore number, named then."""
    return (f"{NOT_PARSING}{error}; its scores{', the combined RefScore too,' if combined else ''} are for the "
            "code the parser recovered, not a sign that it runs")


def submission_warnings(text: str, language: str, references: Sequence[str] = (), combined: bool = True) -> list[str]:
    """Every warning about a scored submission: bidi controls (Trojan Source), syntax errors (said
    as ``not_parsing_warning`` when a reference parses; ``combined``: it has the combined number)."""
    error = parse_error(text, language, references)
    syntax = not_parsing_warning(error, combined) if error else syntax_warning(text, language)
    return [w for w in (bidi_warning(text), syntax) if w]
