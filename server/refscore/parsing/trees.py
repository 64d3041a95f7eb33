"""Subtree inventories for the syntax match: what counts as a subtree and how it is keyed.

A subtree is the root or any node that has children. Two keyings:

* compat: the node's S-expression as tree-sitter prints it (``str(node)``), the ``codebleu``
  package's key, over text whose comments were already stripped;
* native: a digest of the same shape (named children with their field names), built bottom-up in
  linear time, that skips comment nodes and Python docstrings, over the original text.
"""

from __future__ import annotations

from typing import NamedTuple

import tree_sitter

from .. import languages


class Subtree(NamedTuple):
    """One subtree of a document: its shape key, type and byte span (a tuple: cheap to make, and
    left alone by the cyclic GC once it has seen it)."""

    key: int | str
    type: str
    start_byte: int
    end_byte: int


def compat_subtree_keys(root: tree_sitter.Node) -> list[int] | list[str]:
    """Keys of the root and of every node with children (the package's inventory).

    Two keys are equal exactly when the nodes' S-expressions are: a flat hash of (type, named
    children with field names) in one cursor walk where ``_shape_keys`` can tell; otherwise
    ``str(node)`` per subtree.
    """
    keys = _shape_keys(root)
    return keys if keys is not None else sexp_keys(root)


def _shape_keys(root: tree_sitter.Node) -> list[int] | None:
    """S-expression-equivalent keys in linear time, or None where a walk cannot tell.

    An S-expression shows named nodes with their field names, and in a tree with errors also
    every MISSING node (``(MISSING name)``, ``(MISSING "token")``, hidden tokens included) and
    each ERROR leaf as ``(UNEXPECTED 'c')``. None when an anonymous node has named children
    (``anonymous_key``), when an ERROR leaf covers text (its character is not exposed), or when
    a missing token is hidden from the walk (counted against the root's S-expression).
    """
    keys: list[int] = []
    cursor = root.walk()
    frames: list[tuple[str, list, str | None, tree_sitter.Node | None]] = [(root.type, [], None, None)]
    if not cursor.goto_first_child():
        return [hash((root.type, ()))]
    missing = 0
    while True:
        node = cursor.node
        if node.child_count:
            frames.append((node.type, [], cursor.field_name, None if node.is_named else node))
            cursor.goto_first_child()
            continue
        if node.is_missing:
            frames[-1][1].append((cursor.field_name, missing_key(node.type, node.is_named)))
            missing += 1
        elif node.type == "ERROR" and node.end_byte > node.start_byte:
            return None
        elif node.is_named:
            frames[-1][1].append((cursor.field_name, hash((node.type, ()))))
        while not cursor.goto_next_sibling():
            cursor.goto_parent()
            kind, entries, field, anonymous = frames.pop()
            if anonymous is not None:
                found = anonymous_key(anonymous, entries)
                if found is None:
                    return None
                keys.append(found)  # nothing in the parent's S-expression
                continue
            key = hash((kind, tuple(entries)))
            keys.append(key)
            if not frames:
                if root.has_error and hides_missing(root, missing):
                    return None
                return keys
            frames[-1][1].append((field, key))


def anonymous_key(node: tree_sitter.Node, entries: list) -> int | None:
    """The key of an anonymous node with children whose children are all anonymous leaves
    (``entries``, its named children's, is empty), e.g. Python's ``not in``: its own S-expression
    is ``(not in("not")("in")`` (no closing parenthesis) and it adds nothing to its parent's,
    so it is keyed by that short string. None when it has named children: tree-sitter prints
    those into the parent's S-expression, with field names a walk cannot tell."""
    return None if entries else hash(str(node))


def missing_key(kind: str, named: bool) -> int:
    """The key of a MISSING leaf, which its S-expression prints as ``(MISSING kind)`` (named) or
    ``(MISSING "kind")``, apart from a real leaf of that kind."""
    return hash(("MISSING", kind, named))


def hides_missing(root: tree_sitter.Node, walked: int) -> bool:
    """Whether the tree has more MISSING nodes than the ``walked`` ones a cursor walk met: a
    missing *hidden* token (e.g. Python's newline) prints in the S-expression but is never walked."""
    return str(root).count("(MISSING ") != walked


def sexp_keys(root: tree_sitter.Node) -> list[str]:
    """S-expressions of the root and of every node with children (the package's own keys)."""
    keys: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        keys.append(str(node))
        stack.extend(child for child in node.children if child.child_count)
    return keys


def is_docstring(node: tree_sitter.Node) -> bool:
    """A Python expression statement holding only a string (called on the first statement of a body)."""
    if node.type != "expression_statement" or node.named_child_count != 1:
        return False
    return node.named_children[0].type in ("string", "concatenated_string")


_is_docstring = is_docstring  # former name
_BODIES = frozenset({"module", "block"})


def native_subtrees(root: tree_sitter.Node, comment_types: frozenset[str], language: str) -> list[Subtree]:
    """Subtrees keyed by shape (type, field names, named children), comments and docstrings left out.

    One cursor walk; each key hashes a flat tuple of the children's keys, so the cost is linear.
    The list is in preorder: by start, an enclosing subtree before the ones inside it.
    """
    skip_docstrings = languages.get(language).docstrings
    found: list[Subtree] = [Subtree(0, root.type, root.start_byte, root.end_byte)]  # in preorder
    cursor = root.walk()
    # frame: [type, child entries, slot in found, field, first statement seen]
    frames: list[list] = [[root.type, [], 0, None, False]]
    if not cursor.goto_first_child():
        return [Subtree(hash((root.type, ())), root.type, root.start_byte, root.end_byte)]
    while True:
        node = cursor.node
        kind = node.type
        field = cursor.field_name
        parent = frames[-1]
        named = node.is_named
        skip = kind in comment_types or not (named or node.child_count)
        if not skip and skip_docstrings and named and parent[0] in _BODIES and not parent[4]:
            parent[4] = True
            skip = is_docstring(node)
        if not skip:
            if node.child_count and cursor.goto_first_child():
                frames.append([kind, [], len(found), field, False])
                found.append(Subtree(0, kind, node.start_byte, node.end_byte))
                continue
            if named:
                parent[1].append((field, hash((kind, ()))))
        while not cursor.goto_next_sibling():
            cursor.goto_parent()
            kind, entries, slot, field, _ = frames.pop()
            key = hash((kind, tuple(entries)))
            found[slot] = found[slot]._replace(key=key)
            if not frames:
                return found
            frames[-1][1].append((field, key))
