"""Top-level functions and methods of a text (for per-function code lenses), with code-point spans.

Reads the language registry's parser and node types (``LanguageSpec.function_types``,
``function_values``, ``function_binding_types``, ``function_wrapper_types``, ``class_types``,
``declarator_name_types``); no node type is named here. Functions are found outside other functions, inside
classes, impls, namespaces and modules, so nested helpers belong to their enclosing function.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import OffsetMap, normalize_line_breaks
from ..languages import LanguageSpec
from ..parsing.memo import TextMemo
from ..parsing.parsed import parse

MAX_DEPTH = 8
MAX_FUNCTIONS = 500


@dataclass(frozen=True)
class Function:
    """One function or method: name (``Class.method`` inside a class), code-point span, first line."""

    name: str
    start: int
    end: int
    line: int

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]


def _name(node, source: bytes, spec: LanguageSpec) -> str | None:
    named = node.child_by_field_name("name")
    if named is not None:
        return source[named.start_byte:named.end_byte].decode("utf-8", "replace")
    declarator = node.child_by_field_name("declarator")
    for _ in range(8):  # C/C++: int *f(int) -> function_declarator -> identifier
        if declarator is None:
            return None
        if declarator.type in spec.declarator_name_types:
            return source[declarator.start_byte:declarator.end_byte].decode("utf-8", "replace")
        declarator = declarator.child_by_field_name("declarator")
    return None


#: Each text's functions, by its text and language: a reference's are asked for at every edit of
#: its candidate (the pairing, the lenses, the live encoding), and each version's by several features.
_FOUND: TextMemo[tuple[Function, ...]] = TextMemo(entries=64, chars=4_000_000)


def top_level_functions(text: str, spec: LanguageSpec) -> list[Function]:
    """Functions and methods not nested in another function, in document order."""
    return list(_FOUND(text, spec.name, lambda: tuple(_find(text, spec))))


def _find(text: str, spec: LanguageSpec) -> list[Function]:
    source = normalize_line_breaks(text).encode("utf-8")  # lone CRs as LF; offsets unchanged
    root = parse(spec, source).root_node
    offsets = OffsetMap(text)
    functions, values, classes = spec.function_types, spec.function_values, spec.class_types
    bindings, wrappers = spec.function_binding_types, spec.function_wrapper_types
    found: list[Function] = []
    stack = [(root, 0, "")]
    while stack and len(found) < MAX_FUNCTIONS:
        node, depth, owner = stack.pop()
        kind = node.type
        value = node.child_by_field_name("value") if kind in bindings else None
        if kind in functions or (value is not None and value.type in values):
            name = _name(node, source, spec) or f"<anonymous@{node.start_point[0] + 1}>"
            span_node = node.parent if node.parent is not None and node.parent.type in wrappers else node
            found.append(Function(f"{owner}{name}", offsets.from_byte(span_node.start_byte),
                                  offsets.from_byte(span_node.end_byte), span_node.start_point[0]))
            continue
        if depth >= MAX_DEPTH:
            continue
        if kind in classes:
            class_name = _name(node, source, spec)
            owner = f"{owner}{class_name}." if class_name else owner
        for child in reversed(node.named_children):
            stack.append((child, depth + 1, owner))
    found.sort(key=lambda f: f.start)
    return found
