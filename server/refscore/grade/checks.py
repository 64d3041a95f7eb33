"""Warnings about a submission that is scored anyway, rendered from its report's checks
(``scoring.checks``, recorded once by the pipeline): syntax errors (tree-sitter recovers) and
bidirectional control characters (the code may display differently from how it runs)."""

from __future__ import annotations

from ..bidi import bidi_warning
from ..scoring.checks import Checks
from .rows import NOT_PARSING

#: The warning of a row whose every reference is empty (its scores are 0 for want of a reference).
EMPTY_REFERENCE = "the reference is empty: there is nothing to compare with, so it scores 0"


def syntax_warning(checks: Checks) -> str | None:
    """``syntax error near line N`` when the parser had to recover, else None."""
    line = checks.syntax_error
    return None if line is None else f"syntax error near line {line} (scored with the parser's error recovery)"


def not_parsing_warning(error: str, combined: bool = True) -> str:
    """The warning of a submission that does not parse although a reference does
    (``Checks.parse_error``): its numbers are kept (the combined number's fit reads parse errors
    as one input among many, so a missing colon barely lowers it) and said to be for code that
    cannot run as written; ``combined``: it has the combined RefScore number, named then.
    Such a submission never passes ``--fail-under`` unless ``--allow-syntax-errors``."""
    return (f"{NOT_PARSING}{error}; its scores{', the combined RefScore too,' if combined else ''} are for the "
            "code the parser recovered, not a sign that it runs")


def submission_warnings(checks: Checks, combined: bool = True) -> list[str]:
    """Every warning about a scored submission: bidi controls (Trojan Source), syntax errors (said
    as ``not_parsing_warning`` when a reference parses; ``combined``: it has the combined number)."""
    error = checks.parse_error
    syntax = not_parsing_warning(error, combined) if error else syntax_warning(checks)
    return [w for w in (bidi_warning(checks.bidi), syntax) if w]
