"""Lenses of a file with many functions, scored when the client shows them (``codeLens/resolve``).

A file of more than ``EAGER_FUNCTIONS`` paired functions does not ask the daemon for every
function's CodeBERTScore with the document's: its summary comes first, and each function's F3 is
asked for when its lens is resolved, which clients do for the lenses on screen. The answer is kept
by request (the loop's ``bert_memo``), so a lens resolved again, or after an edit elsewhere, costs
nothing. Smaller files keep their functions' F3 in the result, as before.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..scoring.per_function import bert_requests, with_bert
from ..scoring.report import ScoreRequest
from .requests import request_for
from .results import Result
from .scorers import ScorerUnavailable, Superseded

#: What a per-function lens runs when clicked (the reference's parts this function lacks).
MISSING_COMMAND = "refscore.missingFromReference"

if TYPE_CHECKING:
    from .server import RefScoreServer

log = logging.getLogger(__name__)

#: Paired functions beyond this many: their CodeBERTScore is asked for per lens, when resolved.
EAGER_FUNCTIONS = 50


def lazy_functions(result: Result) -> bool:
    """Whether ``result``'s functions get their CodeBERTScore when their lenses are resolved."""
    return sum(1 for pair in result.functions if pair.region is not None) > EAGER_FUNCTIONS


def model_requests(result: Result, settings: Any, live: bool) -> tuple[ScoreRequest, list[ScoreRequest], list[ScoreRequest]]:
    """The daemon's CodeBERTScore requests for ``result``: the whole document (``live``: its
    definitions encoded one by one, by the text alone, so a save changes no number), each paired
    function's unless there are many (their F3 is asked for when a lens is resolved), and that
    of a large insertion, also as one list in that order."""
    spec = result.spec
    assert spec is not None and result.report is not None
    whole = request_for(settings, result.text, result.reference_texts, spec.name, result.choice.context,
                        ("codebertscore",))
    per_function = [] if lazy_functions(result) else bert_requests(result.functions, whole)
    whole = replace(whole, live=live)
    requests = [whole, *per_function]
    if result.insertion is not None:
        region = result.insertion.region
        requests.append(replace(whole, candidate=result.text[result.insertion.start:result.insertion.end],
                                references=(result.reference_texts[region.reference_index][region.start:region.end],)))
    return whole, per_function, requests


def wants_resolve(server: "RefScoreServer", result: Result, pair: Any) -> bool:
    """Whether the lens of ``pair`` goes out unresolved (its F3 is asked for at resolve)."""
    return (pair.region is not None and pair.f3 is None and result.bert_state == "done"
            and server.settings.codebertscore_on and lazy_functions(result))


def resolve_data(result: Result, index: int) -> dict[str, Any]:
    """What an unresolved lens carries to find its function again."""
    return {"uri": result.uri, "version": result.version, "index": index}


async def resolved(server: "RefScoreServer", lens: types.CodeLens, title: Any) -> types.CodeLens:
    """``lens`` with its command: the function's CodeBERTScore asked for now (``title(pair)`` names
    it); the CodeBLEU title alone when the result moved on or the daemon cannot answer."""
    data = lens.data if isinstance(lens.data, dict) else {}
    where = data.get("resolve") if isinstance(data.get("resolve"), dict) else {}
    uri, version, index = where.get("uri"), where.get("version"), where.get("index")
    result = server.loop.results.get(uri) if isinstance(uri, str) else None
    if result is None or result.version != version or not isinstance(index, int) \
            or not 0 <= index < len(result.functions):
        return lens  # the client asks for the document's lenses again after the next result
    pair = result.functions[index]
    if pair.region is not None and pair.f3 is None and result.spec is not None:
        whole = request_for(server.settings, result.text, result.reference_texts, result.spec.name,
                            result.choice.context, ("codebertscore",))
        try:
            reports = await asyncio.get_running_loop().run_in_executor(
                server.loop.daemon, server.loop._bert_reports, bert_requests([pair], whole), uri)
            pair = with_bert([pair], reports)[0]
        except (ScorerUnavailable, Superseded) as error:
            log.info("a lens's CodeBERTScore: %s", error)
    lens.command = types.Command(title=title(pair), command=MISSING_COMMAND, arguments=[uri])
    if isinstance(lens.data, dict):
        lens.data.update(f3=pair.f3, f1=pair.f1)
    return lens
