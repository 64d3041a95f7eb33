"""Values for a parameter from its type hint (``int``, ``list[str]``, ``Dict[str, int]``,
``Optional[float]``...), for functions the reference shows no example of."""

from __future__ import annotations

import ast
from typing import Any

_BASE: dict[str, list[Any]] = {
    "int": [0, 1, 2, 3, 5, 10, 7, 100, -1, 13],
    "float": [0.0, 1.0, 2.5, 0.5, 10.0, 3.14, -1.5],
    "str": ["", "a", "abc", "hello world", "aba", "Hello", "12", "zz"],
    "bool": [True, False],
    "bytes": [b"", b"a", b"abc"],
}
_ALIASES = {"List": "list", "Sequence": "list", "Iterable": "list", "Dict": "dict", "Mapping": "dict",
            "Tuple": "tuple", "Set": "set", "FrozenSet": "set"}


def typed_values(annotation: ast.expr | None) -> list[Any] | None:
    """Example values for ``annotation`` (None when the hint is missing or not understood)."""
    if annotation is None:
        return None
    return _values(annotation, 0)


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return _ALIASES.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        return _ALIASES.get(node.attr, node.attr)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _name(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    return None


def _values(node: ast.expr, depth: int) -> list[Any] | None:
    if depth > 3:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _values(ast.parse(node.value, mode="eval").body, depth)
        except SyntaxError:
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
        parts = [_values(side, depth) for side in (node.left, node.right)]
        return [v for part in parts if part for v in part] or None
    if isinstance(node, ast.Constant) and node.value is None:
        return [None]
    if not isinstance(node, ast.Subscript):
        name = _name(node)
        if name in _BASE:
            return list(_BASE[name])
        if name == "list":
            return [[], [1], [1, 2, 3], [3, 1, 2]]
        return None
    outer = _name(node.value)
    inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if outer in ("Optional",):
        values = _values(inner[0], depth + 1)
        return None if values is None else values + [None]
    if outer == "Union":
        parts = [_values(part, depth + 1) for part in inner]
        return [v for part in parts if part for v in part] or None
    if outer in ("list", "set"):
        items = _values(inner[0], depth + 1)
        if not items:
            return None
        lists = [[], items[:1], items[1:4], items[::-1][:5], items[:2] * 2, items]
        return [set(_hashable(v)) for v in lists] if outer == "set" else lists
    if outer == "tuple":
        if len(inner) == 2 and isinstance(inner[1], ast.Constant) and inner[1].value is Ellipsis:
            items = _values(inner[0], depth + 1)
            return None if not items else [(), tuple(items[:1]), tuple(items[:3])]
        columns = [_values(part, depth + 1) for part in inner]
        if any(not c for c in columns):
            return None
        return [tuple(c[(k + i) % len(c)] for i, c in enumerate(columns)) for k in range(max(map(len, columns)))]
    if outer == "dict" and len(inner) == 2:
        keys, values = _values(inner[0], depth + 1), _values(inner[1], depth + 1)
        if not keys or not values:
            return None
        keys = [k for k in keys if _is_hashable(k)]
        return [{}, {keys[0]: values[0]}, {k: values[i % len(values)] for i, k in enumerate(keys[:4])}]
    return None


def _is_hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _hashable(values: list[Any]) -> list[Any]:
    return [v for v in values if _is_hashable(v)]
