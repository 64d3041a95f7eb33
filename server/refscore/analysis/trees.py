"""Subtree inventories for the syntax match: what counts as a subtree and how it is keyed.

A subtree is the root or any node that has children. Two keyings:

* compat: the node's S-expression as tree-sitter prints it (``str(node)``), the ``codebleu``
  package's key, over text whose comments were already stripped;
* native: a digest of the same shape (named children with their field names), built bottom-up in
  linear time, that skips comment nodes and Python docstrings, over the original text.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import tree_sitter


@dataclass(frozen=True)
class Subtree:
    """One subtree of a document: its key and where it lies (byte offsets, (row, byte col) points)."""

    key: str
    type: str
    start_byte: int
    end_byte: int
    start_point: tuple[int, int]
    end_point: tuple[int, int]


def compat_subtree_keys(root: tree_sitter.Node) -> list[str]:
    """S-expressions of the root and of every node with children (the package's inventory)."""
    keys: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        keys.append(str(node))
        stack.extend(child for child in node.children if child.child_count)
    return keys


def _is_docstring(node: tree_sitter.Node) -> bool:
    """A Python expression statement holding only a string, first in its module or block."""
    if node.type != "expression_statement" or node.named_child_count != 1:
        return False
    if node.named_children[0].type not in ("string", "concatenated_string"):
        return False
    parent = node.parent
    if parent is None or parent.type not in ("module", "block"):
        return False
    first = next((c for c in parent.named_children if c.type != "comment"), None)
    return first is not None and first.id == node.id


def native_subtrees(root: tree_sitter.Node, comment_types: frozenset[str], language: str) -> list[Subtree]:
    """Subtrees keyed by shape, comments and docstrings left out, in document order."""
    skip_docstrings = language == "python"
    digests: dict[int, bytes] = {}
    found: list[Subtree] = []
    # Iterative post-order: (node, children_done)
    stack: list[tuple[tree_sitter.Node, bool]] = [(root, False)]
    order: list[tuple[tree_sitter.Node, bytes]] = []
    while stack:
        node, done = stack.pop()
        if not done:
            stack.append((node, True))
            for child in reversed(node.children):
                if child.type in comment_types or (skip_docstrings and _is_docstring(child)):
                    continue
                if child.is_named or child.child_count:
                    stack.append((child, False))
            continue
        hasher = hashlib.blake2b(node.type.encode(), digest_size=12)
        if node.is_missing:
            hasher.update(b"!missing")
        for index, child in enumerate(node.children):
            digest = digests.pop(child.id, None)
            if digest is None:
                continue
            field = node.field_name_for_child(index) or ""
            hasher.update(b"(" + field.encode() + b":" + digest + b")")
        digest = hasher.digest()
        digests[node.id] = digest
        if node.child_count or node is root:
            order.append((node, digest))
    for node, digest in order:
        found.append(Subtree(digest.hex(), node.type, node.start_byte, node.end_byte,
                             tuple(node.start_point), tuple(node.end_point)))
    found.sort(key=lambda s: (s.start_byte, -s.end_byte))
    return found
