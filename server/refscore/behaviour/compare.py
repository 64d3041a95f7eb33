"""Whether two run outcomes agree, and how a reader sees an outcome.

An outcome is one call's record from a harness (``harness/python_calls.py``; the JavaScript
harness writes the same shape): a tagged value, an exception, a timeout, a missing function.
Values compare the way ``==`` does, with floats to a relative tolerance and NaN equal to NaN;
exceptions agree when their types do, and any exception agrees where the reference refused a made
input (``select.expected_outcome``). Where the reference changes its arguments (an in-place
sort, an append), the candidate must change them the same way; where the reference leaves them
alone, a candidate that changes them (sorting its list in place before returning the answer)
agrees when its result does: its caller gets what the reference promises.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

#: The tag of a complex number in the harnesses' tagged values.
COMPLEX = "c"
REL_TOL = 1e-6
ABS_TOL = 1e-9
_NUMBERS = {"i", "f", "b"}


def _number(value: list) -> float | int:
    tag = value[0]
    if tag == "i":
        return int(value[1])
    if tag == "b":
        return int(bool(value[1]))
    raw = value[1]
    return float(raw) if isinstance(raw, str) else raw


def values_equal(a: Any, b: Any) -> bool:
    """Whether two tagged values are equal (``==``, floats within tolerance, NaN == NaN)."""
    ta, tb = a[0], b[0]
    if ta in _NUMBERS and tb in _NUMBERS:
        x, y = _number(a), _number(b)
        if isinstance(x, float) or isinstance(y, float):
            x, y = float(x), float(y)
            if math.isnan(x) or math.isnan(y):
                return math.isnan(x) and math.isnan(y)
            if math.isinf(x) or math.isinf(y):
                return x == y
            return math.isclose(x, y, rel_tol=REL_TOL, abs_tol=ABS_TOL)
        return x == y
    if ta != tb:
        return False
    if ta in ("l", "t", "g", "S"):
        return len(a[1]) == len(b[1]) and all(values_equal(x, y) for x, y in zip(a[1], b[1]))
    if ta == "d":
        return len(a[1]) == len(b[1]) and all(values_equal(ka, kb) and values_equal(va, vb)
                                              for (ka, va), (kb, vb) in zip(a[1], b[1]))
    if ta == COMPLEX:
        return values_equal(a[1], b[1]) and values_equal(a[2], b[2])
    return a == b


def outcomes_agree(reference: Mapping[str, Any], candidate: Mapping[str, Any]) -> tuple[bool, str]:
    """(agree, reason when not) for one input's two records."""
    if "v" in reference:
        if "v" not in candidate:
            return False, _failure_reason(candidate)
        if not values_equal(reference["v"], candidate["v"]):
            return False, "different result"
    elif "e" in reference:
        if "e" not in candidate:
            return False, "did not raise" if "v" in candidate else _failure_reason(candidate)
        if reference["e"] != candidate["e"] and not reference.get("refuses"):
            return False, "raised a different exception"
    else:
        return False, _failure_reason(reference)
    if "mut" in reference:  # the reference's changes to its arguments are part of what it does
        if not ("mut" in candidate and values_equal(reference["mut"], candidate["mut"])):
            return False, "changed its arguments differently"
    if reference.get("out") and reference.get("out", "").rstrip() != candidate.get("out", "").rstrip():
        return False, "printed something else"
    return True, ""


def _failure_reason(record: Mapping[str, Any]) -> str:
    if record.get("timeout"):
        return "timeout"
    if record.get("missing"):
        return "missing function"
    if "e" in record:
        return "raised"
    if "bad" in record:
        return "input not accepted"
    return str(record.get("lost", "crashed"))


def shown(record: Mapping[str, Any], limit: int = 200) -> str:
    """An outcome as a reader sees it: ``[1, 2]``, ``raises ValueError: bad``, ``timeout``."""
    if "v" in record:
        text = render(record["v"])
    elif "e" in record:
        message = record.get("m") or ""
        text = f"raises {record['e']}" + (f": {message}" if message else "")
    else:
        text = _failure_reason(record)
    if record.get("out") and "v" in record and record["v"] == ["n"]:
        text = "prints " + repr(record["out"])
    return text if len(text) <= limit else text[:limit - 1] + "…"


def render(value: Any) -> str:
    """A tagged value in Python's notation."""
    tag = value[0]
    if tag == "n":
        return "None"
    if tag == "b":
        return "True" if value[1] else "False"
    if tag == "i":
        return value[1]
    if tag == "f":
        raw = value[1]
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(raw, repr(raw)) if isinstance(raw, str) else repr(raw)
    if tag == "s":
        return repr(value[1])
    if tag == "y":
        return repr(bytes.fromhex(value[1]))
    if tag == "l":
        return "[" + ", ".join(render(v) for v in value[1]) + "]"
    if tag == "t":
        items = [render(v) for v in value[1]]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if tag == "g":
        return "<iterator: " + ", ".join(render(v) for v in value[1]) + ">"
    if tag == "S":
        return "{" + ", ".join(render(v) for v in value[1]) + "}" if value[1] else "set()"
    if tag == "d":
        return "{" + ", ".join(f"{render(k)}: {render(v)}" for k, v in value[1]) + "}"
    if tag == COMPLEX:
        return f"complex({render(value[1])}, {render(value[2])})"
    if tag == "h":
        return f"<large value {value[1][:12]}>"
    if tag == "u":
        return "undefined"
    if tag == "o":
        return value[2]
    return repr(value)
