"""Internals of the dataflow walker that its speed relies on (exactness, not timing)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "server") not in sys.path:
    sys.path.insert(0, str(ROOT / "server"))

from refscore import languages  # noqa: E402
from refscore.parsing.flat import flatten  # noqa: E402
from refscore.dataflow import MODES, dropped_types  # noqa: E402
from refscore.dataflow._tree import build, mentioned, mentioned_by_walk  # noqa: E402
from refscore.dataflow._kinds import union_states  # noqa: E402

SNIPPETS = {
    "python": 'def f(a, b=2):\n    x = f"{a} {b!r}" + "s"  # c\n    for i in range(a):\n'
              '        while x:\n            x, y = y, x\n    return [k for k in x if k]\n',
    "java": "class A { int f(int a) { int s = 0; for (int i = 0; i < a; i++) { s += i; } return s; } }",
    "javascript": "function f(a) { let s = `${a}x`; while (a) { s += a--; } return s; }",
    "ruby": 'def f(a)\n  s = "#{a}"\n  a.each { |x| s += x }\n  s\nend\n',
}


@pytest.mark.parametrize("lang", sorted(SNIPPETS))
@pytest.mark.parametrize("mode", MODES)
def test_mentioned_by_range_covers_the_walk(lang: str, mode: str) -> None:
    code = SNIPPETS[lang]
    flat = flatten(languages.get(lang).parse(code.encode()).root_node, lang, dropped_types(lang, mode))
    tree = build(flat, code)
    for node in range(len(flat)):
        assert set(mentioned_by_walk(tree, node)) <= set(mentioned(tree, node))


def _variables_by_walk(tree, n: int) -> tuple:
    """``tree_to_variable_index`` by a walk that stops at tokens (the definition)."""
    from refscore.dataflow._tree import UNINDEXED, VARIABLE, Abort

    out, stack = [], [n]
    while stack:
        m = stack.pop()
        facts = tree.info[m]
        if facts is None:
            stack.extend(reversed(tree.kids[m]))
        elif facts[0] == VARIABLE:
            out.append((facts[1], facts[2]))
        elif facts[0] == UNINDEXED:
            raise Abort("token inside a string token")
    return tuple(out)


@pytest.mark.parametrize("lang", sorted(SNIPPETS))
def test_variables_by_range_equal_the_walk(lang: str) -> None:
    from refscore.dataflow._tree import Abort, variables

    code = SNIPPETS[lang]
    flat = flatten(languages.get(lang).parse(code.encode()).root_node, lang)
    tree = build(flat, code)
    assert tree.token_ranges or lang != "python"  # the Python snippet has strings with parts
    for node in range(len(flat)):
        try:
            expected = _variables_by_walk(tree, node)
        except Abort:
            with pytest.raises(Abort):
                variables(tree, node)
            continue
        assert variables(tree, node) == expected


def test_union_states_is_the_sorted_union() -> None:
    a = {"x": (1, 4), "y": (2,)}
    b = {"y": (2,), "x": (3,), "z": (5,)}
    c = {"x": (1, 4)}
    assert union_states([a, b, c]) == {"x": (1, 3, 4), "y": (2,), "z": (5,)}
    assert list(union_states([a, b, c])) == ["x", "y", "z"]
    assert union_states([a, dict(a)]) == a


@pytest.mark.parametrize("code", [
    "x = 'é'\ny = x + 'ü'\nz = y\n",
    "s = '''a\nb'''\nt = s\n",
    "x = 1\ny = x\n",
    "naïve = 'ß'; café = naïve + 'x'\n",
])
def test_edge_positions_and_token_texts_are_the_packages(code: str) -> None:
    """Tokens are read by byte range; their texts (str lines sliced by byte columns, newlines
    dropped) and the edges' (row, byte column) points are what tree-sitter's points give."""
    from refscore.dataflow import extract_dataflow
    from refscore.dataflow._tree import token_text

    spec = languages.get("python")
    root = spec.parse(code.encode("utf-8")).root_node
    by_start: dict = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type == "string":
            by_start[node.start_point] = node
        else:
            stack.extend(node.children)
    edges = extract_dataflow(root, code, "python")
    assert edges
    lines = code.split("\n")
    for edge in edges:
        node = by_start[edge.start]
        assert (tuple(node.start_point), tuple(node.end_point)) == (edge.start, edge.end)
        assert edge.name == token_text(lines, node.start_point, node.end_point)
