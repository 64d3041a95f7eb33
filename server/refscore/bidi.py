"""Bidirectional control characters: find them in code ("Trojan Source") and show them in names.

Bidi controls (the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069, and the
marks U+200E, U+200F, U+061C) change the order in which text is displayed, not the order in
which it is read. In code they can make what a reviewer sees differ from what runs (CVE-2021-42574);
in a file name they can make ``bidi_<U+202E>cod.py`` display as another name. RefScore scores such
code (it is only text to the metrics) but warns about it in every front end, and shows names with
the controls replaced by visible ``<U+202E>`` markers. ``printable`` does the same for control
characters too, for whatever goes to a terminal (names, ids, code in the heat view).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from .errors import LONE_SURROGATE

#: Every bidirectional formatting character Unicode defines.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
BIDI_PATTERN = re.compile("[" + "".join(sorted(BIDI_CONTROLS)) + "]")


@dataclass(frozen=True)
class BidiControl:
    """One control character: its code-point offset, line (0-based) and name."""

    offset: int
    line: int
    char: str

    @property
    def code(self) -> str:
        """``U+202E``."""
        return f"U+{ord(self.char):04X}"

    @property
    def name(self) -> str:
        """``RIGHT-TO-LEFT OVERRIDE``."""
        return unicodedata.name(self.char, self.code)


def find_bidi(text: str) -> list[BidiControl]:
    """Every bidi control in ``text``, in order."""
    out = []
    line = last = 0
    for match in BIDI_PATTERN.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        out.append(BidiControl(match.start(), line, match.group()))
    return out


def bidi_warning(found: Sequence[BidiControl]) -> str | None:
    """One line saying where the code holds the bidi controls ``found`` (``find_bidi``; a report's
    checks), or None when it holds none."""
    if not found:
        return None
    kinds = ", ".join(sorted({c.code for c in found}))
    lines = sorted({c.line + 1 for c in found})
    where = ", ".join(str(n) for n in lines[:5]) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
    return (f"bidirectional control character(s) {kinds} on line(s) {where}: the code may display "
            "differently from how it runs (Trojan Source)")


def reveal(text: str) -> str:
    """``text`` with each bidi control replaced by a visible ``<U+202E>`` marker."""
    return BIDI_PATTERN.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


#: C0 and C1 control characters and DEL. In a name on a terminal, ESC can clear the screen or
#: recolour what follows, CR and LF can forge lines of output ("all submissions reach ...").
CONTROL_CHARACTERS = frozenset([chr(c) for c in range(0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)])
_UNSAFE = re.compile("[" + re.escape("".join(sorted(CONTROL_CHARACTERS | BIDI_CONTROLS))) + "]")


def printable(text: str, keep: str = "") -> str:
    """``text`` for a terminal: bidi controls, control characters and DEL replaced by visible
    ``<U+001B>`` markers, except those in ``keep`` (``"\n\t"`` for code shown as code)."""
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else f"<U+{ord(m.group()):04X}>", text)


def readable(text: str) -> str:
    """``text`` with each lone surrogate spelled out, so it can be written as UTF-8: a file name
    byte that is not UTF-8 (``\\xff``, decoded by Python as U+DCFF) becomes ``\\xff``, any other
    lone surrogate (an escaped ``"\\udc00"`` in JSON) ``\\udc00``."""
    if not LONE_SURROGATE.search(text):
        return text
    return LONE_SURROGATE.sub(lambda m: (f"\\x{ord(m[0]) - 0xDC00:02x}" if 0xDC80 <= ord(m[0]) <= 0xDCFF
                                     else f"\\u{ord(m[0]):04x}"), text)
