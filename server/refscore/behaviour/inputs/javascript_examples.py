"""What a JavaScript reference shows, read with tree-sitter and never run: its top-level
functions (``function f``, ``const f = (...) =>``, ``const f = function``, CommonJS
``module.exports``/``exports.f``, ``export``), the example calls in its comments (``f(1, 2) // => 3``,
``f([1, 2]) ==> 3``, ``> f(1)``, ``@example``) and in its top-level code (``console.log(f(...))``),
and a teacher's inputs file in JavaScript syntax. Literal arguments become Python values
(``js_literals``).
"""

from __future__ import annotations

import ast
import re
from typing import Any, Iterator

from ... import languages
from ..calls import Call
from .brackets import closing
from .js_literals import NotLiteral, literal_value, node_text
from .python_examples import FunctionShape, Shapes
from .teacher_file import InputsFileError, _json_list

#: Globals an example's arguments may name (anything else is a variable of the example's prose).
JS_GLOBALS = frozenset({
    "undefined", "NaN", "Infinity", "Math", "Number", "String", "Boolean", "Array", "Object", "JSON", "Map",
    "Set", "BigInt", "Date", "Symbol", "RegExp", "parseInt", "parseFloat", "isNaN", "isFinite", "Int8Array",
    "Uint8Array", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array",
    "BigInt64Array", "BigUint64Array", "Error", "TypeError", "RangeError", "encodeURIComponent",
    "decodeURIComponent", "structuredClone",
})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_FUNCTION_DECLARATIONS = frozenset({"function_declaration", "generator_function_declaration"})
_NESTED_SCOPES = _FUNCTION_VALUES | _FUNCTION_DECLARATIONS | {"class_declaration", "class", "method_definition"}


def parse(source: str):  # type: ignore[no-untyped-def]
    """The tree-sitter tree of JavaScript ``source``."""
    return languages.get("javascript").parse(source.encode("utf-8"))


def first_error_line(root) -> int | None:  # type: ignore[no-untyped-def]
    """Line of the first syntax error of a tree (None when it has none)."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point[0] + 1
        if node.has_error:
            stack.extend(reversed(node.children))
    return root.start_point[0] + 1


# --- the reference's functions -------------------------------------------------------------


def read_shapes(source: str, hints: dict[str, tuple[str | None, ...]] | None = None) -> Shapes:
    """The top-level functions of JavaScript ``source`` and the calls it shows; ``hints``:
    parameter types as Python hints (from TypeScript). ``SyntaxError`` when it does not parse."""
    data = source.encode("utf-8")
    root = languages.get("javascript").parse(data).root_node
    line = first_error_line(root)
    if line is not None:
        error = SyntaxError("the program does not parse")
        error.lineno = line
        raise error
    hints = hints or {}
    shapes = Shapes()
    local: dict[str, Any] = {}  # name -> function node, of every top-level function
    consts: dict[str, str] = {}  # name -> literal text, of top-level ``const NAME = <literal>``
    documentation: dict[str, str] = {}
    statements = root.named_children
    for index, statement in enumerate(statements):
        declaration = statement.child_by_field_name("declaration") if statement.type == "export_statement" else None
        node = declaration or statement
        comment = _preceding_comment(statements, index, data)
        for name, function in _declared_functions(node, data):
            local.setdefault(name, function)
            documentation.setdefault(name, comment)
        if node.type == "lexical_declaration" and node_text(node.children[0], data) == "const":
            for declarator in node.named_children:
                name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                if name is not None and name.type == "identifier" and value is not None:
                    try:
                        literal_value(value, data)
                    except NotLiteral:
                        continue
                    consts[node_text(name, data)] = node_text(value, data)
    exported = _exported_functions(statements, data, local)
    for name, function in [*local.items(), *exported.items()]:
        if name not in shapes.functions:
            shapes.functions[name] = _shape(name, function, data, hints.get(name), documentation.get(name, ""))
    names = set(shapes.functions)
    seen: set[tuple[str, str]] = set()

    def add(call: Call | None) -> None:
        if call is not None and call.key() not in seen:
            seen.add(call.key())
            shapes.calls.append(call)

    for comment in _comments(root):
        for call in comment_calls(_comment_text(node_text(comment, data)), names):
            add(call)
    for statement in statements:
        if statement.type in _FUNCTION_DECLARATIONS or statement.type in ("import_statement", "comment"):
            continue
        for node in _calls_outside_functions(statement):
            add(_call_of(node, data, "main", names, consts))
    return shapes


def _declared_functions(node, data: bytes) -> Iterator[tuple[str, Any]]:  # type: ignore[no-untyped-def]
    if node.type in _FUNCTION_DECLARATIONS:
        name = node.child_by_field_name("name")
        if name is not None:
            yield node_text(name, data), node
    elif node.type in ("lexical_declaration", "variable_declaration"):
        for declarator in node.named_children:
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is not None and name.type == "identifier" and value is not None and value.type in _FUNCTION_VALUES:
                yield node_text(name, data), value


def _exported_functions(statements, data: bytes, local: dict[str, Any]) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """``module.exports = {f, g: h, k(x) {}}``, ``module.exports.f = ...``, ``exports.f = ...``,
    ``module.exports = function f``: exported name -> function node."""
    out: dict[str, Any] = {}
    for statement in statements:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        assignment = statement.named_children[0]
        if assignment.type != "assignment_expression":
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None:
            continue
        target = node_text(left, data).replace(" ", "")
        if target == "module.exports":
            if right.type == "object":
                for member in right.named_children:
                    if member.type == "shorthand_property_identifier":
                        name = node_text(member, data)
                        if name in local:
                            out[name] = local[name]
                    elif member.type == "pair":
                        key, value = member.child_by_field_name("key"), member.child_by_field_name("value")
                        if key is None or value is None or key.type != "property_identifier":
                            continue
                        function = value if value.type in _FUNCTION_VALUES else local.get(node_text(value, data))
                        if function is not None:
                            out[node_text(key, data)] = function
                    elif member.type == "method_definition":
                        name = member.child_by_field_name("name")
                        if name is not None and name.type == "property_identifier":
                            out[node_text(name, data)] = member
            elif right.type in _FUNCTION_VALUES:
                name = right.child_by_field_name("name")
                if name is not None:
                    out[node_text(name, data)] = right
            elif right.type == "identifier" and node_text(right, data) in local:
                out[node_text(right, data)] = local[node_text(right, data)]
        else:
            match = re.fullmatch(r"(?:module\.)?exports\.([A-Za-z_$][\w$]*)", target)
            if match and (right.type in _FUNCTION_VALUES or node_text(right, data) in local):
                out[match.group(1)] = right if right.type in _FUNCTION_VALUES else local[node_text(right, data)]
    return out


def _shape(name: str, function, data: bytes, hints: tuple[str | None, ...] | None,  # type: ignore[no-untyped-def]
           documentation: str) -> FunctionShape:
    from .guess import _from_name

    parameters: list[str] = []
    required = 0
    variadic = False
    single = function.child_by_field_name("parameter")
    listed = function.child_by_field_name("parameters")
    nodes = [single] if single is not None else (listed.named_children if listed is not None else [])
    optional_seen = False
    for position, parameter in enumerate(n for n in nodes if n.type != "comment"):
        if parameter.type == "rest_pattern":
            variadic = True
            break
        if parameter.type == "assignment_pattern":
            optional_seen = True
            left = parameter.child_by_field_name("left")
            parameters.append(node_text(left, data) if left is not None and left.type == "identifier" else f"arg{position}")
            continue
        parameters.append(node_text(parameter, data) if parameter.type == "identifier" else f"arg{position}")
        if not optional_seen:
            required = len(parameters)
    annotations: list[ast.expr | None] = []
    for position, parameter in enumerate(parameters):
        hint = hints[position] if hints is not None and position < len(hints) else None
        hint = hint or _from_name(parameter)
        try:
            annotations.append(ast.parse(hint, mode="eval").body if hint else None)
        except SyntaxError:
            annotations.append(None)
    return FunctionShape(name, tuple(parameters), tuple(annotations), documentation, required, variadic)


def _preceding_comment(statements, index: int, data: bytes) -> str:  # type: ignore[no-untyped-def]
    lines = []
    while index > 0 and statements[index - 1].type == "comment":
        index -= 1
        lines.insert(0, _comment_text(node_text(statements[index], data)))
    return "\n".join(lines)


def _comments(root) -> Iterator:  # type: ignore[no-untyped-def]
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            yield node
        else:
            stack.extend(reversed(node.children))


def _comment_text(comment: str) -> str:
    """A comment without its ``//``, ``/* */`` and JSDoc ``*`` line starts."""
    if comment.startswith("//"):
        return comment[2:]
    body = comment[2:-2] if comment.startswith("/*") and comment.endswith("*/") else comment
    return "\n".join(re.sub(r"^\s*\*(?!/)", "", line) for line in body.split("\n"))


def _calls_outside_functions(node) -> Iterator:  # type: ignore[no-untyped-def]
    """Call expressions of ``node`` outside nested functions and classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "call_expression":
            yield current
        stack.extend(c for c in reversed(current.children) if c.type not in _NESTED_SCOPES)


# --- calls ---------------------------------------------------------------------------------


def comment_calls(text: str, names: set[str]) -> Iterator[Call]:
    """Every call of one of ``names`` in prose (a comment) whose arguments are self-contained."""
    if not names:
        return
    pattern = re.compile(r"(?<![\w.$])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")\s*\(")
    for match in pattern.finditer(text):
        end = closing(text, match.end() - 1, quotes="'\"`", one_line="'\"")
        if end is None:
            continue
        expression = text[match.start():end + 1]
        wrapped = f"({expression});"
        data = wrapped.encode("utf-8")
        root = languages.get("javascript").parse(data).root_node
        if root.has_error:
            continue
        node = root.named_children[0] if root.named_children else None
        node = node.named_children[0] if node is not None and node.named_children else None
        node = node.named_children[0] if node is not None and node.type == "parenthesized_expression" else None
        if node is not None and node.type == "call_expression":
            call = _call_of(node, data, "example", names, {})
            if call is not None:
                yield call


def _call_of(node, data: bytes, origin: str, names: set[str] | None,  # type: ignore[no-untyped-def]
             consts: dict[str, str], free: bool = False) -> Call | None:
    """A ``Call`` from a call expression of a function by name: None when it names another
    function, spreads its arguments, or (unless ``free``) reads variables other than literal
    top-level constants (``consts``, whose text takes their place)."""
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or function.type != "identifier" or arguments is None or arguments.type != "arguments":
        return None
    name = node_text(function, data)
    if names is not None and name not in names:
        return None
    parts: list[str] = []
    values: list[Any] | None = []
    for argument in arguments.named_children:
        if argument.type == "comment":
            continue
        if argument.type == "spread_element":
            return None
        if argument.type == "identifier" and node_text(argument, data) in consts:
            text = consts[node_text(argument, data)]
            parts.append(text)
            values = _append_literal(values, parse(f"({text})").root_node, f"({text})".encode("utf-8"))
            continue
        if not free and not _self_contained(argument, data):
            return None
        parts.append(" ".join(node_text(argument, data).split()) if "\n" in node_text(argument, data) else node_text(argument, data))
        values = _append_literal(values, argument, data)
    return Call(name, ", ".join(parts), origin, tuple(values) if values is not None else None)


def _append_literal(values: list[Any] | None, node, data: bytes) -> list[Any] | None:  # type: ignore[no-untyped-def]
    if values is None:
        return None
    try:
        values.append(literal_value(node, data))
    except (NotLiteral, ValueError, RecursionError):
        return None
    return values


def _self_contained(node, data: bytes) -> bool:  # type: ignore[no-untyped-def]
    """Whether an argument names nothing but globals and its own functions' parameters."""
    bound: set[str] = set()
    used: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("this", "super"):
            return False
        if current.type in ("formal_parameters",) or (current.parent is not None and current.parent.type == "arrow_function"
                                                     and current.parent.child_by_field_name("parameter") == current):
            bound.update(node_text(n, data) for n in _identifiers(current))
            continue
        if current.type in ("identifier", "shorthand_property_identifier"):
            used.append(node_text(current, data))
        stack.extend(current.children)
    return all(name in JS_GLOBALS or name in bound for name in used)


def _identifiers(node) -> Iterator:  # type: ignore[no-untyped-def]
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "shorthand_property_identifier_pattern"):
            yield current
        stack.extend(current.children)


# --- a teacher's inputs file ---------------------------------------------------------------


def read_calls(text: str, functions: set[str] | None = None) -> list[Call]:
    """The calls of an inputs file in JavaScript syntax: one call per line (``add(1, 2)``;
    ``//`` or ``#`` starts a comment line; a ``;`` may end it), or a JSON list of calls."""
    items = _json_list(text)
    lines = [str(item) for item in items] if items is not None else text.splitlines()
    calls = []
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith(("#", "//")):
            continue
        data = line.encode("utf-8")
        root = languages.get("javascript").parse(data).root_node
        statements = [c for c in root.named_children if c.type != "comment"]
        if root.has_error or len(statements) != 1 or statements[0].type != "expression_statement":
            raise InputsFileError(f"inputs line {number}: not a call: {line[:60]}")
        expression = statements[0].named_children[0] if statements[0].named_children else None
        if expression is None or expression.type != "call_expression" or (
                expression.child_by_field_name("function") is None
                or expression.child_by_field_name("function").type != "identifier"):
            raise InputsFileError(f"inputs line {number}: not a call of a function by name: {line[:60]}")
        call = _call_of(expression, data, "file", None, {}, free=True)
        if call is None:
            raise InputsFileError(f"inputs line {number}: spread arguments are not supported: {line[:60]}")
        if functions is not None and call.function not in functions:
            raise InputsFileError(f"inputs line {number}: the reference has no function {call.function}")
        calls.append(call)
    return calls
