"""Diagnostics for bidirectional control characters in a document ("Trojan Source"): code that
may display differently from how it runs gets a Warning at each control character. The controls
are the report's (``scoring.checks`` found them once, ``Result.bidi``); this only renders them."""

from __future__ import annotations

from lsprotocol import types

from .results import Result

SOURCE = "refscore"
BIDI_CONTROL = "refscore.bidi-control"
#: At most this many bidi diagnostics per document (the first ones); the message says how many.
MAX_BIDI_DIAGNOSTICS = 20


def bidi_diagnostics(result: Result) -> list[types.Diagnostic]:
    """A Warning on each of the first bidi controls in the document, naming it."""
    found = result.bidi
    total = f" ({len(found)} in this file)" if len(found) > 1 else ""
    return [types.Diagnostic(
        range=result.positions.range(c.offset, c.offset + 1),
        message=f"bidirectional control character {c.code} ({c.name}): the code may display differently "
                f"from how it runs (Trojan Source){total}",
        severity=types.DiagnosticSeverity.Warning, source=SOURCE, code=BIDI_CONTROL,
        data={"version": result.version, "char": c.code})
        for c in found[:MAX_BIDI_DIAGNOSTICS]]
