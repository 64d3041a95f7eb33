"""Pairing a candidate function with the reference function it implements (issue 43, item 5):
one rule (``scoring.pairing``) for the lenses, ``--per-function``, Score Selection, the
inserted-block diagnostic and ``refscore/scoreText``."""

from __future__ import annotations

from pathlib import Path

from refscore import languages
from refscore.scoring.pairing import best_region, name_words, pair_functions, parameter_count
from refscore.scoring.scorer import LocalScorer

REFERENCE = (Path(__file__).parent.parent / "data" / "pairing" / "stats.ref.py").read_text(encoding="utf-8")
PYTHON = languages.get("python")
WEIGHTS = (0.25, 0.25, 0.25, 0.25)

#: An AI completion of ``average`` under another name, pasted below the student's own ``average``.
AVERAGE_AI = "def average_ai(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values)\n"
#: A ``median`` typed next to the reference's unrelated ``column_means`` (close in tokens: sums, lens).
MEDIAN = ("def median(xs):\n    s = sorted(xs)\n    n = len(s)\n    return s[n // 2] if n % 2 else "
          "(s[n // 2 - 1] + s[n // 2]) / 2\n")
STUDENT = "def column_means(rows):\n    return [sum(c) / len(c) for c in zip(*rows)]\n\n\n" \
          "def average(xs):\n    return sum(xs) / len(xs)\n"


def test_a_second_implementation_is_compared_with_the_function_it_implements() -> None:
    text = STUDENT + "\n\n" + AVERAGE_AI
    pairs = {p.function.name: p for p in pair_functions(text, [REFERENCE], PYTHON, LocalScorer().score_many, WEIGHTS)}
    assert pairs["average"].matched_by == "name" and pairs["average"].region.name == "average"
    assert pairs["average_ai"].region is not None and pairs["average_ai"].region.name == "average"
    assert pairs["average_ai"].matched_by == "alignment" and pairs["average_ai"].codebleu is not None


def test_a_snippet_is_paired_as_the_lens_pairs_it() -> None:
    score_many = LocalScorer().score_many
    found = best_region(AVERAGE_AI, [REFERENCE], PYTHON, score_many, WEIGHTS)
    assert found is not None and found[0].name == "average"
    lens = {p.function.name: p.region for p in pair_functions(STUDENT + "\n\n" + AVERAGE_AI, [REFERENCE], PYTHON,
                                                              score_many, WEIGHTS)}
    assert lens["average_ai"] == found[0]
    median = best_region(MEDIAN, [REFERENCE], PYTHON, score_many, WEIGHTS)
    assert median is not None and median[0].name == "median"


def test_signature_then_name_then_resemblance() -> None:
    score_many = LocalScorer().score_many
    reference = "def double(x):\n    return x * 2\n\n\ndef add(a, b):\n    return a + b\n\n\n" \
                "def total(xs):\n    return sum(xs)\n"
    # reads like double, takes two parameters like add: the signature wins
    found = best_region("def combine(x, y):\n    return x * 2\n", [reference], PYTHON, score_many, WEIGHTS)
    assert found is not None and found[0].name == "add"
    # reads like double, named like total: the name wins
    found = best_region("def total_ai(x):\n    return x * 2\n", [reference], PYTHON, score_many, WEIGHTS)
    assert found is not None and found[0].name == "total"
    # neither: resemblance
    found = best_region("def twice(n):\n    return n * 2\n", [reference], PYTHON, score_many, WEIGHTS)
    assert found is not None and found[0].name == "double"
    assert parameter_count("def f(a, b=2, *c):\n    pass\n", PYTHON) == 3
    assert parameter_count("int f(int a, int b) { return a; }", languages.get("c")) == 2
    assert name_words("average_ai") == {"average"} and name_words("columnMeans") == {"column", "means"}


def test_behaviour_decides_before_resemblance() -> None:
    # a candidate function named like nothing, as close in tokens to both; behaviour names the one it implements
    text = "def stat(xs):\n    return sorted(xs)[len(xs) // 2]\n"
    calls: list[str] = []

    def agreement(function, owner, region):
        calls.append(region.name)
        return 1.0 if region.name == "median" else 0.1

    pairs = pair_functions(text, [REFERENCE], PYTHON, LocalScorer().score_many, WEIGHTS, agreement=agreement)
    assert pairs[0].region.name == "median" and pairs[0].matched_by == "behaviour"
    assert set(calls) == {"average", "median", "column_means"}


# -- behaviour and the ranking of alternatives (a sandbox: bwrap) ------------------------------------------------

CORRECT = "def average_ai(values):\n    total = sum(values)\n    return total / len(values)\n"
BUGGY = "def average_ai(values):\n    total = len(values)\n    return total / len(values)\n"


def test_a_renamed_function_runs_as_the_reference_function_it_implements() -> None:
    from refscore.analysis.functions import top_level_functions
    from refscore.scoring.function_behaviour import BehaviourMemo, variant

    text = STUDENT + "\n\n" + BUGGY
    function = top_level_functions(text, PYTHON)[-1]
    program = variant(text, function, "average", PYTHON)
    assert "def average(values):" in program and "def average(xs)" not in program
    assert program.count("\n") == text.count("\n")  # the student's own average blanked, lines kept
    memo = BehaviourMemo([REFERENCE], PYTHON)
    pairs = {p.function.name: p for p in pair_functions(text, [REFERENCE], PYTHON, LocalScorer().score_many, WEIGHTS,
                                                        agreement=memo.agreement)}
    assert pairs["average_ai"].region.name == "average"  # chance agreement with median does not decide
    region = pairs["average_ai"].region
    result = memo.result(function, text, region)
    assert result.ran and 0 < result.agreed < result.inputs
    assert result.disagreements[0].input.startswith("average_ai(")  # shown under the candidate's name
    correct = CORRECT.replace("average_ai", "average_ok")
    good = memo.result(top_level_functions(correct, PYTHON)[0], correct, region)
    assert good.agrees_everywhere


def test_ranking_puts_the_correct_completion_above_the_buggy_one() -> None:
    from refscore.scoring.alternatives import rank_alternatives

    score_many = LocalScorer().score_many
    ranked = rank_alternatives([("buggy", BUGGY), ("correct", CORRECT)], [REFERENCE], PYTHON, score_many, WEIGHTS)
    assert [a.label for a in ranked] == ["correct", "buggy"]
    assert all(a.region is not None and a.region.name == "average" for a in ranked)
    assert ranked[0].behaviour.agrees_everywhere and not ranked[1].behaviour.agrees_everywhere
    assert ranked[1].differences  # what differs is said for each
    # without behaviour the differences, then CodeBLEU decide (text alone cannot tell these two apart)
    plain = rank_alternatives([("buggy", BUGGY), ("correct", CORRECT)], [REFERENCE], PYTHON, score_many, WEIGHTS,
                              behaviour=None)
    assert all(a.behaviour is None and a.differences for a in plain)
    assert plain[0].difference_weight <= plain[1].difference_weight


def test_a_helper_is_not_paired_with_a_function_another_one_has() -> None:
    text = STUDENT + "\n\ndef helper():\n    return 1\n"
    pairs = {p.function.name: p for p in pair_functions(text, [REFERENCE], PYTHON, LocalScorer().score_many, WEIGHTS)}
    assert pairs["helper"].region is not None and pairs["helper"].region.name == "median"  # the one left free
    full = text + "\n\n" + MEDIAN
    pairs = {p.function.name: p for p in pair_functions(full, [REFERENCE], PYTHON, LocalScorer().score_many, WEIGHTS)}
    assert pairs["helper"].region is None and pairs["helper"].matched_by == "none"
