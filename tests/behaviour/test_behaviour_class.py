"""Behaviour on classes with hidden tests: correct solutions in other styles score above partial
and wrong ones (tests/data/behaviourclass, and tests/data/handclass's Python problem). The hidden
tests are the ground truth only: they run in the sandbox too, never as behaviour's inputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from refscore.behaviour import run_behaviour
from refscore.behaviour.calls import Call
from refscore.behaviour.compare import outcomes_agree, render
from refscore.behaviour.runners.python import run_calls
from refscore.behaviour.sandbox import find_sandbox
from tests.handclass import PROBLEMS, STUDENTS

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")

CLASS = Path(__file__).resolve().parents[1] / "data" / "behaviourclass"
PROBLEM_NAMES = ("median", "is_leap", "rle")


def hidden_pass_rate(problem: Path, reference: str, candidate: str) -> float:
    """The share of the problem's hidden tests the candidate passes (run in the sandbox)."""
    tests = json.loads((problem / "hidden.json").read_text())
    calls = [Call(text.split("(", 1)[0], text.split("(", 1)[1][:-1], "file") for text, _ in tests]
    sandbox = find_sandbox()
    load, expected = run_calls(sandbox, reference, calls, 1.0, 30.0)
    assert load == {"load": "ok"}
    for (text, value), record in zip(tests, expected):
        assert render(record["v"]) == repr(value), (text, record)  # the reference passes its own tests
    load, actual = run_calls(sandbox, candidate, calls, 1.0, 30.0)
    if load is None or load.get("load") != "ok":
        return 0.0
    return sum(outcomes_agree(e, a)[0] for e, a in zip(expected, actual)) / len(tests)


@pytest.mark.parametrize("name", PROBLEM_NAMES)
def test_behaviour_follows_the_hidden_tests(name: str) -> None:
    problem = CLASS / name
    reference = (problem / "reference.py").read_text()
    rows = []
    for path in sorted((problem / "submissions").iterdir()):
        candidate = path.read_text()
        result = run_behaviour(reference, candidate, "python")
        assert result.ran, result.not_run
        rows.append((path.stem, hidden_pass_rate(problem, reference, candidate), result.agreement))
    correct = [r for r in rows if r[1] == 1.0]
    failing = [r for r in rows if r[1] < 1.0]
    assert len(correct) >= 2 and len(failing) >= 2, rows
    # every correct solution, whatever its style, agrees everywhere; every failing one somewhere not
    assert all(r[2] == 1.0 for r in correct), rows
    assert all(r[2] < 1.0 for r in failing), rows
    # so correct solutions rank above every partial and wrong one (how partial ones order among
    # themselves depends on which inputs each test set holds: a pass rate is not a ground truth)
    assert min(r[2] for r in correct) > max(r[2] for r in failing), rows


def test_the_hand_written_class_ranks_correct_above_partial_above_wrong() -> None:
    problem = next(p for p in PROBLEMS if p.language == "python")
    reference = problem.reference.read_text()
    scores = {s: run_behaviour(reference, problem.text(s), "python").agreement for s in STUDENTS}
    # alice: correct in another style; frank: a copy; grace: renamed
    assert scores["alice"] == scores["frank"] == scores["grace"] == 1.0
    # bob: partial; carol: wrong; dave: empty; erin: does not parse; heidi: Java
    assert 1.0 > scores["bob"] >= scores["carol"]
    assert scores["dave"] == scores["erin"] == scores["heidi"] == 0.0
