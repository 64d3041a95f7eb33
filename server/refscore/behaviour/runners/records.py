"""Reading a harness's JSON lines back, whatever the code under test printed or broke.

The code under test shares the harness's process, so any line may be its own: a record is used
only when it has the shape a harness writes (``checked``), anything else is a lost input. Forging
a well-formed record gains nothing a program could not get by returning that value: the
reference's outcomes are never in its sandbox.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Callable

from ..compare import COMPLEX
from ..sandbox import Completed

#: A record for an input the harness never reached.
LOST = {"lost": "not run: the program stopped the harness"}
#: What a record that is not one a harness writes becomes.
MALFORMED = "crashed: a malformed record"
#: How deep a value may nest (the Python harness hashes values deeper than 60) and how many
#: parts it may have in all, so that comparing and showing it stay bounded.
MAX_DEPTH = 100
MAX_NODES = 200_000

_TEXT_FIELDS = ("e", "m", "out", "bad", "lost")
_FLAG_FIELDS = ("timeout", "missing", "skipped", "halt")
_INTEGER = re.compile(r"-?[0-9]{1,4300}")  # Python's own limit on int() of a text
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")
_SPECIAL_FLOATS = ("nan", "inf", "-inf")


def parse_line(line: str) -> Any:
    """One harness line: JSON (the JavaScript harness) or a Python literal (the Python harness,
    which spares itself the json import); None when it is neither, or nested too deep."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        pass
    if len(line) > 8 << 20:
        return None
    try:
        return ast.literal_eval(line)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def read_records(output: bytes, count: int) -> tuple[dict[str, Any] | None, dict[int, dict[str, Any]]]:
    """The load line and the first record of each input index in a harness's output."""
    load: dict[str, Any] | None = None
    records: dict[int, dict[str, Any]] = {}
    for line in output.decode("utf-8", "replace").splitlines():
        record = parse_line(line)
        if not isinstance(record, dict):
            continue
        if "load" in record and load is None:
            load = checked_load(record)
        index = record.get("i")
        if type(index) is int and 0 <= index < count and index not in records:
            records[index] = checked(record)
    return load, records


def checked_load(record: dict[str, Any]) -> dict[str, Any]:
    """A load line as the harness writes it, or a load error saying it was not one."""
    line = record.get("line")
    if (record.get("load") in ("ok", "error") and all(isinstance(record.get(k, ""), str) for k in ("e", "m"))
            and (line is None or type(line) is int)):
        return record
    return {"load": "error", "e": "Crash", "m": "a malformed load line"}


def checked(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` when every field has the type a harness gives it (values: ``well_formed``), else
    a lost record saying so."""
    ok = (all(isinstance(record.get(k, ""), str) for k in _TEXT_FIELDS)
          and all(isinstance(record.get(k, False), bool) for k in _FLAG_FIELDS)
          and _is_number(record.get("s", 0))
          and all(well_formed(record[k]) for k in ("v", "mut") if k in record))
    return record if ok else {"i": record.get("i"), "lost": MALFORMED}


def well_formed(value: Any) -> bool:
    """Whether ``value`` is a tagged value (``harness.python_calls.encode``) that ``compare`` can
    compare and show: known tags with the parts they need, at most ``MAX_DEPTH`` deep and
    ``MAX_NODES`` parts; an unknown tag (another language's harness) is compared as plain JSON."""
    budget = [MAX_NODES]

    def ok(value: Any, depth: int) -> bool:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH or not isinstance(value, list) or not value:
            return False
        tag, parts = value[0], value[1:]
        if not isinstance(tag, str):
            return False
        if tag in ("n", "u"):
            return not parts
        if tag == "b":
            return len(parts) == 1 and isinstance(parts[0], bool)
        if tag == "i":
            return len(parts) == 1 and isinstance(parts[0], str) and _INTEGER.fullmatch(parts[0]) is not None
        if tag == "f":
            return len(parts) == 1 and (_is_number(parts[0]) or parts[0] in _SPECIAL_FLOATS)
        if tag in ("s", "h"):
            return len(parts) == 1 and isinstance(parts[0], str)
        if tag == "y":
            return len(parts) == 1 and isinstance(parts[0], str) and _HEX.fullmatch(parts[0]) is not None
        if tag == "o":
            return len(parts) == 2 and all(isinstance(p, str) for p in parts)
        if tag == COMPLEX:
            return len(parts) == 2 and all(ok(p, depth + 1) for p in parts)
        if tag in ("l", "t", "g", "S"):
            return len(parts) == 1 and isinstance(parts[0], list) and all(ok(p, depth + 1) for p in parts[0])
        if tag == "d":
            return (len(parts) == 1 and isinstance(parts[0], list)
                    and all(isinstance(kv, list) and len(kv) == 2 and ok(kv[0], depth + 1) and ok(kv[1], depth + 1)
                            for kv in parts[0]))
        return all(plain(p, depth + 1) for p in parts)

    def plain(value: Any, depth: int) -> bool:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            return False
        if isinstance(value, list):
            return all(plain(v, depth + 1) for v in value)
        if isinstance(value, dict):
            return all(plain(v, depth + 1) for v in value.values())
        return True

    return ok(value, 0)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def run_resuming(run: Callable[[int], Completed], count: int, restarts: int = 2
                 ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Run a harness over inputs ``start..count`` (``run(start)``); when the sandbox is stopped
    (its time, its output cap, a crash), the input it was on is a timeout or a crash and the
    run goes on after it in a fresh sandbox, ``restarts`` times at most. A harness that ended
    the run itself (a record marked ``halt``: the program swallowed its timeout) said so for
    the input it was on, and the run goes on with the next."""
    results: list[dict[str, Any] | None] = [None] * count
    load: dict[str, Any] | None = None
    start = 0
    for attempt in range(restarts + 1):
        completed = run(start)
        first, records = read_records(completed.stdout, count - start)
        load = load or first
        if first is None or first.get("load") != "ok":
            load = first or {"load": "error", "e": "Crash", "m": _why_stopped(completed)}
            break
        for index, record in records.items():
            results[start + index] = record
        missing = [i for i in range(start, count) if results[i] is None]
        if not missing:
            break
        stuck = missing[0]
        if not any(record.get("halt") for record in records.values()):
            results[stuck] = ({"timeout": True} if completed.timed_out else
                              {"lost": _why_stopped(completed)})
            stuck += 1
        start = stuck
        if start >= count:
            break
    return load, [r if r is not None else dict(LOST) for r in results]


def _why_stopped(completed: Completed) -> str:
    if completed.timed_out:
        return "timeout"
    if completed.output_capped:
        return "printed too much"
    if completed.returncode is not None and completed.returncode < 0:
        return f"killed by signal {-completed.returncode}"
    tail = completed.stderr.decode("utf-8", "replace").strip().splitlines()
    return "crashed" + (f": {tail[-1][:160]}" if tail else f" (exit {completed.returncode})")
