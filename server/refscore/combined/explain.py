"""The combined RefScore number from its inputs (``combined_score``: pure Python, no numpy, no
model) and taken apart: the intercept and, per input, what a reader needs.

``combined_score(components)`` takes the input values of one candidate/reference pair (names from
the fitted file's ``features``) and returns a number in 0..1, read as "how likely this code is
correct / acceptable, judging by its similarity to the reference". A missing or None input takes
the training mean stored in the file.

``logit = intercept + sum(weight x (value - mean))`` over the inputs, and the score is the
logistic of the logit. Each ``Term`` names its input in words and gives its raw value (what a
person knows: a CodeBERTScore precision, a token count), the value the formula reads (a log, a
product with the reference's length: ``transform`` says which), the training mean, the weight
per unit of that value and its share of the logit. Shares are measured from the training mean,
so the intercept is the logit of a candidate whose every input sits at that mean, and the
intercept plus the shares is the logit (``tests/classroom/test_trust_class.py`` checks the sum).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from .inputs import REF_LEN_CENTRE, interaction_base
from .labels import INPUT_LABELS
from .model import load_model

#: How an input's value is made from its raw value, and what the raw value is.
_TRANSFORMS: dict[str, tuple[str, str]] = {
    "len_ratio": ("log(candidate tokens + 1) - log(reference tokens + 1)", "candidate / reference length"),
    "abs_len_ratio": ("|log length ratio|", "candidate / reference length"),
    "extra_errors": ("log(1 + errors)", "parse errors beyond the reference's"),
    "ref_len": ("log(reference tokens + 1)", "reference tokens"),
}


@dataclass(frozen=True)
class Term:
    """One input of the combined number for one scored pair."""

    input: str  # the fitted file's name (``cbs_p_by_ref_len``)
    label: str  # in words (``CodeBERTScore precision x (log reference tokens - 2.5)``)
    raw: float  # the value a reader knows (a precision, a token count)
    raw_label: str  # what ``raw`` is
    transform: str  # how ``value`` is made from it ("identity" when it is the same)
    value: float  # what the formula reads
    mean: float  # its training mean
    weight: float  # logit per unit of ``value``
    share: float  # weight x (value - mean)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Term":
        return cls(**{k: (str(v) if k in ("input", "label", "raw_label", "transform") else float(v))
                      for k, v in data.items() if k in cls.__dataclass_fields__})


def _raw(name: str, values: Mapping[str, float], value: float) -> tuple[float, str, str]:
    """(raw value, what it is, transform) of one input."""
    base = interaction_base(name)
    if base is not None:
        raw = values.get(base)
        if raw is None:
            shift = float(values.get("ref_len", REF_LEN_CENTRE)) - REF_LEN_CENTRE
            raw = value / shift if shift else 0.0
        return float(raw), INPUT_LABELS.get(base, base), f"x (log(reference tokens + 1) - {REF_LEN_CENTRE:g})"
    if name in _TRANSFORMS:
        transform, what = _TRANSFORMS[name]
        raw = math.exp(value) if name in ("len_ratio", "abs_len_ratio") else math.expm1(value)
        return raw, what, transform
    return value, INPUT_LABELS.get(name, name), "identity"


def label(name: str) -> str:
    """An input in words (an interaction input says what it multiplies)."""
    base = interaction_base(name)
    if base is not None:
        return f"{INPUT_LABELS.get(base, base)} x (log reference tokens - {REF_LEN_CENTRE:g})"
    return INPUT_LABELS.get(name, name)


def terms(values: Mapping[str, float | None], model: Mapping[str, Any]) -> list[Term]:
    """Every input's term, in the model's order (a missing input sits at its mean: share 0).
    ``values`` may hold the bases of interaction inputs too (their raw values)."""
    out = []
    for name, mean, scale, coef in zip(model["features"], model["mean"], model["scale"], model["coef"]):
        value = values.get(name)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            value = mean
        value = float(value)
        raw, raw_label, transform = _raw(name, values, value)  # type: ignore[arg-type]
        weight = float(coef) / float(scale)
        out.append(Term(name, label(name), raw, raw_label, transform, value, float(mean), weight,
                        weight * (value - float(mean))))
    return out


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
