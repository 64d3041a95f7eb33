"""The behaviour diagnostic's words (``lsp.behaviour.message``): what the candidate did, what
the reference did, on how many inputs they differ; no internal record shapes."""

from __future__ import annotations

from refscore.behaviour import BehaviourResult, Disagreement, FunctionAgreement
from refscore.lsp.behaviour import message


def _result(*items: Disagreement, agreed: int = 37) -> BehaviourResult:
    return BehaviourResult(agreed / 40, 40, agreed, (FunctionAgreement("average", 40, agreed),), items)


def test_a_value_against_an_exception() -> None:
    item = Disagreement("average([])", "raises ZeroDivisionError: division by zero", "0", "did not raise", "average")
    assert message(_result(item), item) == ("for `average([])` this returns `0`, the reference raises "
                                            "ZeroDivisionError (differs on 3 of 40 inputs)")


def test_an_exception_a_timeout_and_a_changed_argument() -> None:
    raised = Disagreement("f(1)", "2", "raises ValueError: bad", "raised", "f")
    assert message(_result(raised), raised).startswith("for `f(1)` this raises ValueError, the reference returns `2`")
    slow = Disagreement("f(2)", "3", "timeout", "timeout", "f")
    assert message(_result(slow, agreed=39), slow) == ("for `f(2)` this runs out of time, the reference returns `3` "
                                                       "(differs on 1 of 40 inputs)")
    changed = Disagreement("f([2, 1])", "None", "None", "changed its arguments differently", "f")
    assert "; changed its arguments differently (" in message(_result(changed), changed)
    broken = Disagreement("f(3)", "4", "does not load: SyntaxError at line 2", "does not load: SyntaxError at line 2")
    assert message(_result(broken), broken).startswith("for `f(3)` this does not load: SyntaxError at line 2,")
