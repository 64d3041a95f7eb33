"""Code actions on a function paired with a reference function (``scoring.pairing``):

* ``RefScore: show `average` side by side``: the client command ``refscore.showReferenceSideBySide``
  ``[{uri, range, referenceUri, referenceRange, function, referenceFunction}]`` (VS Code: a
  diff editor of the two functions);
* ``RefScore: compare with reference function...``: the client command
  ``refscore.compareWithReference`` ``[uri, line]``, which lists the server's
  ``refscore.referenceChoices`` and shows ``refscore.compareWith`` for the one picked.

Only on a function the last result scored and the edits since left untouched (its ranges are
the current text's), and only the actions whose commands the client says it runs
(``initializationOptions.clientCommands``; the VS Code extension names both)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..bidi import printable
from .current import view

if TYPE_CHECKING:
    from .server import RefScoreServer

SIDE_BY_SIDE = "refscore.showReferenceSideBySide"
COMPARE_WITH = "refscore.compareWithReference"


def _range_json(rng: types.Range) -> dict[str, Any]:
    return {"start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character}}


def actions(ls: "RefScoreServer", uri: str, at: types.Range) -> list[types.CodeAction]:
    """The actions for the function that holds ``at``'s start."""
    seen = view(ls, uri)
    if seen is None or seen.result.problem is not None:
        return []
    result = seen.result
    for pair in result.functions:
        rng = seen.range(pair.function.start, pair.function.end)
        if rng is None or not (rng.start.line <= at.start.line <= rng.end.line):
            continue
        line = result.positions.position(pair.function.start).line
        offered = ls.behaviour.client_commands
        out = [] if COMPARE_WITH not in offered else [types.CodeAction(title="RefScore: compare with reference function...", kind=types.CodeActionKind.Empty,
                                command=types.Command(title="Compare with reference function...",
                                                      command=COMPARE_WITH, arguments=[uri, line]))]
        region = pair.region
        if region is not None and region.name is not None and SIDE_BY_SIDE in offered:
            ref_range = result.reference_positions(region.reference_index).range(region.start, region.end)
            title = printable(f"RefScore: show `{region.name}` side by side")
            target = {"uri": uri, "range": _range_json(rng), "function": pair.function.name,
                      "referenceUri": result.reference_uris[region.reference_index],
                      "referenceRange": _range_json(ref_range), "referenceFunction": region.name}
            out.insert(0, types.CodeAction(title=title, kind=types.CodeActionKind.Empty,
                                           command=types.Command(title=title, command=SIDE_BY_SIDE, arguments=[target])))
        return out
    return []


def register(server: "RefScoreServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    def code_action(ls: "RefScoreServer", params: types.CodeActionParams) -> list[types.CodeAction]:
        return actions(ls, params.text_document.uri, params.range)
