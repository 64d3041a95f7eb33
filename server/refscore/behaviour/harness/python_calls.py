"""Runs inside the sandbox (standard library only, Python 3.8+): loads program.py beside it (in
/box) as a module (its ``__main__`` block does not run), calls its functions with each input of
calls.bin (marshal) beside it, and writes one line per call, a Python literal, to the stream it
was given as stdout (no json import: it costs more than most calls).

A call's line: ``{"i": n, "v": value}`` (returned), ``{"i": n, "e": type, "m": message}``
(raised), ``{"i": n, "timeout": true}``, ``{"i": n, "missing": true}`` (no such function),
``{"i": n, "bad": message}`` (the input itself could not be built); ``"mut"`` holds the arguments
after the call when the call changed them, ``"out"`` what it printed. A value is tagged JSON
(``encode``). The first line says whether the program loaded: ``{"load": "ok"}`` or
``{"load": "error", "e": type, "m": message, "line": n}``.

A program that swallows its timeout (``except BaseException``, in a loop) is not waited for: the
alarm repeats, and once it has gone on for ``SWALLOWED_GRACE`` seconds the harness writes the
timeout itself, marked ``"halt": true``, and ends the process (the next input runs in a fresh
sandbox). The program shares this process and could write lines of its own: the host trusts
none of them (``runners.records`` checks each), and it never has the reference's outcomes.
"""

import io
import marshal
import math
import os
import signal
import sys
import time

PRINT_CAP = 4096
NODE_CAP = 20000
#: Calls of one function that run past their time before its remaining calls are not made.
TIMEOUTS_PER_FUNCTION = 2
#: Seconds a program may go on after its first timeout before the harness gives up on it.
SWALLOWED_GRACE = 0.5
#: The folder of the program and its calls (``/box`` in the sandbox).
HERE = os.path.dirname(os.path.abspath(__file__))


class _CallTimeout(BaseException):
    """Raised in the program when a call runs past its time."""


class _Watch:
    """What is being timed: the protocol's fd, the line to write should the program swallow its
    timeout (None: nothing is timed, an alarm is late and does nothing), the first alarm's time."""

    fd = 1
    on_swallowed = None
    first_alarm = None


def _arm(seconds, on_swallowed):
    """An alarm in ``seconds``, then every 0.05 s until ``_disarm``."""
    _Watch.on_swallowed, _Watch.first_alarm = on_swallowed, None
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)


def _disarm():
    _Watch.on_swallowed = None
    signal.setitimer(signal.ITIMER_REAL, 0)


def _digest(data):
    """A value too big to spell out, as its SHA-256 (hashlib loads only when needed)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _alarm(signum, frame):
    if _Watch.on_swallowed is None:
        return
    now = time.monotonic()
    if _Watch.first_alarm is None:
        _Watch.first_alarm = now
    elif now - _Watch.first_alarm > SWALLOWED_GRACE:
        try:
            os.write(_Watch.fd, (repr(_Watch.on_swallowed) + "\n").encode("utf-8"))
        finally:
            os._exit(3)
    raise _CallTimeout()


class _Budget:
    def __init__(self):
        self.left = NODE_CAP


def encode(value, budget=None, depth=0):
    """A value as tagged JSON that compares the way ``==`` does on the host: ["i", text],
    ["f", float or "nan"/"inf"/"-inf"], ["b", bool], ["s", text], ["n"], ["l"/"t", items],
    ["d", [[key, value]...]], ["S", items] (sets, in a canonical order), ["y", hex], ["g", items]
    (iterators, up to 1,000 items), ["h", digest] (too big to spell out), ["o", type, repr]."""
    if budget is None:
        budget = _Budget()
    budget.left -= 1
    if budget.left < 0 or depth > 60:
        raise OverflowError
    if value is None:
        return ["n"]
    if value is True or value is False:
        return ["b", value]
    if isinstance(value, int):
        return ["i", str(value)] if abs(value) < 10 ** 4000 else ["h", _digest(repr(value).encode())]
    if isinstance(value, float):
        if math.isnan(value):
            return ["f", "nan"]
        if math.isinf(value):
            return ["f", "inf" if value > 0 else "-inf"]
        return ["f", value]
    if isinstance(value, complex):
        return ["c", encode(value.real, budget, depth + 1), encode(value.imag, budget, depth + 1)]
    if isinstance(value, str):
        return ["s", value]
    if isinstance(value, (bytes, bytearray)):
        return ["y", bytes(value).hex()]
    if isinstance(value, list):
        return ["l", [encode(v, budget, depth + 1) for v in value]]
    if isinstance(value, tuple):
        return ["t", [encode(v, budget, depth + 1) for v in value]]
    if isinstance(value, dict):
        items = [[encode(k, budget, depth + 1), encode(v, budget, depth + 1)] for k, v in value.items()]
        items.sort(key=lambda kv: repr(kv[0]))
        return ["d", items]
    if isinstance(value, (set, frozenset)):
        items = [encode(v, budget, depth + 1) for v in value]
        items.sort(key=repr)
        return ["S", items]
    if hasattr(value, "__next__") and hasattr(value, "__iter__"):
        items = []
        for item in value:
            items.append(encode(item, budget, depth + 1))
            if len(items) >= 1000:
                break
        return ["g", items]
    text = repr(value)
    if " at 0x" in text:
        text = text.split(" at 0x")[0] + ">"
    return ["o", type(value).__name__, text[:500]]


def encode_safely(value):
    try:
        return encode(value)
    except (OverflowError, RecursionError):
        try:
            return ["h", _digest(repr(value).encode("utf-8", "replace"))]
        except Exception:  # noqa: BLE001 - a value whose repr fails
            return ["o", type(value).__name__, "?"]
    except _CallTimeout:
        raise
    except Exception as error:  # noqa: BLE001 - a value whose iteration or repr fails
        return ["o", type(value).__name__, "unencodable: " + type(error).__name__]


def _arguments(*args, **kwargs):
    return args, kwargs


def main():
    _Watch.fd = os.dup(1)
    protocol = os.fdopen(_Watch.fd, "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 0)
    with open(os.path.join(HERE, "calls.bin"), "rb") as handle:
        spec = marshal.load(handle)
    limit = float(spec.get("call_seconds", 1.0))
    signal.signal(signal.SIGALRM, _alarm)

    def emit(record):
        protocol.write(repr(record) + "\n")
        protocol.flush()

    with open(os.path.join(HERE, "program.py"), encoding="utf-8", errors="surrogateescape") as handle:
        source = handle.read()
    namespace = {"__name__": "__refscore_program__", "__builtins__": __builtins__}
    sys.stdout = io.StringIO()
    sys.argv = ["program.py"]
    sys.setrecursionlimit(3000)
    try:
        code = compile(source, "program.py", "exec")
        _arm(float(spec.get("load_seconds", 2.0)),
             {"load": "error", "e": "Timeout", "m": "loading the program ran past its time (and went on)"})
        try:
            exec(code, namespace)
        finally:
            _disarm()
    except _CallTimeout:
        _disarm()
        emit({"load": "error", "e": "Timeout", "m": "loading the program ran past its time"})
        return
    except BaseException as error:  # noqa: BLE001 - the program's own failure is the result
        _disarm()
        emit({"load": "error", "e": type(error).__name__, "m": str(error)[:300],
              "line": getattr(error, "lineno", None) if isinstance(error, SyntaxError) else None})
        return
    emit({"load": "ok"})
    seeded = None
    if "random" in source or "random" in sys.modules:  # imported at load, or perhaps in a call
        import random as seeded
    builder = dict(namespace)
    builder["_refscore_arguments"] = _arguments
    timeouts = {}
    for index, call in enumerate(spec["calls"]):
        record = {"i": index}
        if timeouts.get(call["f"], 0) >= TIMEOUTS_PER_FUNCTION:
            emit({"i": index, "timeout": True, "skipped": True})
            continue
        function = namespace.get(call["f"])
        if not callable(function):
            record["missing"] = True
            emit(record)
            continue
        try:
            args, kwargs = eval("_refscore_arguments(" + call["a"] + ")", dict(builder))  # noqa: S307 - sandboxed
        except BaseException as error:  # noqa: BLE001
            record["bad"] = type(error).__name__ + ": " + str(error)[:200]
            emit(record)
            continue
        before = encode_safely([list(args), kwargs])
        printed = io.StringIO()
        sys.stdout = printed
        if seeded is not None:  # the same pseudo-random numbers for both programs
            seeded.seed(0)
        started = time.perf_counter()
        try:
            _arm(limit, {"i": index, "timeout": True, "halt": True})
            try:
                value = function(*args, **kwargs)
                record["v"] = encode_safely(value)
            finally:
                _disarm()
        except _CallTimeout:
            _disarm()
            record = {"i": index, "timeout": True}
            timeouts[call["f"]] = timeouts.get(call["f"], 0) + 1
        except BaseException as error:  # noqa: BLE001 - the call's failure is its result
            _disarm()
            record["e"] = type(error).__name__
            record["m"] = str(error)[:200]
        record["s"] = round(time.perf_counter() - started, 6)
        try:
            after = encode_safely([list(args), kwargs])
            if after != before:
                record["mut"] = after
        except BaseException:  # noqa: BLE001
            pass
        text = printed.getvalue()
        if text:
            record["out"] = text[:PRINT_CAP]
        sys.stdout = io.StringIO()
        emit(record)


if __name__ == "__main__":
    main()
