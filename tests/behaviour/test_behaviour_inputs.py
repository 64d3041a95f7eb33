"""Behaviour inputs made from a reference: the example forms docstrings use, mutants that stay
in the examples' domain, boundaries, determinism, and which inputs selection keeps. Nothing here
runs code (no sandbox): the reference's outcomes are written by hand where selection needs them."""

from __future__ import annotations

import random
import string

from refscore.behaviour.calls import Call
from refscore.behaviour.compare import outcomes_agree
from refscore.behaviour.inputs.domain import Domain, domains_of, ordered_pairs, same_length_groups
from refscore.behaviour.inputs.mutate import boundaries, mutants
from refscore.behaviour.inputs.python_examples import read_shapes
from refscore.behaviour.inputs.python_inputs import candidate_calls
from refscore.behaviour.select import choose


def _texts(source: str, origin: str | None = None) -> list[str]:
    return [c.text for c in read_shapes(source).calls if origin is None or c.origin == origin]


def _made(source: str, seed: int = 0) -> list[Call]:
    return candidate_calls(read_shapes(source), seed=seed)


# -- docstring forms ------------------------------------------------------------------------------

def test_doctest_prompt():
    source = 'def f(x):\n    """Twice.\n    >>> f(1)\n    2\n    >>> f(-3)\n    -6\n    """\n    return 2 * x\n'
    assert _texts(source) == ["f(1)", "f(-3)"]


def test_arrow_forms():
    source = ('def f(x, y):\n    """Examples:\n    f(1, 2) ==> 3\n    f(2, 2) -> 4\n    f(0, 0) should return 0\n'
              '    """\n    return x + y\n')
    assert _texts(source) == ["f(1, 2)", "f(2, 2)", "f(0, 0)"]


def test_input_line():
    source = 'def f(nums, k):\n    """Input: nums = [1, 2], k = 3\n    Output: 3\n    """\n    return k\n'
    calls = read_shapes(source).calls
    assert [c.text for c in calls] == ["f([1, 2], 3)"]
    assert calls[0].values == ([1, 2], 3)


def test_main_block_calls():
    source = ('def f(x):\n    return x\n\n\nif __name__ == "__main__":\n    print(f(3))\n    print(f("a"))\n'
              '    y = 2\n    print(f(y))\n')
    assert _texts(source, "main") == ["f(3)", "f('a')"]  # f(y) names a variable: not an input


def test_for_assignment_form():
    source = ('def reverse_delete(s, c):\n    """Example\n    For s = "abcde", c = "ae", the result should be (\'bcd\', False)\n'
              '    For s = "abcdef", c = "b"  the result should be (\'acdef\', False)\n    """\n')
    assert _texts(source) == ["reverse_delete('abcde', 'ae')", "reverse_delete('abcdef', 'b')"]


def test_parameter_assignment_lines():
    source = ('def by_length(arr):\n    """For example:\n      arr = [2, 1, 1, 4]\n        -> sort arr -> [1, 1, 2, 4]\n'
              '      return ["Four", "Two", "One", "One"]\n\n      arr = []\n      return []\n    """\n')
    assert _texts(source) == ["by_length([2, 1, 1, 4])", "by_length([])"]


def test_input_block_in_parameter_order():
    source = ('def max_fill(grid, capacity):\n    import math\n    """Example 1:\n        Input:\n'
              '            grid : [[0,0,1,0], [1,1,1,1]]\n            bucket_capacity : 1\n        Output: 5\n    """\n')
    assert _texts(source) == ["max_fill([[0, 0, 1, 0], [1, 1, 1, 1]], 1)"]


def test_bare_words_are_strings_when_no_literal_example():
    source = ('def is_happy(s):\n    """For example:\n    is_happy(a) => False\n    is_happy(abcd) => True\n    """\n')
    assert _texts(source) == ["is_happy('a')", "is_happy('abcd')"]
    with_literal = 'def g(s):\n    """g("xy") -> 1, and g(s) is the count\n    """\n'
    assert _texts(with_literal) == ["g('xy')"]  # a parameter's name is never read as a word


def test_examples_under_another_name():
    source = ('def sorted_list_sum(lst):\n    """For example:\n    assert list_sort(["aa", "a", "aaa"]) => ["aa"]\n'
              '    assert list_sort(["ab", "a"]) => ["ab"]\n    """\n')
    assert _texts(source) == ["sorted_list_sum(['aa', 'a', 'aaa'])", "sorted_list_sum(['ab', 'a'])"]
    own = 'def f(x):\n    """f(1) is 2, unlike other(1, 2, 3)\n    """\n'
    assert _texts(own) == ["f(1)"]  # another name only stands in when the function has none


# -- domain ---------------------------------------------------------------------------------------

def _all_mutants(value, examples, rounds=200, seed=0):
    domain = domains_of([(e,) for e in examples])[0]
    rng = random.Random(seed)
    out = []
    for _ in range(rounds):
        out += mutants(value, domain, rng)
    return domain, out


def test_non_negative_ints_stay_non_negative():
    _, out = _all_mutants(5, [5, 0, 12])
    assert out and min(out) >= 0


def test_positive_ints_stay_positive_and_boundaries_follow():
    domain, out = _all_mutants(15, [15, 3])
    assert out and min(out) >= 1
    assert list(boundaries(15, domain)) == [1, 2]  # zero is outside
    signed = domains_of([(4,), (-2,)])[0]
    assert list(boundaries(4, signed)) == [0, 1]
    with_zero = domains_of([(4,), (0,)])[0]
    assert list(boundaries(4, with_zero)) == [0, 1]


def test_mixed_ints_and_floats_cross_over():
    _, out = _all_mutants(2, [2, 3.6])
    assert any(isinstance(v, float) for v in out)
    _, only_ints = _all_mutants(2, [2, 3])
    assert all(isinstance(v, int) for v in only_ints)


def test_negative_examples_allow_negative_mutants():
    _, out = _all_mutants(3, [3, -4])
    assert min(out) < 0


def test_string_alphabet_kept():
    _, out = _all_mutants("0110", ["0110", "10"])
    assert out and set("".join(out)) <= set("01")
    domain = domains_of([("hello",)])[0]
    assert set(domain.characters()) == set("abcdefghijklmnopqrstuvwxyz")
    _, words = _all_mutants("hello", ["hello"])
    assert set("".join(words)) <= set("abcdefghijklmnopqrstuvwxyz")


def test_sub_alphabets_are_not_widened():
    hexadecimal = domains_of([(h,) for h in ("AB", "1077E", "ABED1A33", "123456789ABCDEF0", "2020")])[0]
    assert set(hexadecimal.characters()) == set("0123456789ABCDEF")
    mixed = domains_of([("Hello",)])[0]
    assert set(mixed.characters()) == set(string.ascii_letters)
    vowels = domains_of([("abcdef",), ("zbcd",)])[0]
    assert set(vowels.characters()) == set(string.ascii_lowercase)


def test_words_stay_single_spaced():
    domain, out = _all_mutants("the cat sat", ["the cat sat", "a b"])
    assert domain.words
    assert out and all("  " not in v and v == v.strip(" ") for v in out)
    loose, _ = _all_mutants("a  b", ["a  b"])
    assert not loose.words


def test_sorted_lists_stay_sorted():
    _, out = _all_mutants([1, 3, 5, 9], [[1, 3, 5, 9], [2, 2, 7]])
    assert out and all(v == sorted(v) for v in out)


def test_distinct_items_stay_distinct():
    _, out = _all_mutants([3, 4, 5, 1, 2], [[3, 4, 5, 1, 2], [3, 5, 4, 1, 2]])
    assert out and all(len(set(v)) == len(v) for v in out)


def test_fixed_length_lists_keep_their_length():
    domain, out = _all_mutants(["()(", ")"], [["()(", ")"], [")", ")"]])
    assert domain.fixed_length == 2
    assert out and all(len(v) == 2 for v in out)
    assert list(boundaries(["()(", ")"], domain)) == []
    assert set("".join(s for v in out for s in v)) <= set("()")


def test_linked_lengths_stay_equal():
    assert same_length_groups([("010", "110")]) == [(0, 1)]
    assert same_length_groups([("010", "11")]) == []
    source = 'def string_xor(a: str, b: str) -> str:\n    """\n    >>> string_xor(\'010\', \'110\')\n    \'100\'\n    """\n'
    calls = _made(source)
    assert len(calls) > 20
    assert all(len(c.values[0]) == len(c.values[1]) for c in calls)
    assert [c.text for c in calls if c.origin == "boundary"] == ["string_xor('', '')", "string_xor('0', '1')"]


def test_same_kind_arguments_are_swapped():
    source = 'def right(a, b, c):\n    """\n    right(3, 4, 5) == True\n    """\n    return a * a + b * b == c * c\n'
    texts = [c.text for c in _made(source)]
    assert {"right(4, 3, 5)", "right(5, 4, 3)", "right(3, 5, 4)"} <= set(texts)


def test_arguments_the_examples_keep_in_order_stay_in_order():
    assert ordered_pairs([(5, 0, 3), (-1, 0, 3), (2, 0, 3)]) == [(1, 2)]
    source = ('def clamp(x, lo, hi):\n    """\n    >>> clamp(5, 0, 3)\n    3\n    >>> clamp(-1, 0, 3)\n    0\n'
              '    >>> clamp(2, 0, 3)\n    2\n    """\n    return max(lo, min(x, hi))\n')
    calls = _made(source)
    assert len(calls) > 30 and all(c.values[1] <= c.values[2] for c in calls)
    assert any(c.values[0] < c.values[1] for c in calls) and any(c.values[0] > c.values[2] for c in calls)


def test_boundaries_of_each_kind():
    assert list(boundaries([4, 5], Domain())) == [[], [4]]
    assert list(boundaries("ab", Domain())) == ["", "a"]
    assert list(boundaries({"k": 1}, Domain())) == [{}, {"k": 1}]


# -- determinism and selection -------------------------------------------------------------------

SOURCE = '''def add_all(xs: list, k: int) -> int:
    """Sum plus k.
    >>> add_all([1, 2, 3], 4)
    10
    >>> add_all([5], 0)
    5
    """
    return sum(xs) + k
'''


def test_same_reference_same_inputs():
    first, second = _made(SOURCE), _made(SOURCE)
    assert [c.text for c in first] == [c.text for c in second]
    assert [c.text for c in _made(SOURCE, seed=1)] != [c.text for c in first]


def test_examples_then_boundaries_first():
    calls = _made(SOURCE)
    origins = [c.origin for c in calls]
    assert origins[:2] == ["example", "example"]
    assert "boundary" in origins and "mutant" in origins
    assert origins.index("mutant") > max(i for i, o in enumerate(origins) if o == "boundary")


def _records(outputs):
    return [{"v": ["i", str(o)], "s": 0.001} if o is not None else {"v": ["n"], "s": 0.001} for o in outputs]


def test_selection_keeps_boundaries_and_distinct_outputs():
    calls = [Call("f", "1", "example"), Call("f", "0", "boundary"), Call("f", "[]", "boundary")]
    calls += [Call("f", str(i + 10), "mutant") for i in range(60)]
    outputs = [1, 0, 0] + [7] * 50 + list(range(100, 110))  # 50 alike, 10 distinct
    kept = choose(calls, _records(outputs), per_function=15)
    assert kept[:3] == [0, 1, 2]  # the example and every boundary, whatever the cap
    assert len(kept) == 15
    kept_outputs = {outputs[i] for i in kept}
    assert set(range(100, 110)) <= kept_outputs  # every distinct output before a repeat
    assert choose(calls, _records(outputs), 15) == kept  # deterministic


def test_selection_drops_made_inputs_that_fall_off_the_end():
    calls = [Call("f", "15", "example"), Call("f", "0", "boundary"), Call("f", "4", "mutant")]
    kept = choose(calls, _records([5, None, 2]), per_function=10)
    assert kept == [0, 2]
    shown_none = choose(calls, _records([None, None, 2]), per_function=10)
    assert shown_none == [0, 1, 2]  # the reference shows None itself: a result like any other


def test_selection_drops_inputs_the_reference_fails_on():
    calls = [Call("f", "1", "example"), Call("f", "2", "mutant"), Call("f", "3", "file")]
    records = [{"v": ["i", "1"], "s": 0.0}, {"e": "TypeError", "s": 0.0}, {"e": "TypeError", "s": 0.0}]
    assert choose(calls, records, 10) == [2, 0]  # a teacher's own input is kept, and first
    # a made input where the reference raises in its own code is kept (tests/behaviour/test_behaviour_raises.py)
    records[1] = {"e": "ValueError", "s": 0.0}
    assert choose(calls, records, 10) == [2, 0, 1]


# -- comparison -----------------------------------------------------------------------------------

def test_argument_changes_count_only_where_the_reference_makes_them():
    returned = {"v": ["l", [["i", "1"]]]}
    changed = {**returned, "mut": ["l", [["l", []]]]}
    assert outcomes_agree(returned, changed) == (True, "")  # a candidate's own change: its result counts
    assert outcomes_agree(changed, returned)[0] is False  # the reference's change must be made
    assert outcomes_agree(changed, {**returned, "mut": ["l", [["l", [["i", "2"]]]]]})[0] is False
    assert outcomes_agree(changed, dict(changed))[0] is True


def test_numbers_compare_as_python_does():
    assert outcomes_agree({"v": ["i", "1"]}, {"v": ["f", 1.0]})[0]
    assert outcomes_agree({"v": ["b", True]}, {"v": ["i", "1"]})[0]
    assert outcomes_agree({"v": ["f", 0.1 + 0.2]}, {"v": ["f", 0.3]})[0]
    assert not outcomes_agree({"v": ["s", "1"]}, {"v": ["i", "1"]})[0]
