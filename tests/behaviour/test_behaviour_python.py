"""Behaviour of Python code, end to end in the real sandbox: agreement, counter-examples, the
modes, inputs files, and a defined result for every kind of broken candidate."""

from __future__ import annotations

import shutil

import pytest

from refscore.behaviour import BehaviourSettings, run_behaviour

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")

CLAMP = '''def clamp(x: int, lo: int, hi: int) -> int:
    """Keep x within lo..hi.

    >>> clamp(5, 0, 3)
    3
    >>> clamp(-1, 0, 3)
    0
    >>> clamp(2, 0, 3)
    2
    """
    return max(lo, min(x, hi))
'''

WORD_FREQ = '''def word_freq(text):
    """Count each word.

    word_freq("a b a") ==> {'a': 2, 'b': 1}
    """
    counts = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts
'''


def behaviour(reference: str, candidate: str, **settings):
    return run_behaviour(reference, candidate, "python", BehaviourSettings(**settings))


def test_a_correct_rewrite_in_another_style_agrees_everywhere() -> None:
    candidate = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n"
    result = behaviour(CLAMP, candidate)
    assert result.ran and result.agreement == 1.0 and result.agrees_everywhere
    assert result.inputs >= 10  # the three examples, their boundaries and mutants
    assert result.functions[0].name == "clamp" and not result.disagreements
    assert result.signature.startswith("behaviour|lang:python|mode:function|inputs:")
    assert f"|n:{result.inputs}|seed:0|sandbox:bwrap|" in result.signature


def test_one_character_off_disagrees_with_a_counter_example() -> None:
    candidate = CLAMP.replace("return max(lo, min(x, hi))", "return max(lo, min(x, hi - 1))")
    result = behaviour(CLAMP, candidate)
    assert 0 < result.agreement < 1
    first = result.disagreements[0]
    assert first.function == "clamp" and first.input == "clamp(5, 0, 3)"
    assert (first.expected, first.actual, first.reason) == ("3", "2", "different result")


def test_the_same_reference_gives_the_same_inputs() -> None:
    one = behaviour(WORD_FREQ, "def word_freq(t):\n    return {}\n")
    two = behaviour(WORD_FREQ, "def word_freq(t):\n    return {'x': 1}\n")
    assert one.signature == two.signature and one.inputs == two.inputs


def test_a_partial_solution_scores_between_correct_and_wrong() -> None:
    correct = "from collections import Counter\ndef word_freq(text):\n    return dict(Counter(text.split()))\n"
    partial = "def word_freq(text):\n    return {w: 1 for w in text.split()}\n"
    wrong = "def word_freq(text):\n    c = {}\n    for ch in text:\n        c[ch] = c.get(ch, 0) + 1\n    return c\n"
    scores = [behaviour(WORD_FREQ, c).agreement for c in (correct, partial, wrong)]
    assert scores[0] == 1.0 > scores[1] > scores[2]


def test_broken_candidates_each_get_one_reason() -> None:
    cases = {
        "": "missing function",
        "def clamp(x, lo, hi)\n    return x\n": "does not parse: SyntaxError at line 1",
        "def clamp(x, lo, hi):\n    return x\nraise RuntimeError('boom')\n": "does not load: RuntimeError",
        "def clamp(x, lo, hi):\n    while True:\n        pass\n": "timeout",
        "def clamp(x, lo, hi):\n    return 1 / 0\n": "raised",
        "\x00\x01 binary": "does not parse",
    }
    for candidate, reason in cases.items():
        result = behaviour(CLAMP, candidate)
        assert result.ran and result.agreement == 0.0, candidate
        assert result.disagreements[0].reason.startswith(reason), (candidate, result.disagreements[0])


def test_arguments_changed_in_place_are_compared() -> None:
    reference = 'def bump(xs):\n    """>>> bump([1, 2])"""\n    xs.append(0)\n    return len(xs)\n'
    same_return = "def bump(xs):\n    return len(xs) + 1\n"
    result = behaviour(reference, same_return)
    assert result.agreement == 0.0
    assert result.disagreements[0].reason == "changed its arguments differently"


def test_an_inputs_file_adds_calls_and_names_its_bad_lines() -> None:
    reference = "def double(x):\n    return x * 2\n"  # no example, no hint: the name guesses nothing
    result = behaviour(reference, "def double(x):\n    return x + x\n", inputs="double(3)\ndouble('ab')\n# note\n")
    assert result.ran and result.agreement == 1.0 and result.inputs >= 2
    bad = behaviour(reference, "def double(x):\n    return x\n", inputs="double(3\n")
    assert not bad.ran and bad.not_run.startswith("inputs line 1: not a call")
    unknown = behaviour(reference, "def double(x):\n    return x\n", inputs="triple(3)\n")
    assert not unknown.ran and "no function triple" in unknown.not_run


def test_a_reference_with_nothing_to_call_says_how_to_give_inputs() -> None:
    result = behaviour("def f(p, q):\n    return p is q\n", "def f(p, q):\n    return True\n")
    assert not result.ran and result.agreement is None
    assert "inputs file" in result.not_run


def test_program_mode_compares_standard_output() -> None:
    reference = "n = int(input())\nprint(sum(range(n + 1)))\n"
    correct = "n = int(input())\nprint(n * (n + 1) // 2)   \n"
    off_by_one = "n = int(input())\nprint(sum(range(n)))\n"
    inputs = "3\n---\n10\n---\n0\n"
    ok = behaviour(reference, correct, inputs=inputs)
    assert ok.mode == "program" and ok.agreement == 1.0 and ok.inputs == 3
    bad = behaviour(reference, off_by_one, inputs=inputs)
    assert bad.agreed == 1 and bad.disagreements[0].reason == "different output"  # 0 gives 0 in both
    assert bad.disagreements[0].expected == "'6'" and bad.disagreements[0].actual == "'3'"


def test_not_available_for_a_language_without_a_runner_is_one_note() -> None:
    result = run_behaviour("fn main() {}", "fn main() {}", "rust")
    assert not result.ran and result.not_run == "not available for rust"


def test_a_reference_that_does_not_parse_is_not_run() -> None:
    result = behaviour("def f(:\n", "def f(x): return x\n")
    assert not result.ran and result.not_run.startswith("the reference does not parse")


def test_a_reference_program_that_fails_on_every_input_is_not_run() -> None:
    result = behaviour("import sys\nsys.exit('no input handling yet')\n", "print(1)\n")
    assert not result.ran
    assert result.not_run == "the reference program fails on every input (exit 1: no input handling yet)"
