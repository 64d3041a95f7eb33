"""Code lenses: the scores of each top-level function or method against its reference function
(same name, else the one it implements: ``scoring.pairing``). Clicking one lists what the reference
lacks; where behaviour ran (``lsp.behaviour``) a second lens says on how many inputs it agrees."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..bidi import printable
from .current import view
from .lazy_lenses import MISSING_COMMAND, resolve_data, resolved, wants_resolve
from .render import num

if TYPE_CHECKING:
    from .server import RefScoreServer


def lens_title(pair: Any) -> str:
    if pair.region is None:
        return "RefScore: no matching reference function"
    if pair.pending:
        return printable(f"RefScore: scoring vs {pair.region.name}...")
    how = {"name": "same name", "behaviour": "behaves alike", "chosen": "your choice"}.get(pair.matched_by,
                                                                                        "best aligned")
    f3 = f" · F3 {num(pair.f3)}" if pair.f3 is not None else ""
    return printable(f"RefScore: CodeBLEU {num(pair.codebleu)}{f3} vs {pair.region.name} ({how})")


def register(server: "RefScoreServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    async def code_lens(ls: "RefScoreServer", params: types.CodeLensParams) -> list[types.CodeLens]:
        await ls.loop.scored_functions(params.text_document.uri)
        seen = view(ls, params.text_document.uri)
        if seen is None or seen.result.problem is not None:
            return []
        result = seen.result
        lenses = []
        for index, pair in enumerate(result.functions):
            # the lens stays while the function's first character is untouched by an unscored edit
            start = seen.span(pair.function.start, pair.function.start + 1)
            if start is None:
                continue
            rng = seen.positions.range(start[0], start[0])
            data: dict[str, Any] = {"function": pair.function.name, "codebleu": pair.codebleu, "f3": pair.f3,
                                    "f1": pair.f1, "matchedBy": pair.matched_by}
            if pair.region is not None:
                ref_line = result.reference_positions(pair.region.reference_index).position(pair.region.start).line
                data.update(reference=result.reference_uris[pair.region.reference_index],
                            referenceFunction=pair.region.name, referenceLine=ref_line)
            if wants_resolve(ls, result, pair):  # many functions: its F3 is asked for when shown
                data["resolve"] = resolve_data(result, index)
                lenses.append(types.CodeLens(range=rng, data=data))
            else:
                lenses.append(types.CodeLens(range=rng, data=data, command=types.Command(
                    title=lens_title(pair), command=MISSING_COMMAND, arguments=[result.uri])))
            behaviour = ls.behaviour.lens_title(result, pair)
            if behaviour is not None:  # a label: the diagnostic on the function says where it differs
                lenses.append(types.CodeLens(range=rng, data={"function": pair.function.name, "kind": "behaviour"},
                                             command=types.Command(title=behaviour, command="")))
        return lenses

    @server.feature(types.CODE_LENS_RESOLVE)
    async def code_lens_resolve(ls: "RefScoreServer", lens: types.CodeLens) -> types.CodeLens:
        return await resolved(ls, lens, lens_title)
