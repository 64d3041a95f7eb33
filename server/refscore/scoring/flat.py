"""A report's numbers under the one vocabulary of score names (``vocabulary.SCORE_NAMES``): the
grade report's columns and ``refscore score --json``'s ``scores`` object are both this."""

from __future__ import annotations

import math
from typing import Any

from ..vocabulary import BERT_FIELDS, SCORE_NAMES, codebleu_name
from .report import ScoreReport

#: Scores that are one number with a signature each (``report.<name>.score``).
_SINGLE = ("refscore", "chrf", "tsed", "crystalbleu", "behaviour")


def finite(value: Any) -> float | None:
    """A finite float, or None (NaN and missing values are not scores)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def flat_scores(report: ScoreReport | None) -> dict[str, float | None]:
    """Every name of ``SCORE_NAMES`` -> the report's number (None where not computed)."""
    out: dict[str, float | None] = dict.fromkeys(SCORE_NAMES)
    if report is None:
        return out
    if report.codebleu is not None:
        out[codebleu_name(report.codebleu.rule)] = finite(report.codebleu.score)
        for component in report.codebleu.components:
            out[component.name] = finite(component.score)
    if report.codebertscore is not None:
        for name in BERT_FIELDS:
            out[f"codebertscore_{name}"] = finite(getattr(report.codebertscore, name))
    for name in _SINGLE:
        value = getattr(report, name, None)
        if value is not None:
            out[name] = finite(value.score)
    return out


def flat_signatures(report: ScoreReport | None) -> dict[str, str]:
    """``<metric>_signature`` -> how each number present was made."""
    if report is None:
        return {}
    out = {}
    if report.codebleu is not None:
        out["codebleu_signature"] = report.codebleu.signature
    if report.codebertscore is not None:
        out["codebertscore_signature"] = report.codebertscore.signature
    for name in _SINGLE:
        value = getattr(report, name, None)
        if value is not None:
            out[f"{name}_signature"] = value.signature
    return out
