"""Issue 43's own example: "for ``average([])`` this returns ``0``, the reference raises
ZeroDivisionError". An exception the reference raises in its own code is the expected outcome
on that input; one that says the made input was nonsense for it (a TypeError of the wrong
argument type, an AttributeError), or one outside what the reference's docstring promises ("a
non-empty list"), drops the input (``behaviour.select``). A candidate that
returns a value there differs; one that refuses the made input too (any exception) agrees; on a
teacher's own input the exception's type is compared."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import pytest

from refscore.behaviour import BehaviourSettings, run_behaviour
from refscore.behaviour.calls import Call
from refscore.behaviour.result import Disagreement
from refscore.behaviour.compare import outcomes_agree
from refscore.behaviour.select import RAISING_SHARE, choose, expected_outcome, expected_raise, promising

AVERAGE = '''def average(xs: list[float]) -> float:
    """The mean of ``xs``.

    >>> average([1, 2, 3])
    2.0
    """
    return sum(xs) / len(xs)
'''
GUARDED = AVERAGE.replace("return sum(xs) / len(xs)", "return sum(xs) / len(xs) if xs else 0")
CHECKED = AVERAGE.replace("return sum(xs) / len(xs)",
                          "if not xs:\n        raise ZeroDivisionError('empty')\n    return sum(xs) / len(xs)")
OTHER_TYPE = AVERAGE.replace("return sum(xs) / len(xs)",
                             "if not xs:\n        raise ValueError('empty')\n    return sum(xs) / len(xs)")
FIRST = '''def first_word(text: str) -> str:
    """The first word of ``text``.

    >>> first_word("hello world")
    'hello'
    """
    return text.split()[0]
'''


def _record(kind: str | None, message: str = "") -> dict:
    return {"v": ["i", "1"], "s": 0.0} if kind is None else {"e": kind, "m": message, "s": 0.0}


def test_meaningful_exceptions_are_answers_and_nonsense_ones_are_not() -> None:
    for kind in ("ZeroDivisionError", "ValueError", "IndexError", "KeyError", "StatisticsError", "EmptyStackError"):
        assert expected_raise(_record(kind)), kind
    for kind in ("TypeError", "AttributeError", "NameError", "RecursionError", "ModuleNotFoundError"):
        assert not expected_raise(_record(kind)), kind
    assert not expected_raise(_record("RangeError", "Maximum call stack size exceeded"))  # JavaScript's overflow
    assert expected_raise(_record("RangeError", "radix must be between 2 and 36"))


def test_selection_keeps_a_meaningful_exception_and_drops_a_type_error() -> None:
    calls = [Call("f", "[1]", "example"), Call("f", "[]", "boundary"), Call("f", "None", "boundary"),
             Call("f", "[2]", "mutant"), Call("f", "'x'", "mutant")]
    records = [_record(None), _record("ZeroDivisionError"), _record("TypeError"), _record(None),
               _record("AttributeError")]
    assert choose(calls, records, 10) == [0, 1, 3]


def test_a_docstring_that_narrows_the_inputs_drops_what_the_reference_refuses() -> None:
    shapes = {"search": SimpleNamespace(docstring="You are given a non-empty list of positive integers."),
              "rescale": SimpleNamespace(docstring="Given list of numbers (of at least two elements), ..."),
              "median": SimpleNamespace(docstring="The list is never empty."),
              "average": SimpleNamespace(docstring="The mean of ``xs``.")}
    assert promising(shapes) == {"search", "rescale", "median"}
    calls = [Call("search", "[1]", "example"), Call("search", "[]", "boundary"),
             Call("average", "[1]", "example"), Call("average", "[]", "boundary"), Call("search", "[]", "file")]
    records = [_record(None), _record("ValueError"), _record(None), _record("ZeroDivisionError"), _record("ValueError")]
    assert choose(calls, records, 10, promised=promising(shapes)) == [4, 0, 2, 3]  # a teacher's input stays


def test_made_inputs_the_reference_raises_on_are_at_most_a_share() -> None:
    calls = [Call("f", "0", "example")] + [Call("f", str(i), "mutant") for i in range(1, 60)]
    records = [_record(None)] + [_record("ValueError" if i % 2 else "KeyError") if i < 40 else
                                 {"v": ["i", str(i)], "s": 0.0} for i in range(1, 60)]
    kept = choose(calls, records, 20)
    assert len(kept) == 20
    raising = [i for i in kept if "e" in records[i]]
    assert 0 < len(raising) <= int(20 * RAISING_SHARE)


def test_the_counter_example_line_says_what_the_reference_raises() -> None:
    item = Disagreement("average([])", "raises ZeroDivisionError: division by zero", "0", "did not raise", "average")
    assert item.line() == "differs on average([]): expected it to raise ZeroDivisionError: division by zero, got 0"


sandboxed = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


def _behaviour(reference: str, candidate: str):
    return run_behaviour(reference, candidate, "python", BehaviourSettings())


@sandboxed
def test_returning_zero_where_the_reference_raises_differs_on_the_empty_list() -> None:
    found = _behaviour(AVERAGE, GUARDED)
    assert found.ran and found.agreed == found.inputs - 1
    (item,) = found.disagreements
    assert item.input == "average([])" and item.actual == "0" and item.reason == "did not raise"
    assert item.expected.startswith("raises ZeroDivisionError")


@sandboxed
def test_refusing_a_made_input_agrees_and_a_teachers_input_keeps_the_type() -> None:
    assert _behaviour(AVERAGE, AVERAGE).agrees_everywhere
    assert _behaviour(AVERAGE, CHECKED).agrees_everywhere  # its own message: the type is what counts
    # ``average([])`` is a made boundary: refusing it with another exception is refusing it too
    assert _behaviour(AVERAGE, OTHER_TYPE).agrees_everywhere
    # a teacher's own input: the exception type they saw the reference raise is the answer
    teacher = run_behaviour(AVERAGE, OTHER_TYPE, "python", BehaviourSettings(inputs="average([])\n"))
    assert [(d.input, d.reason) for d in teacher.disagreements] == [("average([])", "raised a different exception")]
    assert run_behaviour(AVERAGE, CHECKED, "python", BehaviourSettings(inputs="average([])\n")).agrees_everywhere


def test_the_refusal_mark_is_for_made_inputs_only() -> None:
    raised = _record("IndexError", "list index out of range")
    assert expected_outcome(Call("f", "[]", "boundary"), raised)["refuses"] is True
    assert "refuses" not in expected_outcome(Call("f", "[]", "file"), raised)
    other = {"e": "StatisticsError", "m": "no median for empty data"}
    assert outcomes_agree(expected_outcome(Call("f", "[]", "mutant"), raised), other) == (True, "")
    assert outcomes_agree(raised, other) == (False, "raised a different exception")
    assert outcomes_agree(expected_outcome(Call("f", "[]", "mutant"), raised), {"v": ["i", "0"]}) == \
        (False, "did not raise")


@sandboxed
def test_an_index_error_of_the_reference_is_kept_too() -> None:
    guarded = FIRST.replace("return text.split()[0]", "return (text.split() or [''])[0]")
    found = _behaviour(FIRST, guarded)
    assert found.ran and not found.agrees_everywhere
    assert all(d.expected.startswith("raises IndexError") for d in found.disagreements)
