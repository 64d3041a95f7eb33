"""Scanning example text (a docstring, a comment) for brackets outside string literals."""

from __future__ import annotations

from typing import Iterator

#: How many characters a scan reads at the most.
SCAN_LIMIT = 20000


def outside_strings(text: str, start: int = 0, quotes: str = "'\"",
                    one_line: str = "") -> Iterator[tuple[int, str, int]]:
    """``(index, char, depth)`` for each character of ``text`` from ``start`` that is outside a
    string literal, ``depth`` being the bracket depth after it (``([{`` open, ``)]}`` close).
    A string opens with one of ``quotes`` and a backslash escapes the character after it; the scan
    stops at a newline inside a string quoted with one of ``one_line``, and after ``SCAN_LIMIT``
    characters."""
    depth, quote, index = 0, "", start
    while index < len(text) and index - start < SCAN_LIMIT:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
            elif char == "\n" and quote in one_line:
                return
        elif char in quotes:
            quote = char
        else:
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
            yield index, char, depth
        index += 1


def closing(text: str, start: int, quotes: str = "'\"", one_line: str = "") -> int | None:
    """Index of the bracket that closes ``text[start]``, skipping strings (``outside_strings``'
    ``quotes`` and ``one_line``); None when unbalanced."""
    for index, char, depth in outside_strings(text, start, quotes, one_line):
        if char in ")]}" and depth == 0:
            return index
    return None
