"""TSED (refscore.metrics.tsed) on real tree-sitter trees: parity with the apted package's own
unit-cost distance on small trees, the node cap's linear-time bound, parse errors, signatures."""

from __future__ import annotations

import pytest

from refscore.metrics.signature import parse_signature
from refscore.metrics.tsed import (bound_distance, edit_distance, label_tree, score_tsed,
                                   tsed_pair)

apted = pytest.importorskip("apted")

PAIRS = [
    ("python", "def f(a):\n    return a + 1\n", "def f(x):\n    return x + 2\n"),
    ("python", "x = [i for i in y if i]\n", "x = list(filter(None, y))\n"),
    ("python", "for i in range(3):\n    print(i)\n", "i = 0\nwhile i < 3:\n    print(i)\n    i += 1\n"),
    ("java", "int s = 0; for (int x : xs) { s += x; } return s;",
     "return xs.stream().mapToInt(Integer::intValue).sum();"),
    ("cpp", "if (a > b) { return a; } return b;", "return a > b ? a : b;"),
    ("javascript", "const f = (a) => a * 2;", "function f(a) { return a * 2; }"),
]


def _brackets(node) -> str:
    label, children = node
    return "{" + label + "".join(_brackets(c) for c in children) + "}"


@pytest.mark.parametrize("language,cand,ref", PAIRS)
def test_distance_matches_the_apted_package_on_bracket_trees(language, cand, ref):
    from apted import APTED
    from apted.helpers import Tree

    a, b = label_tree(cand, language), label_tree(ref, language)
    want = APTED(Tree.from_text(_brackets(a.root)), Tree.from_text(_brackets(b.root))).compute_edit_distance()
    assert edit_distance(a, b) == want
    score = score_tsed(cand, [ref], language)
    assert score.exact and score.nodes == max(a.size, b.size)
    assert score.score == pytest.approx(max(0.0, 1 - want / max(a.size, b.size)))


def test_tree_is_named_nodes_without_comments():
    tree = label_tree("# note\nreturn a  # more\n", "python")
    assert tree.root == ("module", [("return_statement", [("identifier", [])])])
    assert tree.size == 3 and tree.errors == 0


def test_one_deleted_argument_is_one_edit():
    a, b = label_tree("f(a, b)\n", "python"), label_tree("f(a)\n", "python")
    assert edit_distance(a, b) == 1
    assert tsed_pair(a, b)[0] == pytest.approx(1 - 1 / a.size)


def test_identical_code_scores_one_and_best_reference_wins():
    code = "def f(a):\n    return a\n"
    assert score_tsed(code, [code], "python").score == 1.0
    two = score_tsed(code, ["x = 1\n", code], "python")
    assert two.score == 1.0 and two.distance == 0


@pytest.mark.parametrize("language,cand,ref", PAIRS)
def test_node_cap_uses_the_label_bound_which_never_undercuts_the_exact_score(language, cand, ref):
    exact = score_tsed(cand, ref, language)
    capped = score_tsed(cand, ref, language, max_nodes=1)
    assert not capped.exact
    assert capped.distance == bound_distance(label_tree(cand, language), label_tree(ref, language))
    assert capped.distance <= exact.distance and capped.score >= exact.score


def test_large_trees_take_the_linear_path():
    big = "\n".join(f"x{i} = {i} + y" for i in range(200)) + "\n"
    result = score_tsed(big, big.replace("+", "-"), "python")
    assert not result.exact and 0.0 <= result.score <= 1.0 and result.nodes > 200


def test_parse_errors_are_counted():
    assert label_tree("def f(:\n", "python").errors > 0
    assert label_tree("int f() { return 1; }", "cpp").errors == 0
    assert label_tree("int f() { return 1 }", "cpp").errors == 1  # a MISSING ";"


def test_empty_texts_and_signature():
    result = score_tsed("", "", "python")
    assert 0.0 <= result.score <= 1.0
    assert score_tsed("x = 1\n", [], "python").score == 0.0
    metric, fields = parse_signature(result.signature)
    assert metric == "tsed" and fields["max-nodes"] == "200" and fields["tree"] == "named"


def test_parse_errors_without_a_walk_equal_the_walks_count() -> None:
    """A tree without errors is answered from ``has_error``; with them, by the walk: the count is
    the label tree's either way, on code with and without syntax errors in three languages."""
    import random

    from refscore.metrics.tsed import label_tree, parse_errors
    from tests.analysis.test_code_tokens_parts import CORPORA, _edit

    rng = random.Random(3)
    seen = {True: 0, False: 0}
    for language, parts in CORPORA.items():
        text = "".join(parts)
        for _ in range(40):
            text = _edit(text, rng)
            count = label_tree(text, language).errors
            assert parse_errors(text, language) == count, (language, text)
            seen[count == 0] += 1
    assert seen[True] and seen[False]  # both paths taken
