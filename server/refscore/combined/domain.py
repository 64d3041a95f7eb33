"""Where the combined number may be read: the ranges of its length inputs over the data its fit
saw (``domain.json``, written by ``scripts/combined_domain.py``). The fit was made on single
functions and short snippets; a whole file, or code many times longer than its reference, lies
outside them, and there its logistic formula extrapolates (a 2,000-line near-copy scored 0.11).
A front end shows the number only inside, and says why not outside."""

from __future__ import annotations

import json
import logging
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

log = logging.getLogger(__name__)

DOMAIN_PATH = Path(__file__).with_name("domain.json")
#: The inputs whose ranges are recorded (made from token counts; the similarities are bounded).
RECORDED = ("ref_len", "len_ratio")  # _SAYS has a sentence for each


@lru_cache(maxsize=1)
def fitted_domain() -> dict[str, Any] | None:
    """The recorded ranges, None when the file is missing or unreadable."""
    try:
        domain = json.loads(DOMAIN_PATH.read_text(encoding="utf-8"))
        return {"fit": str(domain["fit"]), "inputs": {k: (float(a), float(b)) for k, (a, b) in domain["inputs"].items()}}
    except (OSError, ValueError, KeyError, TypeError) as error:
        log.info("no combined-number domain: %s", error)
        return None


def _fit_of(signature: str) -> str | None:
    """The ``fit:`` digest of a combined number's signature."""
    return next((part[4:] for part in signature.split("|") if part.startswith("fit:")), None)


def _tokens(log_count: float) -> str:
    return f"{max(0, round(math.exp(log_count) - 1)):,}"


def _reference_length(value: float, low: float, high: float) -> str:
    return (f"the reference has {_tokens(value)} tokens, and the number was fitted on references of "
            f"{_tokens(low)} to {_tokens(high)} tokens (single functions)")


def _length_ratio(value: float, low: float, high: float) -> str:
    return (f"the code is {math.exp(value):.2g} times as long as the reference, and the number was fitted "
            f"on code {math.exp(low):.2g} to {math.exp(high):.2g} times as long")


#: Each recorded input's sentence for a value outside its range.
_SAYS = {"ref_len": _reference_length, "len_ratio": _length_ratio}


def outside(components: Mapping[str, float], signature: str) -> str | None:
    """Why a combined number with these input values lies outside its fit's data, in plain words;
    None inside (or when the fit's ranges are not known: another fit than the shipped one)."""
    domain = fitted_domain()
    if domain is None or _fit_of(signature) != domain["fit"]:
        return None
    for name, says in _SAYS.items():
        if name in components and name in domain["inputs"]:
            low, high = domain["inputs"][name]
            if not low <= components[name] <= high:
                return says(components[name], low, high)
    return None
