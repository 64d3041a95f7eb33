"""The flat tree (one cursor walk) gives the same subtree keys, subtrees and fields as tree-sitter."""

from __future__ import annotations

import json
from pathlib import Path

from refscore import languages
from refscore.parsing.flat import flatten
from refscore.parsing.trees import _shape_keys, native_subtrees

PARITY = Path(__file__).parent.parent / "data" / "parity"


def _documents() -> list[tuple[str, str]]:
    found = []
    for path in sorted(PARITY.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            found += [(path.stem, row["reference"]), (path.stem, row["candidate"])]
    return found


def _damaged(documents: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The documents with a bite taken out of the middle (trees with ERROR and MISSING nodes)."""
    return [(lang, text[:len(text) // 2] + text[len(text) // 2 + 7:]) for lang, text in documents]


def _visible_nodes(root):
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def test_keys_and_subtrees_match_the_tree_sitter_walks() -> None:
    documents = _documents()
    checked = errors = 0
    for lang, text in documents + _damaged(documents):
        spec = languages.get(lang)
        root = spec.parse(text.encode()).root_node
        compat = flatten(root, spec.name, frozenset(), "compat")
        assert compat.compat_keys == _shape_keys(root)
        errors += root.has_error and compat.compat_keys is not None
        native = flatten(root, spec.name, frozenset(spec.comment_node_types), "native")
        assert native.subtrees == native_subtrees(root, spec.comment_node_types, spec.name)
        checked += 1
    assert checked > 200 and errors > 50


def test_preorder_numbering_types_and_fields() -> None:
    documents = _documents()[:60]
    errors = 0
    for lang, text in documents + _damaged(documents):
        spec = languages.get(lang)
        root = spec.parse(text.encode()).root_node
        flat = flatten(root, spec.name)
        nodes = list(_visible_nodes(root))
        errors += root.has_error
        assert flat.types == [n.type for n in nodes]
        number = {n.id: i for i, n in enumerate(nodes)}
        for i, node in enumerate(nodes):
            assert flat.kids[i] == [number[c.id] for c in node.children] or (not node.children and not flat.kids[i])
            for name in {flat.fields[k] for k in flat.kids[i]} - {None} | {"name", "body", "left"}:
                found = node.child_by_field_name(name)
                assert flat.field(i, name) == (None if found is None else number[found.id])
    assert errors >= 20


def test_dropped_types_leave_out_whole_subtrees() -> None:
    spec = languages.get("python")
    root = spec.parse(b"x = 1  # note\n# alone\ny = x\n").root_node
    flat = flatten(root, "python", frozenset({"comment"}))
    assert "comment" not in flat.types
    assert len(flat.tokens) == 6


def test_a_single_leaf_root_has_one_key() -> None:
    spec = languages.get("python")
    root = spec.parse(b"").root_node
    flat = flatten(root, "python", frozenset(), "compat")
    assert flat.compat_keys == _shape_keys(root)
    native = flatten(root, "python", frozenset({"comment"}), "native")
    assert native.subtrees == native_subtrees(root, frozenset({"comment"}), "python")


def _token_facts(root) -> tuple[list[int], list[int], dict, int, int]:
    """Tokens, hidden tokens, spans, count and depth by a plain recursive walk (the definition)."""
    tokens, hidden, spans = [], [], {}
    count = depth = 0
    numbered = 0

    def visit(node, level: int, inside: bool) -> None:
        nonlocal count, depth, numbered
        i = numbered
        numbered += 1
        if not inside:
            count += 1
            depth = max(depth, level)
        token_like = (node.child_count == 0 or node.type in {"string_literal", "string", "character_literal"}) \
            and node.type != "comment"
        if token_like:
            spans[i] = (node.start_byte, node.end_byte)
            (hidden if inside else tokens).append(i)
        for child in node.children:
            visit(child, level + 1, inside or token_like)

    visit(root, 0, False)
    return tokens, hidden, spans, count, depth


def test_tokens_spans_count_and_depth() -> None:
    documents = _documents()[:80]
    for lang, text in documents + _damaged(documents):
        spec = languages.get(lang)
        root = spec.parse(text.encode()).root_node
        flat = flatten(root, spec.name, frozenset(), "compat")
        tokens, hidden, spans, count, depth = _token_facts(root)
        assert (flat.tokens, flat.hidden, flat.spans, flat.count, flat.depth) == (tokens, hidden, spans, count, depth)


def test_last_node_of_each_subtree() -> None:
    """``FlatTree.last`` is the last preorder number under each node (itself for a leaf), with
    dropped types left out."""
    documents = _documents()[:80]
    for lang, text in documents + _damaged(documents):
        spec = languages.get(lang)
        root = spec.parse(text.encode()).root_node
        for drop in (frozenset(), frozenset(spec.comment_node_types)):
            flat = flatten(root, spec.name, drop, "compat")
            for n in range(len(flat)):
                end = n
                while flat.kids[end]:
                    end = flat.kids[end][-1]
                assert flat.last[n] == end, (lang, n)
