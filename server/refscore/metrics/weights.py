"""CodeBLEU weights (n-gram, weighted n-gram, syntax, dataflow): checking and normalising.

The native rule normalises the weights to sum to 1, so ``1,1,1,1`` means the same as the
default ``0.25,0.25,0.25,0.25`` and a copy of the reference scores 1.0 whatever the weights. The
compat rule keeps the ``codebleu`` package's meaning (the weights multiply the components as
given), for ``refscore.compat.calc_codebleu`` and ``--codebleu-rule compat``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

Weights = tuple[float, float, float, float]
USAGE = "four non-negative finite numbers, not all 0, such as 0.25,0.25,0.25,0.25 (they are normalised to sum to 1)"


class WeightsError(ValueError):
    """Weights that cannot be used; the message says what is allowed."""


def check_weights(values: Sequence[Any]) -> Weights:
    """Four finite non-negative numbers, not all 0, whose sum is finite (``1e308`` four times
    overflows); raise WeightsError saying what is wrong."""
    if isinstance(values, (str, bytes)) or len(values) != 4:
        raise WeightsError(f"expected {USAGE}")
    numbers = []
    for value in values:
        if isinstance(value, bool):
            raise WeightsError(f"{value!r} is not a number; expected {USAGE}")
        try:
            number = float(value) + 0.0  # -0.0 + 0.0 is 0.0: a weight of "-0" is 0, never shown as -0
        except (TypeError, ValueError):
            raise WeightsError(f"{value!r} is not a number; expected {USAGE}") from None
        if not math.isfinite(number) or number < 0:
            raise WeightsError(f"{value!r} is not a non-negative finite number; expected {USAGE}")
        numbers.append(number)
    try:
        total = math.fsum(numbers)
    except OverflowError:
        total = math.inf
    if total <= 0:
        raise WeightsError(f"the weights are all 0; expected {USAGE}")
    if not math.isfinite(total):
        raise WeightsError(f"the weights are too large to add up; expected {USAGE}")
    return numbers[0], numbers[1], numbers[2], numbers[3]


def parse_weights(text: str) -> Weights:
    """Weights written as ``a,b,c,d`` (the command line's form)."""
    return check_weights([part.strip() for part in text.split(",")])


def normalise(weights: Sequence[float]) -> Weights:
    """The weights scaled to sum to 1 (checked first)."""
    checked = check_weights(weights)
    total = math.fsum(checked)
    return checked[0] / total, checked[1] / total, checked[2] / total, checked[3] / total
