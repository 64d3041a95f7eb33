"""A small, diverse set of inputs, chosen after the reference ran on every candidate input:
inputs it fails or runs long on are dropped (a teacher's own kept), and so are made inputs on which
it returns None when none of the inputs it shows does; the trusted ones are kept first, then
boundaries, then one of each distinct reference output in turn."""

from __future__ import annotations

import json
import random
from typing import Any, Mapping, Sequence

from .calls import ORIGINS, Call

#: A reference call slower than this is not used (the candidate's limit follows from it).
SLOW_SECONDS = 0.5


def usable(call: Call, record: Mapping[str, Any]) -> bool:
    """Whether the reference's outcome makes ``call`` an input worth running the candidate on."""
    if "v" in record:
        return float(record.get("s", 0.0)) <= SLOW_SECONDS
    if "e" in record:
        return call.origin == "file"
    return False


def choose(calls: Sequence[Call], records: Sequence[Mapping[str, Any]], per_function: int,
           seed: int = 0) -> list[int]:
    """Indexes of the inputs kept, at most ``per_function`` per function, in a fixed order."""
    rng = random.Random(seed)
    kept: list[int] = []
    functions = list(dict.fromkeys(c.function for c in calls))
    for function in functions:
        indexes = [i for i, c in enumerate(calls) if c.function == function and usable(c, records[i])]
        if _never_none(calls, records, indexes):  # a None result off the examples' path: a bad input
            indexes = [i for i in indexes if calls[i].origin in _SHOWN or records[i].get("v") != _NONE]
        chosen: list[int] = []
        for origin in ORIGINS[:4]:  # file, example, main, boundary: every one, in order
            chosen += [i for i in indexes if calls[i].origin == origin]
        chosen = chosen[:per_function]
        rest = [i for i in indexes if i not in set(chosen)]
        rng.shuffle(rest)
        groups: dict[str, list[int]] = {}
        seen_outputs = {_output_key(records[i]) for i in chosen}
        for i in rest:
            groups.setdefault(_output_key(records[i]), []).append(i)
        # first every output not yet seen, then round-robin over all outputs
        order = sorted(groups, key=lambda k: (k in seen_outputs,))
        while len(chosen) < per_function and any(groups.values()):
            for key in order:
                if groups[key] and len(chosen) < per_function:
                    chosen.append(groups[key].pop(0))
        kept += chosen
    return kept


_SHOWN = ("file", "example", "main")
_NONE = ["n"]


def _never_none(calls: Sequence[Call], records: Sequence[Mapping[str, Any]], indexes: Sequence[int]) -> bool:
    """Whether the reference returns a value on every input it shows and None on none of them:
    then a made input on which it returns None fell off its end (``for ... return i``), outside
    the inputs it was written for."""
    shown = [records[i] for i in indexes if calls[i].origin in _SHOWN and "v" in records[i]]
    return bool(shown) and all(record["v"] != _NONE for record in shown)


def _output_key(record: Mapping[str, Any]) -> str:
    return json.dumps([record.get("v"), record.get("e"), record.get("mut")], sort_keys=True)
