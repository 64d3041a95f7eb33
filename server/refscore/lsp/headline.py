"""The combined RefScore number for an editor result (``scoring.headline``), once per version."""

from __future__ import annotations

from dataclasses import replace

from ..scoring.report import RefScore, ScoreRequest
from .results import Result

_KEY = "_refscore_headline"


def headline(result: Result) -> RefScore | None:
    """The combined RefScore number when the shipped combination applies to this result, else None."""
    cached = result.__dict__.get(_KEY, False)
    if cached is not False:
        return cached
    value = None
    report, bert = result.report, result.bert
    if report is not None and report.codebleu is not None and bert is not None and result.spec is not None \
            and result.reference_texts:
        from ..scoring.headline import add_refscore

        request = ScoreRequest(result.text, tuple(result.reference_texts), result.spec.name)
        value = add_refscore(request, replace(report, codebertscore=bert, refscore=None, errors=[])).refscore
    result.__dict__[_KEY] = value
    return value
