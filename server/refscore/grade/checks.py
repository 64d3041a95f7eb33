"""Warnings about a submission that is scored anyway: syntax errors (tree-sitter recovers) and
bidirectional control characters (the code may display differently from how it runs)."""

from __future__ import annotations

from .. import languages
from ..bidi import bidi_warning


def syntax_warning(text: str, language: str) -> str | None:
    """``syntax error near line N`` when the parser had to recover, else None."""
    try:
        root = languages.get(language).parse(text.encode("utf-8")).root_node
    except Exception:  # noqa: BLE001 - a warning must never break grading
        return None
    if not root.has_error:
        return None
    node = root
    while True:
        if node.type == "ERROR" or node.is_missing:
            break
        child = next((c for c in node.children if c.has_error or c.is_missing), None)
        if child is None:
            break
        node = child
    return f"syntax error near line {node.start_point[0] + 1} (scored with the parser's error recovery)"


def submission_warnings(text: str, language: str) -> list[str]:
    """Every warning about a scored submission: bidi controls (Trojan Source), syntax errors."""
    return [w for w in (bidi_warning(text), syntax_warning(text, language)) if w]
