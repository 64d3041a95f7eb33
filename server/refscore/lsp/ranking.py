"""Comparing pieces of code with the reference function they implement (``scoring.pairing``).

* ``refscore.rankAlternatives`` ``[uri, [text | {label, text}, ...], includeLastInserted?]``: two
  or more alternatives (the selection, the clipboard, the document's last inserted block when
  asked) ranked by behaviour, then differences, then resemblance (``scoring.alternatives``);
  returns ``{ranked: [alternative, ...]}`` or ``{error}``.
* ``refscore.referenceChoices`` ``[uri, line]``: the reference functions the function at ``line``
  may implement, best first: ``{function, choices: [{function, uri, range, signature,
  sharedWord, codebleu}]}`` or ``{error}``.
* ``refscore.compareWith`` ``[uri, line, referenceFunction | null]``: that function against the
  one the user chose, an alternative (below) or ``{error}``; from now on the lenses, behaviour
  and code actions pair it with that one (``lsp.pairings``); null: back to the rule
  (``{function, referenceFunction: null}``).

An alternative: ``{label, index, rank, region: {uri, range, function}, codebleu, behaviour:
{agreed, inputs, difference} | {notRun} | null, differences: [{reason, line, code}]}``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Sequence

from ..analysis.functions import Function, top_level_functions
from ..behaviour import BehaviourResult, BehaviourSettings
from ..scoring.alternatives import Alternative, examine, rank_alternatives
from ..scoring.function_behaviour import BehaviourMemo
from ..scoring.pairing import Region, rank_references
from . import arguments
from .behaviour import message
from .results import Result

from .server import RefScoreServer  # at run time: pygls reads the handlers' annotations

log = logging.getLogger(__name__)

RANK = "refscore.rankAlternatives"
CHOICES = "refscore.referenceChoices"
COMPARE = "refscore.compareWith"
MAX_ALTERNATIVES = 8
MAX_TEXT_CHARS = 50_000
#: Differences listed per alternative.
MAX_DIFFERENCES = 5


def _scored(ls: RefScoreServer, uri: str) -> Result | dict[str, str]:
    result = ls.loop.results.get(uri)
    if result is None:
        return {"error": "no reference is known for this document (is it open and does it have one?)"}
    if result.problem is not None or result.spec is None:
        return {"error": result.problem or "this document cannot be scored"}
    return result


def _region_json(result: Result, region: Region) -> dict[str, Any]:
    rng = result.reference_positions(region.reference_index).range(region.start, region.end)
    return {"uri": result.reference_uris[region.reference_index], "function": region.name,
            "range": {"start": {"line": rng.start.line, "character": rng.start.character},
                      "end": {"line": rng.end.line, "character": rng.end.character}}}


def _behaviour_json(found: BehaviourResult | None) -> dict[str, Any] | None:
    if found is None:
        return None
    if not found.ran:
        return {"notRun": found.not_run}
    first = message(found, found.disagreements[0]) if found.disagreements else None
    return {"agreed": found.agreed, "inputs": found.inputs, "difference": first}


def alternative_json(result: Result, alternative: Alternative, text: str, rank: int) -> dict[str, Any]:
    """One alternative as the commands return it."""
    differences = []
    for item in alternative.differences[:MAX_DIFFERENCES]:
        code = " ".join(text[item.start:item.end].split())
        differences.append({"reason": item.reason, "line": item.range[0], "code": code[:80]})
    return {"label": alternative.label, "index": alternative.index, "rank": rank,
            "region": _region_json(result, alternative.region) if alternative.region is not None else None,
            "codebleu": alternative.codebleu, "behaviour": _behaviour_json(alternative.behaviour),
            "differences": differences}


def _alternatives(result: Result, given: Any, last_inserted: bool) -> list[tuple[str, str]]:
    if not isinstance(given, list) or len(given) > MAX_ALTERNATIVES:
        raise ValueError(f"the second argument must be a list of at most {MAX_ALTERNATIVES} texts or {{label, text}}")
    out = []
    for k, item in enumerate(given):
        label, text = (f"alternative {k + 1}", item) if isinstance(item, str) else \
            (item.get("label"), item.get("text")) if isinstance(item, dict) else (None, None)
        if not isinstance(label, str) or not isinstance(text, str):
            raise ValueError(f"alternative {k + 1} must be a text or {{label: string, text: string}}")
        if len(text) > MAX_TEXT_CHARS:
            raise ValueError(f"alternative {k + 1} is {len(text)} characters; the limit is {MAX_TEXT_CHARS}")
        out.append((label, text))
    if last_inserted and result.insertion is not None:
        out.append(("last inserted block", result.text[result.insertion.start:result.insertion.end]))
    return [(label, text) for label, text in out if text.strip()]


def _function_for(ls: RefScoreServer, command: str, usage: str,
                  args: Sequence[Any]) -> tuple[Result, Function] | dict[str, str]:
    """The scored document and the function at the line the command's arguments name, or the
    error to answer (not scored yet, no function there)."""
    uri = arguments.document_uri(command, usage, args)
    line = _line(command, usage, args)
    result = _scored(ls, uri)
    if isinstance(result, dict):
        return result
    function = function_at(result, line)
    if function is None:
        return {"error": f"no function at line {line + 1}"}
    return result, function


def _rank(ls: RefScoreServer, result: Result, alternatives: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    assert result.spec is not None
    behaviour = BehaviourSettings() if ls.behaviour.enabled else None
    ranked = rank_alternatives(alternatives, result.reference_texts, result.spec, ls.scorers.codebleu_many,
                               ls.settings.codebleu_weights, behaviour)
    return [alternative_json(result, a, alternatives[a.index][1], rank) for rank, a in enumerate(ranked, start=1)]


def function_at(result: Result, line: int) -> Function | None:
    """The top-level function of the scored text whose lines hold ``line``."""
    for pair in result.functions:
        first = result.positions.position(pair.function.start).line
        last = result.positions.position(pair.function.end).line
        if first <= line <= last:
            return pair.function
    return None


def _choices(ls: RefScoreServer, result: Result, function: Function) -> list[dict[str, Any]]:
    assert result.spec is not None
    ranked = rank_references(function, result.text, result.reference_texts, result.spec, ls.scorers.codebleu_many,
                             ls.settings.codebleu_weights)
    return [{**_region_json(result, region), "signature": e.signature, "sharedWord": e.shared_word,
             "codebleu": e.resemblance} for region, e in ranked]


def _compare(ls: RefScoreServer, result: Result, function: Function, name: str) -> dict[str, Any]:
    assert result.spec is not None
    spec = result.spec
    region = next((Region(i, f.start, f.end, f.name) for i, ref in enumerate(result.reference_texts)
                   for f in top_level_functions(ref, spec) if f.name == name), None)
    if region is None:
        return {"error": f"the reference has no function {name!r}"}
    text = result.text[function.start:function.end]
    alternative = examine(text, region, result.reference_texts, spec, ls.scorers.codebleu_many,
                          ls.settings.codebleu_weights, _memo(ls, result), label=function.name, function=function,
                          owner=result.text)
    return alternative_json(result, alternative, text, 1)


def _memo(ls: RefScoreServer, result: Result) -> BehaviourMemo | None:
    """Behaviour runs for one answer, when behaviour may run."""
    assert result.spec is not None
    return BehaviourMemo(result.reference_texts, result.spec) if ls.behaviour.enabled else None


def examined(ls: RefScoreServer, result: Result, text: str, region: Region) -> dict[str, Any]:
    """``{behaviour, differences}`` of a text compared with ``region`` (``refscore/scoreText``)."""
    assert result.spec is not None
    try:
        found = examine(text, region, result.reference_texts, result.spec, ls.scorers.codebleu_many,
                        ls.settings.codebleu_weights, _memo(ls, result))
    except Exception:  # noqa: BLE001 - the scores still answer
        log.exception("examining a text failed")
        return {"behaviour": None, "differences": []}
    shown = alternative_json(result, found, text, 1)
    return {"behaviour": shown["behaviour"], "differences": shown["differences"]}


def _line(command: str, usage: str, args: Sequence[Any]) -> int:
    if len(args) < 2 or not isinstance(args[1], int) or isinstance(args[1], bool) or args[1] < 0:
        raise arguments.invalid(command, usage, "the second argument must be a line number (0-based)")
    return args[1]


def register(server: RefScoreServer) -> None:
    @server.command(RANK)
    async def rank(ls: RefScoreServer, *args: Any) -> dict[str, Any]:
        usage = "[documentUri, [text | {label, text}, ...], includeLastInserted?]"
        uri = arguments.document_uri(RANK, usage, args)
        result = _scored(ls, uri)
        if isinstance(result, dict):
            return result
        try:
            alternatives = _alternatives(result, args[1] if len(args) > 1 else None, len(args) > 2 and args[2] is True)
        except ValueError as error:
            raise arguments.invalid(RANK, usage, str(error)) from None
        if len(alternatives) < 2:
            return {"error": "ranking needs two or more alternatives that are not blank"}
        loop = asyncio.get_running_loop()
        return {"ranked": await loop.run_in_executor(ls.behaviour.pool, _rank, ls, result, alternatives)}

    @server.command(CHOICES)
    async def choices(ls: RefScoreServer, *args: Any) -> dict[str, Any]:
        found_at = _function_for(ls, CHOICES, "[documentUri, line]", args)
        if isinstance(found_at, dict):
            return found_at
        result, function = found_at
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(ls.loop.cpu, _choices, ls, result, function)
        return {"function": function.name, "choices": found}

    @server.command(COMPARE)
    async def compare(ls: RefScoreServer, *args: Any) -> dict[str, Any]:
        usage = "[documentUri, line, referenceFunction | null]"
        found_at = _function_for(ls, COMPARE, usage, args)
        if len(args) < 3 or not (args[2] is None or isinstance(args[2], str) and args[2]):
            raise arguments.invalid(COMPARE, usage, "the third argument must be a reference function's name or null")
        if isinstance(found_at, dict):
            return found_at
        result, function = found_at
        uri = result.uri
        if args[2] is None:
            answer: dict[str, Any] = {"function": function.name, "referenceFunction": None}
        else:
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(ls.behaviour.pool, _compare, ls, result, function, args[2])
            if "error" in answer:
                return answer
        ls.behaviour.pairings.choose(uri, function.name, args[2])
        current = ls.loop.results.get(uri)
        if current is not None and ls.behaviour.pairings.needs(current):
            ls.behaviour.pairings.apply(current)
        return answer
