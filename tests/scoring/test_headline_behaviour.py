"""The combined number where behaviour ran: the shipped behaviour fit stacked on the similarity
fit, in the report, its explanation and its signature; unchanged where behaviour did not run."""

from __future__ import annotations

import math
import shutil

import pytest

import refscore
from refscore.behaviour.result import BehaviourResult
from refscore.scoring.headline_behaviour import INPUTS, behaviour_model, with_behaviour
from refscore.scoring.report import RefScore

REFERENCE = '''def clamp(x, lo, hi):
    """clamp(5, 0, 3) ==> 3
    clamp(-1, 0, 3) ==> 0"""
    return max(lo, min(x, hi))
'''
RIGHT = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n"
WRONG = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x >= hi:\n        return hi - 1\n    return x\n"


def test_the_shipped_fit_reads_its_three_inputs_and_says_where_it_was_fitted() -> None:
    model = behaviour_model()
    assert model is not None and list(model["features"]) == list(INPUTS)
    assert all(c > 0 for c in model["coef"])  # more agreement and more similarity: never a lower number
    assert model["fitted"]["train"] == "humaneval-python"


def test_behaviour_moves_the_number_and_the_explanation_adds_up() -> None:
    similarity = RefScore(0.5, (("cbs_r", 0.8),), "refscore|fit:abc|inputs:1|version:x", (("cbs_r", 0.0),), 0.0)
    agrees = BehaviourResult(1.0, 40, 40)
    half = BehaviourResult(0.5, 40, 20)
    high, low = with_behaviour(similarity, agrees), with_behaviour(similarity, half)
    assert high.score > 0.5 > low.score
    assert math.isclose(high.logit, math.log(high.score / (1 - high.score)), rel_tol=1e-9)
    assert "|on:abc|" in high.signature and high.signature.startswith("refscore|fit:")
    assert dict(high.components)["behaviour_all"] == 1.0 and dict(low.components)["behaviour_all"] == 0.0
    # where behaviour did not run, or there is no similarity number, nothing changes
    assert with_behaviour(similarity, BehaviourResult.skipped("no sandbox")) is similarity
    assert with_behaviour(None, agrees) is None


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
def test_a_right_rewrite_tops_a_near_copy_with_a_bug() -> None:
    right, wrong = refscore.score([RIGHT, WRONG], [REFERENCE, REFERENCE], "python")
    assert right.behaviour == 1.0 > wrong.behaviour
    assert right.refscore > 0.5 > wrong.refscore
    assert dict(right.signatures)["refscore"].startswith("refscore|fit:")
    assert "|on:" in dict(right.signatures)["refscore"]
    # explained with the similarity fit's own inputs beside behaviour's, adding up to the logit
    report = right.report.refscore
    assert {"behaviour", "behaviour_all", "cbs_r"} <= {name for name, _ in report.contributions}
    assert math.isclose(report.intercept + sum(s for _, s in report.contributions), report.logit)
    assert math.isclose(report.logit, math.log(report.score / (1 - report.score)), rel_tol=1e-6)
    assert math.isclose(sum(t.share for t in report.terms), sum(s for _, s in report.contributions), rel_tol=1e-9)
