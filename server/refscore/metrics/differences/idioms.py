"""Spellings of one update that the alignment reads as the same: ``x = x + y`` as ``x += y``
and ``x += 1`` as ``x++`` (likewise for ``-``, ``*``, ``/``, ``%``).

``equivalent_keys`` rewrites comparison keys only (the tokens and their offsets stay): the
update's operator gets the compound operator's key, the tokens the short form lacks get
``FILLER``, which matches nothing and which a run of its own never reports (``only_filler``).
"""

from __future__ import annotations

from typing import Sequence

from ...analysis.leaves import CodeToken

FILLER = "\x03"
_OPS = frozenset("+-*/%")
_STOPS = frozenset({";", ")", "}", ","})


def _operand_ends(tokens: Sequence[CodeToken], at: int) -> bool:
    """Whether the operand starting at ``at`` runs to the statement's end with no operator outside
    brackets (so ``x = x + y`` is ``x += y``, but ``x = x + y * z`` is left alone)."""
    depth = 0
    line = tokens[at - 1].line
    for token in tokens[at:]:
        if token.line != line and depth == 0:
            return True
        if token.text in ("(", "["):
            depth += 1
        elif token.text in (")", "]"):
            if depth == 0:
                return True
            depth -= 1
        elif depth == 0 and (token.text in _STOPS or token.kind == "keyword"):
            return True
        elif depth == 0 and token.kind == "operator":
            return False
    return True


def equivalent_keys(tokens: Sequence[CodeToken], keys: Sequence[str]) -> list[str]:
    """``keys`` with the idioms above read as their short forms."""
    out = list(keys)
    n = len(tokens)
    for i, token in enumerate(tokens):
        if token.kind != "name" or i + 4 > n:
            continue
        eq, again, op = tokens[i + 1], tokens[i + 2], tokens[i + 3]
        if (eq.text == "=" and again.kind == "name" and keys[i + 2] == keys[i] and op.text in _OPS
                and again.line == token.line and i + 4 < n and _operand_ends(tokens, i + 4)):
            out[i + 1], out[i + 2], out[i + 3] = op.text + "=", FILLER, FILLER
    for i in range(n - 2):
        if (tokens[i].kind == "name" and tokens[i + 1].text in ("+=", "-=") and tokens[i + 2].text == "1"
                and out[i + 1] == tokens[i + 1].text and (i + 3 == n or tokens[i + 3].line != tokens[i].line
                                                          or tokens[i + 3].text in _STOPS)):
            out[i + 1], out[i + 2] = tokens[i + 1].text[0] * 2, FILLER
    return out


def only_filler(keys: Sequence[str], lo: int, hi: int) -> bool:
    """Whether ``keys[lo:hi]`` are all ``FILLER`` (a run the short form simply does not spell)."""
    return hi > lo and all(k == FILLER for k in keys[lo:hi])
