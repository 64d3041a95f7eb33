"""The differences finder's work is bounded by its input (issue 45, item 1): repetitive code
(hundreds of one-line functions alike but for a number) was aligned in cubic work by difflib.
Work is counted in difflib's own steps (ranges searched), never timed."""

from __future__ import annotations

import random
from difflib import SequenceMatcher

import pytest
from refscore.metrics.differences import CAPPED_NOTE, Differences, bounded
from refscore.scoring.codebleu import score_codebleu
from refscore.scoring.differences import find_differences, render_differences
from refscore.scoring.report import ScoreReport


def functions(count: int, operator: str, name: str) -> str:
    return "".join(f"def {name}{k}(a):\n    return a {operator} {k}\n\n" for k in range(count))


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """difflib's steps per longest-match search: per element of ``a`` in the range, its places
    in ``b`` (the loop the search runs)."""
    steps: list[int] = []
    original = SequenceMatcher.find_longest_match

    def counted(self, alo=0, ahi=None, blo=0, bhi=None):  # type: ignore[no-untyped-def]
        ahi = len(self.a) if ahi is None else ahi
        bhi = len(self.b) if bhi is None else bhi
        steps.append(sum(len(self.b2j.get(x, ())) for x in self.a[alo:ahi]) + 1)
        return original(self, alo, ahi, blo, bhi)

    monkeypatch.setattr(SequenceMatcher, "find_longest_match", counted)
    return steps


def work(count: int, searched: list[int]) -> tuple[int, Differences]:
    searched.clear()
    result = find_differences(functions(count, "*", "g"), (functions(count, "+", "f"),), None, "python")
    return sum(searched), result


def test_repetitive_functions_cost_linear_work_and_every_line_is_found(searched: list[int]) -> None:
    small, _ = work(200, searched)
    large, result = work(800, searched)
    # four times the code, at most about four times the work (difflib alone: about 64 times)
    assert large <= 5 * small, (small, large)
    lines = {d.range[0] for d in result.differences}
    assert lines == {3 * k + 1 for k in range(800)}  # each `return a * k`, nothing else
    assert result.note is None  # aligned exactly: nothing was cut short


def test_under_the_budget_the_opcodes_are_difflibs() -> None:
    rng = random.Random(45)
    for _ in range(200):
        a = [rng.choice("abcde") for _ in range(rng.randrange(0, 40))]
        b = [rng.choice("abcdef") for _ in range(rng.randrange(0, 40))]
        expected = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        assert bounded.match(a, b).opcodes == expected


def rebuilt(a: list[str], b: list[str], opcodes: list[bounded.Opcode]) -> list[str]:
    """``b`` from ``a`` and the opcodes (checking they tile both sides and equal runs are equal)."""
    out: list[str] = []
    at_a = at_b = 0
    for tag, i1, i2, j1, j2 in opcodes:
        assert (i1, j1) == (at_a, at_b)
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        out.extend(b[j1:j2])
        at_a, at_b = i2, j2
    assert (at_a, at_b) == (len(a), len(b))
    return out


def test_over_the_budget_the_anchored_opcodes_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounded, "BUDGET", 50)
    rng = random.Random(7)
    for _ in range(200):
        a = [rng.choice("abcdefgh") for _ in range(rng.randrange(0, 80))]
        b = list(a)
        for _ in range(rng.randrange(0, 10)):
            b.insert(rng.randrange(0, len(b) + 1), rng.choice("xyzab"))
        matched = bounded.match(a, b)
        assert rebuilt(a, b, matched.opcodes) == b


def test_code_with_no_anchor_is_capped_and_says_so() -> None:
    # two statements in different numbers on each side and no line unique: no anchor to cut at
    reference = "x = 1\ny = 2\n" * 600
    candidate = "y = 2\nx = 1\nx = 1\n" * 500
    result = find_differences(candidate, (reference,), None, "python")
    assert result.note == CAPPED_NOTE
    assert result.differences
    text = render_differences(result, candidate)
    assert CAPPED_NOTE in text.splitlines()[0]


def test_a_normal_pair_is_not_capped() -> None:
    reference = functions(20, "+", "f")
    candidate = reference.replace("a + 7", "a - 7")
    report = ScoreReport("python", codebleu=score_codebleu([reference], candidate, "python"))
    result = find_differences(candidate, (reference,), report)
    assert result.note is None and result.differences[0].range[0] == 22
