"""TypeScript turned into the JavaScript node runs, by removing what is only types: annotations,
type aliases, interfaces, generics' type parameters and arguments, ``as``/``satisfies`` types,
non-null ``!``, ``implements`` clauses, access modifiers, overload signatures, ``declare``d
things; enums become objects and constructor parameter properties assignments. Removed text
becomes spaces, so lines and columns stay where they were. Read with tree-sitter, never run.

The parameter types of top-level functions are kept (``Stripped.types``, as Python type hints
such as ``list[int]``) so that functions without examples still get typed inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from .. import languages
from .inputs.javascript_examples import first_error_line

#: Node types that are types only, removed whole.
_TYPE_ONLY = frozenset({
    "type_parameters", "type_arguments", "interface_declaration", "type_alias_declaration",
    "function_signature", "abstract_method_signature", "method_signature", "index_signature",
    "ambient_declaration", "accessibility_modifier", "override_modifier", "implements_clause",
})
#: Keywords that only modify, removed wherever they are tokens.
_MODIFIERS = frozenset({"abstract", "readonly", "override", "declare"})
#: Parents whose ``?`` / ``!`` token is a type marker.
_MARKED = frozenset({"optional_parameter", "public_field_definition", "method_definition", "variable_declarator",
                     "property_signature"})


class TypeScriptError(ValueError):
    """Why TypeScript could not become JavaScript, in a few words; ``syntax``: the source itself
    does not parse (the program's fault, not this module's)."""

    def __init__(self, message: str, syntax: bool = False):
        super().__init__(message)
        self.syntax = syntax
        self.line: int | None = None


@dataclass(frozen=True)
class Stripped:
    """The JavaScript and the top-level functions' parameter types (Python hints or None)."""

    javascript: str
    types: dict[str, tuple[str | None, ...]] = field(default_factory=dict)


def strip_types(source: str, language: str = "typescript") -> Stripped:
    """``source`` (TypeScript, or TSX when ``language`` is ``tsx``) as JavaScript;
    ``TypeScriptError`` when it does not parse or holds something this cannot turn."""
    data = source.encode("utf-8")
    tree = languages.get(language).parse(data)
    root = tree.root_node
    if root.has_error:
        line = first_error_line(root)
        error = TypeScriptError(f"syntax error at line {line}", syntax=True)
        error.line = line
        raise error
    edits: list[tuple[int, int, str]] = []
    for node in _walk(root):
        edit = _edit(node, data)
        if edit is not None:
            edits.extend(edit)
    javascript = _apply(data, edits).decode("utf-8", "replace")
    check = languages.get("javascript").parse(javascript.encode("utf-8")).root_node
    if check.has_error:
        line = first_error_line(check)
        text = javascript.splitlines()[line - 1].strip() if 0 < line <= len(javascript.splitlines()) else ""
        raise TypeScriptError(f"line {line}: {text[:60]}" if text else f"line {line}")
    return Stripped(javascript, _top_level_types(root, data))


def _walk(root) -> Iterator:  # type: ignore[no-untyped-def]
    """Every node, parents first; the subtree of a node removed whole is not entered."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node.type in _TYPE_ONLY or node.type.endswith("_annotation") or node.type == "enum_declaration":
            continue
        stack.extend(reversed(node.children))


def _edit(node, data: bytes) -> list[tuple[int, int, str]] | None:  # type: ignore[no-untyped-def]
    kind = node.type
    parent = node.parent
    if kind in ("internal_module", "module"):
        raise TypeScriptError("namespaces are not supported")
    if kind == "import_alias":
        raise TypeScriptError("import = require is not supported")
    if kind in _TYPE_ONLY or kind.endswith("_annotation"):
        return [_remove(node)]
    if kind == "import_statement" and any(c.type == "type" for c in node.children):
        return [_remove(node)]
    if kind in ("import_specifier", "export_specifier") and any(c.type == "type" for c in node.children):
        following = node.next_sibling  # ``{ type A, B }``: A and its comma
        end = following.end_byte if following is not None and following.type == "," else node.end_byte
        return [(node.start_byte, end, _blank(data[node.start_byte:end]))]
    if kind == "export_statement":
        declaration = node.child_by_field_name("declaration")
        if any(c.type == "type" for c in node.children) or (
                declaration is not None and declaration.type in ("interface_declaration", "type_alias_declaration")):
            return [_remove(node)]
        return None
    if kind == "enum_declaration":
        return [(node.start_byte, node.end_byte, _enum(node, data))]
    if kind in ("as_expression", "satisfies_expression"):
        keyword = next((c for c in node.children if c.type in ("as", "satisfies")), None)
        return [(keyword.start_byte, node.end_byte, _blank(data[keyword.start_byte:node.end_byte]))] if keyword else None
    if kind == "non_null_expression":
        return [_remove(node.children[-1])] if node.children and node.children[-1].type == "!" else None
    if kind == "public_field_definition" and any(c.type in ("declare", "abstract") for c in node.children):
        return [_remove(node)]
    if kind in ("required_parameter", "optional_parameter"):
        pattern = node.child_by_field_name("pattern")
        if pattern is not None and pattern.type == "this":  # ``this: T``: no parameter in JavaScript
            following = node.next_sibling
            end = following.end_byte if following is not None and following.type == "," else node.end_byte
            return [(node.start_byte, end, _blank(data[node.start_byte:end]))]
    if kind == "method_definition" and _name(node, data) == "constructor":
        return _parameter_properties(node, data)
    if not node.is_named and parent is not None:
        if kind in _MODIFIERS and parent.type not in ("identifier", "property_identifier"):
            return [_remove(node)]
        if kind in ("?", "!") and parent.type in _MARKED:
            return [_remove(node)]
    return None


def _name(node, data: bytes) -> str:  # type: ignore[no-untyped-def]
    name = node.child_by_field_name("name")
    return data[name.start_byte:name.end_byte].decode("utf-8", "replace") if name is not None else ""


def _blank(text: bytes) -> str:
    """Spaces for ``text``, its line breaks kept."""
    return "".join(c if c in "\r\n" else " " for c in text.decode("utf-8", "replace"))


def _remove(node) -> tuple[int, int, str]:  # type: ignore[no-untyped-def]
    return node.start_byte, node.end_byte, ""


def _parameter_properties(node, data: bytes) -> list[tuple[int, int, str]] | None:  # type: ignore[no-untyped-def]
    """``constructor(private x: number)``: ``this.x = x;`` at the start of the body (after
    ``super(...)`` when it comes first)."""
    parameters = node.child_by_field_name("parameters")
    body = node.child_by_field_name("body")
    if parameters is None or body is None:
        return None
    names = []
    for parameter in parameters.named_children:
        modified = any(c.type in ("accessibility_modifier", "readonly", "override_modifier") for c in parameter.children)
        pattern = parameter.child_by_field_name("pattern")
        if modified and pattern is not None and pattern.type == "identifier":
            names.append(data[pattern.start_byte:pattern.end_byte].decode("utf-8"))
    if not names:
        return None
    at = body.start_byte + 1
    statements = body.named_children
    if statements and statements[0].type == "expression_statement" and data[
            statements[0].start_byte:statements[0].end_byte].lstrip().startswith(b"super"):
        at = statements[0].end_byte
    return [(at, at, " " + " ".join(f"this.{n} = {n};" for n in names))]


def _enum(node, data: bytes) -> str:  # type: ignore[no-untyped-def]
    """An enum as the object TypeScript makes of it, on the enum's first line (its other lines
    kept as blank lines)."""
    name = _name(node, data)
    body = node.child_by_field_name("body")
    parts = ["var ", name, " = (function (E) { var v = -1; "]
    for member in (body.named_children if body is not None else []):
        if member.type == "enum_assignment":
            key = _name(member, data)
            value = member.child_by_field_name("value")
            value_text = data[value.start_byte:value.end_byte].decode("utf-8") if value is not None else "v + 1"
            if value is not None and value.type in ("string", "template_string"):
                parts.append(f"E[{_key(key)}] = {value_text}; ")
                continue
            parts.append(f"v = ({value_text}); E[E[{_key(key)}] = v] = {_key(key)}; ")
        elif member.type in ("property_identifier", "string"):
            key = data[member.start_byte:member.end_byte].decode("utf-8")
            parts.append(f"v = v + 1; E[E[{_key(key)}] = v] = {_key(key)}; ")
    parts.append("return E; })({});")
    lines = data[node.start_byte:node.end_byte].count(b"\n")
    return "".join(parts) + "\n" * lines


def _key(text: str) -> str:
    if text[:1] in ("'", '"'):
        return text
    return '"' + text + '"'


def _apply(data: bytes, edits: list[tuple[int, int, str]]) -> bytes:
    """``data`` with each edit's range replaced: by its text, or by blanks when the text is empty
    (an edit inside one already made is left out)."""
    out = bytearray()
    position = 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], -e[1])):
        if start < position:
            continue
        out += data[position:start]
        out += (text if text else _blank(data[start:end])).encode("utf-8")
        position = end
    out += data[position:]
    return bytes(out)


def _top_level_types(root, data: bytes) -> dict[str, tuple[str | None, ...]]:  # type: ignore[no-untyped-def]
    """Parameter types of the top-level functions (``function f``, ``const f = (...) =>``)."""
    types: dict[str, tuple[str | None, ...]] = {}
    for statement in root.named_children:
        if statement.type == "export_statement":
            statement = statement.child_by_field_name("declaration") or statement
        if statement.type == "function_declaration":
            types[_name(statement, data)] = _parameter_types(statement, data)
        elif statement.type in ("lexical_declaration", "variable_declaration"):
            for declarator in statement.named_children:
                value = declarator.child_by_field_name("value")
                name = declarator.child_by_field_name("name")
                if value is not None and name is not None and name.type == "identifier" and value.type in (
                        "arrow_function", "function_expression", "function"):
                    types[_name(declarator, data)] = _parameter_types(value, data)
    return types


def _parameter_types(function, data: bytes) -> tuple[str | None, ...]:  # type: ignore[no-untyped-def]
    parameters = function.child_by_field_name("parameters")
    if parameters is None:
        return (None,)
    out = []
    for parameter in parameters.named_children:
        if parameter.type not in ("required_parameter", "optional_parameter"):
            continue
        pattern = parameter.child_by_field_name("pattern")
        if pattern is not None and pattern.type == "this":
            continue
        annotation = parameter.child_by_field_name("type")
        inner = annotation.named_children[0] if annotation is not None and annotation.named_children else None
        out.append(python_hint(inner, data) if inner is not None else None)
    return tuple(out)


def python_hint(node, data: bytes, depth: int = 0) -> str | None:  # type: ignore[no-untyped-def]
    """A TypeScript type as the Python hint ``inputs.typed`` makes values for (``number[]``:
    ``list[int]``), None when there is none."""
    if node is None or depth > 4:
        return None
    kind = node.type
    text = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
    if kind == "predefined_type":
        return {"number": "int", "string": "str", "boolean": "bool"}.get(text)
    if kind == "literal_type" and text == "null":
        return "None"
    if kind in ("parenthesized_type", "readonly_type"):
        return python_hint(node.named_children[0] if node.named_children else None, data, depth)
    if kind == "array_type":
        inner = python_hint(node.named_children[0] if node.named_children else None, data, depth + 1)
        return f"list[{inner}]" if inner else None
    if kind == "tuple_type":
        items = [python_hint(c, data, depth + 1) for c in node.named_children]
        return f"tuple[{', '.join(items)}]" if items and all(items) else None  # type: ignore[arg-type]
    if kind == "union_type":
        items = [python_hint(c, data, depth + 1) for c in node.named_children]
        items = [i for i in items if i]
        return " | ".join(items) if items else None
    if kind == "generic_type":
        name = node.child_by_field_name("name")
        arguments = node.child_by_field_name("type_arguments")
        base = data[name.start_byte:name.end_byte].decode("utf-8") if name is not None else ""
        items = [python_hint(c, data, depth + 1) for c in (arguments.named_children if arguments else [])]
        if base in ("Array", "ReadonlyArray") and len(items) == 1 and items[0]:
            return f"list[{items[0]}]"
        if base == "Record" and len(items) == 2 and items[0] == "str" and items[1]:
            return f"dict[str, {items[1]}]"
        return None
    if kind == "object_type":
        members = node.named_children
        if len(members) == 1 and members[0].type == "index_signature":
            key = members[0].child_by_field_name("index_type")
            value = members[0].child_by_field_name("type")
            key_hint = python_hint(key, data, depth + 1)
            value_hint = python_hint(value.named_children[0] if value is not None and value.named_children else None,
                                     data, depth + 1)
            if key_hint == "str" and value_hint:
                return f"dict[str, {value_hint}]"
        return None
    return None
