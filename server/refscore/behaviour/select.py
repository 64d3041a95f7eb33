"""A small, diverse set of inputs, chosen after the reference ran on every candidate input:
inputs it runs long on are dropped, and so are those on which it fails in a way that says the
input was nonsense for it (``expected_raise``) or lies outside its docstring's promise
(``promising``; a teacher's own are kept whatever it raises), and made inputs on which it returns
None when none of the inputs it shows does; the trusted ones are kept first, then boundaries,
then one of each distinct reference output in turn.

Where the reference raises a meaningful exception (``average([])``: ZeroDivisionError), that
exception is the expected outcome (``expected_outcome``): a candidate that returns a value
differs; one that raises agrees (the same type on a teacher's input)."""

from __future__ import annotations

import json
import random
import re
from typing import Any, Mapping, Sequence

from .calls import ORIGINS, Call

#: A reference call slower than this is not used (the candidate's limit follows from it).
SLOW_SECONDS = 0.5


#: Exceptions that say a made input was nonsense for the reference (an argument of the wrong type
#: or shape: ``len(5)``, ``None.append``), that the reference itself is broken (a name it never
#: defined, an import the sandbox lacks), or that a machine limit was reached (deep recursion,
#: memory, a huge number, text that cannot be encoded), not what the reference promises a caller.
#: Inputs on which the reference raises one of these are dropped; any other exception (ValueError,
#: ZeroDivisionError, IndexError, KeyError, an exception class of its own...) is its answer.
NONSENSE = frozenset({
    "TypeError", "AttributeError", "NameError", "UnboundLocalError", "ReferenceError", "ImportError",
    "ModuleNotFoundError", "NotImplementedError", "RecursionError", "MemoryError", "OverflowError",
    "SyntaxError", "UnicodeError", "UnicodeEncodeError", "UnicodeDecodeError", "SystemExit",
    "KeyboardInterrupt", "GeneratorExit", "SystemError", "InternalError", "Timeout", "Crash"})
#: A JavaScript stack overflow is a RangeError with this message (a machine limit, as above).
_STACK = "call stack"
#: A docstring sentence that narrows a function's inputs ("You are given a non-empty list", "(of
#: at least two elements)"): where the reference says so, an input it raises on is taken as
#: outside its promise and dropped (a candidate need not refuse it the same way).
PROMISE = re.compile(r"\bnon[- ]?empty\b|\b(?:is|are|be) (?:never|not) empty\b|\bat least (?:one|two|three|1|2|3) "
                     r"(?:elements?|items?|numbers?|values?|strings?|words?|characters?|entries)\b", re.IGNORECASE)
#: At most this share of a function's made inputs may be ones the reference raises on: edge cases
#: count, but a reference that raises on most made inputs is still judged on its values.
RAISING_SHARE = 0.25


def promising(functions: Mapping[str, Any]) -> frozenset[str]:
    """The functions (name -> shape with a ``docstring``) whose docstring narrows their inputs
    (``PROMISE``)."""
    return frozenset(name for name, shape in functions.items() if PROMISE.search(getattr(shape, "docstring", "") or ""))


def expected_raise(record: Mapping[str, Any]) -> bool:
    """Whether the reference's exception in ``record`` is an answer a candidate should give too
    (not a sign that the input was nonsense for it; ``NONSENSE``)."""
    kind = record.get("e")
    return isinstance(kind, str) and kind not in NONSENSE and _STACK not in str(record.get("m", ""))


def expected_outcome(call: Call, record: Mapping[str, Any]) -> dict[str, Any]:
    """The reference's outcome on a kept input as candidates are judged against it: on a made input
    where it raises, ``"refuses": True``, so that any exception of the candidate agrees (which type
    an input outside the promise gets, IndexError from ``ordered[middle]`` or StatisticsError from
    ``statistics.median``, is the code's detail) and a returned value differs; a teacher's input
    keeps the type (they chose it)."""
    if "e" in record and call.origin != "file":
        return {**record, "refuses": True}
    return dict(record)


def usable(call: Call, record: Mapping[str, Any], promised: frozenset[str] = frozenset()) -> bool:
    """Whether the reference's outcome makes ``call`` an input worth running the candidate on
    (``promised``: functions whose docstring narrows their inputs, ``promising``)."""
    fast = float(record.get("s", 0.0)) <= SLOW_SECONDS
    if "v" in record:
        return fast
    if "e" in record:
        return call.origin == "file" or (fast and expected_raise(record) and call.function not in promised)
    return False


def choose(calls: Sequence[Call], records: Sequence[Mapping[str, Any]], per_function: int,
           seed: int = 0, promised: frozenset[str] = frozenset()) -> list[int]:
    """Indexes of the inputs kept, at most ``per_function`` per function, in a fixed order
    (``promised``: as ``usable`` takes it)."""
    rng = random.Random(seed)
    kept: list[int] = []
    functions = list(dict.fromkeys(c.function for c in calls))
    for function in functions:
        indexes = [i for i, c in enumerate(calls) if c.function == function and usable(c, records[i], promised)]
        if _never_none(calls, records, indexes):  # a None result off the examples' path: a bad input
            indexes = [i for i in indexes if calls[i].origin in _SHOWN or records[i].get("v") != _NONE]
        chosen: list[int] = []
        for origin in ORIGINS[:4]:  # file, example, main, boundary: every one, in order
            chosen += [i for i in indexes if calls[i].origin == origin]
        chosen = chosen[:per_function]
        rest = [i for i in indexes if i not in set(chosen)]
        rng.shuffle(rest)
        rest = _few_raising(rest, records, int(per_function * RAISING_SHARE) - _raising(chosen, calls, records))
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


def _raising(indexes: Sequence[int], calls: Sequence[Call], records: Sequence[Mapping[str, Any]]) -> int:
    """How many of ``indexes`` are made inputs (not a teacher's) on which the reference raises."""
    return sum(1 for i in indexes if "e" in records[i] and calls[i].origin != "file")


def _few_raising(indexes: list[int], records: Sequence[Mapping[str, Any]], room: int) -> list[int]:
    """``indexes`` with at most ``room`` of those on which the reference raises (the first ones)."""
    out = []
    for i in indexes:
        if "e" in records[i]:
            if room <= 0:
                continue
            room -= 1
        out.append(i)
    return out


def _never_none(calls: Sequence[Call], records: Sequence[Mapping[str, Any]], indexes: Sequence[int]) -> bool:
    """Whether the reference returns a value on every input it shows and None on none of them:
    then a made input on which it returns None fell off its end (``for ... return i``), outside
    the inputs it was written for."""
    shown = [records[i] for i in indexes if calls[i].origin in _SHOWN and "v" in records[i]]
    return bool(shown) and all(record["v"] != _NONE for record in shown)


def _output_key(record: Mapping[str, Any]) -> str:
    return json.dumps([record.get("v"), record.get("e"), record.get("mut")], sort_keys=True)
