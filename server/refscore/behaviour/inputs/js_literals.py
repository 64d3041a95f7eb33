"""JavaScript literals both ways: a literal argument read from a tree-sitter tree as a Python
value (``literal_value``: numbers, strings, arrays, plain objects, booleans, null), so that
``mutate`` works on it, and Python values written back as JavaScript literals (``js_arguments``,
JSON-like text that JavaScript reads as the same values)."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Sequence

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


class NotLiteral(ValueError):
    """An argument that is not a JSON-like literal."""


def node_text(node, data: bytes) -> str:  # type: ignore[no-untyped-def]
    """The source text of a tree-sitter node of ``data``."""
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def literal_value(node, data: bytes, depth: int = 0) -> Any:  # type: ignore[no-untyped-def]
    """A literal argument as a Python value (``NotLiteral`` when it is not JSON-like)."""
    if depth > 50:
        raise NotLiteral("too deep")
    kind = node.type
    if kind == "parenthesized_expression" or kind == "program" or kind == "expression_statement":
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            raise NotLiteral(kind)
        return literal_value(inner[0], data, depth + 1)
    if kind == "number":
        return _number(node_text(node, data))
    if kind == "unary_expression":
        operator = node.child_by_field_name("operator")
        argument = node.child_by_field_name("argument")
        sign = node_text(operator, data) if operator is not None else ""
        if sign in ("-", "+") and argument is not None and argument.type == "number":
            value = _number(node_text(argument, data))
            return -value if sign == "-" else value
        raise NotLiteral("unary")
    if kind in ("string", "template_string"):
        return _string(node, data)
    if kind == "true":
        return True
    if kind == "false":
        return False
    if kind == "null":
        return None
    if kind == "array":
        items = [c for c in node.named_children if c.type != "comment"]
        commas = sum(1 for c in node.children if c.type == ",")
        if commas > len(items) or (items and commas < len(items) - 1):  # holes
            raise NotLiteral("array with holes")
        return [literal_value(c, data, depth + 1) for c in items]
    if kind == "object":
        out: dict[str, Any] = {}
        for member in node.named_children:
            if member.type == "comment":
                continue
            if member.type != "pair":
                raise NotLiteral(member.type)
            key, value = member.child_by_field_name("key"), member.child_by_field_name("value")
            if key is None or value is None:
                raise NotLiteral("pair")
            if key.type == "property_identifier":
                name = node_text(key, data)
            elif key.type == "string":
                name = _string(key, data)
            elif key.type == "number":
                number = _number(node_text(key, data))
                name = str(number) if isinstance(number, int) else _js_number_text(number)
            else:
                raise NotLiteral("computed key")
            out[name] = literal_value(value, data, depth + 1)
        return out
    raise NotLiteral(kind)


def _number(text: str) -> int | float:
    clean = text.replace("_", "")
    if clean.endswith("n"):
        raise NotLiteral("BigInt")
    lowered = clean.lower()
    if lowered.startswith(("0x", "0o", "0b")):
        return int(lowered, 0)
    if len(clean) > 1 and clean[0] == "0" and clean[1].isdigit():
        raise NotLiteral("legacy octal")
    if re.fullmatch(r"\d+", clean):
        return int(clean)
    value = float(clean)
    if not math.isfinite(value):
        raise NotLiteral("not finite")
    return value


def _js_number_text(number: float) -> str:
    return str(int(number)) if number.is_integer() else repr(number)


def _string(node, data: bytes) -> str:  # type: ignore[no-untyped-def]
    parts = []
    for child in node.named_children:
        if child.type == "string_fragment":
            parts.append(node_text(child, data))
        elif child.type == "escape_sequence":
            parts.append(_unescape(node_text(child, data)))
        elif child.type == "template_substitution":
            raise NotLiteral("template")
        elif child.type != "comment":
            raise NotLiteral(child.type)
    return "".join(parts)


def _unescape(escape: str) -> str:
    body = escape[1:]
    if body[:1] in _ESCAPES and len(body) == 1:
        return _ESCAPES[body]
    if body.startswith("u{") and body.endswith("}"):
        return chr(int(body[2:-1], 16))
    if body.startswith("u") and len(body) == 5:
        return chr(int(body[1:], 16))
    if body.startswith("x") and len(body) == 3:
        return chr(int(body[1:], 16))
    if body.startswith(("\r\n", "\n", "\r", "\u2028", "\u2029")):
        return ""
    if body[:1].isdigit():
        raise NotLiteral("octal escape")
    return body


def js_arguments(values: Sequence[Any]) -> str:
    """Python values as a JavaScript argument list: JSON-like literals (``[1, 2]``,
    ``{a: 1, "b c": 2}``, ``"text"``, ``null``) that JavaScript reads as the same values."""
    return ", ".join(js_literal(v) for v in values)


def js_literal(value: Any, depth: int = 0) -> str:
    """One Python value as a JavaScript literal (``ValueError`` for what has none)."""
    if depth > 60:
        raise ValueError("too deep")
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return _js_number_text(value) if value != 0 or math.copysign(1, value) > 0 else "-0"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bytes):
        return json.dumps(value.decode("latin-1"), ensure_ascii=False)
    if isinstance(value, (set, frozenset)):
        return "[" + ", ".join(sorted(js_literal(v, depth + 1) for v in value)) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(js_literal(v, depth + 1) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_js_key(str(k))}: {js_literal(v, depth + 1)}" for k, v in value.items()) + "}"
    raise ValueError(f"no JavaScript literal for {type(value).__name__}")


def _js_key(key: str) -> str:
    if key == "__proto__":
        return '["__proto__"]'
    return key if re.fullmatch(r"[A-Za-z_$][\w$]*", key) else json.dumps(key, ensure_ascii=False)
