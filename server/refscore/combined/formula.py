"""The combined RefScore number from its inputs: pure Python (no numpy, no model).

``combined_score(components)`` takes the input values of one candidate/reference pair (names from
the fitted file's ``features``) and returns a number in 0..1, read as "how likely this code is
correct / acceptable, judging by its similarity to the reference". A missing or None input takes
the training mean stored in the file.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from .explain import terms
from .model import load_model


def contributions(components: Mapping[str, float | None], model: Mapping[str, Any]) -> list[tuple[str, float]]:
    """Each input's share of the logit (weight x standardised value; 0 at the training mean), in
    the model's order: what pulled this score up or down (``explain.terms`` has the rest)."""
    return [(term.input, term.share) for term in terms(components, model)]


def linear_part(components: Mapping[str, float | None], model: Mapping[str, Any]) -> float:
    """The logit: intercept plus weighted standardised inputs (missing inputs -> training mean)."""
    return float(model["intercept"]) + sum(share for _, share in contributions(components, model))


def combined_score(components: Mapping[str, float | None],
                   model: Mapping[str, Any] | None = None) -> float:
    """The combined RefScore number in 0..1 (logistic of the fitted linear combination)."""
    z = linear_part(components, model or load_model())
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
