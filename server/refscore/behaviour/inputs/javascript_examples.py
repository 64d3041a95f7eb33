"""What a JavaScript reference shows, read with tree-sitter and never run: its top-level
functions (``function f``, ``const f = (...) =>``, ``const f = function``, CommonJS
``module.exports``/``exports.f``, ``export``), the example calls in its comments (``f(1, 2) // => 3``,
``f([1, 2]) ==> 3``, ``> f(1)``, ``@example``) and in its top-level code (``console.log(f(...))``),
and a teacher's inputs file in JavaScript syntax. Literal arguments (numbers, strings, arrays,
plain objects, booleans, null) become Python values, so that ``mutate`` works on them, and go
back as JSON text (``js_arguments``), which JavaScript reads as the same values.

Also the rewriting a ``vm.Script`` needs (``commonjs``: ``import``/``export`` as ``require`` and
plain declarations) and whether a program reads its standard input (``reads_stdin``).
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any, Iterator, Sequence

from ... import languages
from ..calls import Call
from .brackets import closing
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
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_STDIN = re.compile(r"process\s*\.\s*stdin|readFileSync\s*\(\s*(?:0|['\"]/dev/stdin['\"])|"
                    r"require\s*\(\s*['\"](?:node:)?readline['\"]\s*\)|from\s+['\"](?:node:)?readline['\"]")


class NotLiteral(ValueError):
    """An argument that is not a JSON-like literal."""


def parse(source: str):  # type: ignore[no-untyped-def]
    """The tree-sitter tree of JavaScript ``source``."""
    return languages.get("javascript").parse(source.encode("utf-8"))


def _text(node, data: bytes) -> str:  # type: ignore[no-untyped-def]
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


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


def reads_stdin(source: str) -> bool:
    """Whether a program reads its standard input (then it is run as a program, not called)."""
    return bool(_STDIN.search(source))


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
        if node.type == "lexical_declaration" and _text(node.children[0], data) == "const":
            for declarator in node.named_children:
                name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                if name is not None and name.type == "identifier" and value is not None:
                    try:
                        _value(value, data)
                    except NotLiteral:
                        continue
                    consts[_text(name, data)] = _text(value, data)
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
        for call in comment_calls(_comment_text(_text(comment, data)), names):
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
            yield _text(name, data), node
    elif node.type in ("lexical_declaration", "variable_declaration"):
        for declarator in node.named_children:
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is not None and name.type == "identifier" and value is not None and value.type in _FUNCTION_VALUES:
                yield _text(name, data), value


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
        target = _text(left, data).replace(" ", "")
        if target == "module.exports":
            if right.type == "object":
                for member in right.named_children:
                    if member.type == "shorthand_property_identifier":
                        name = _text(member, data)
                        if name in local:
                            out[name] = local[name]
                    elif member.type == "pair":
                        key, value = member.child_by_field_name("key"), member.child_by_field_name("value")
                        if key is None or value is None or key.type != "property_identifier":
                            continue
                        function = value if value.type in _FUNCTION_VALUES else local.get(_text(value, data))
                        if function is not None:
                            out[_text(key, data)] = function
                    elif member.type == "method_definition":
                        name = member.child_by_field_name("name")
                        if name is not None and name.type == "property_identifier":
                            out[_text(name, data)] = member
            elif right.type in _FUNCTION_VALUES:
                name = right.child_by_field_name("name")
                if name is not None:
                    out[_text(name, data)] = right
            elif right.type == "identifier" and _text(right, data) in local:
                out[_text(right, data)] = local[_text(right, data)]
        else:
            match = re.fullmatch(r"(?:module\.)?exports\.([A-Za-z_$][\w$]*)", target)
            if match and (right.type in _FUNCTION_VALUES or _text(right, data) in local):
                out[match.group(1)] = right if right.type in _FUNCTION_VALUES else local[_text(right, data)]
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
            parameters.append(_text(left, data) if left is not None and left.type == "identifier" else f"arg{position}")
            continue
        parameters.append(_text(parameter, data) if parameter.type == "identifier" else f"arg{position}")
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
        lines.insert(0, _comment_text(_text(statements[index], data)))
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
    name = _text(function, data)
    if names is not None and name not in names:
        return None
    parts: list[str] = []
    values: list[Any] | None = []
    for argument in arguments.named_children:
        if argument.type == "comment":
            continue
        if argument.type == "spread_element":
            return None
        if argument.type == "identifier" and _text(argument, data) in consts:
            text = consts[_text(argument, data)]
            parts.append(text)
            values = _append_literal(values, parse(f"({text})").root_node, f"({text})".encode("utf-8"))
            continue
        if not free and not _self_contained(argument, data):
            return None
        parts.append(" ".join(_text(argument, data).split()) if "\n" in _text(argument, data) else _text(argument, data))
        values = _append_literal(values, argument, data)
    return Call(name, ", ".join(parts), origin, tuple(values) if values is not None else None)


def _append_literal(values: list[Any] | None, node, data: bytes) -> list[Any] | None:  # type: ignore[no-untyped-def]
    if values is None:
        return None
    try:
        values.append(_value(node, data))
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
            bound.update(_text(n, data) for n in _identifiers(current))
            continue
        if current.type in ("identifier", "shorthand_property_identifier"):
            used.append(_text(current, data))
        stack.extend(current.children)
    return all(name in JS_GLOBALS or name in bound for name in used)


def _identifiers(node) -> Iterator:  # type: ignore[no-untyped-def]
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "shorthand_property_identifier_pattern"):
            yield current
        stack.extend(current.children)


# --- literals ------------------------------------------------------------------------------


def _value(node, data: bytes, depth: int = 0) -> Any:  # type: ignore[no-untyped-def]
    """A literal argument as a Python value (``NotLiteral`` when it is not JSON-like)."""
    if depth > 50:
        raise NotLiteral("too deep")
    kind = node.type
    if kind == "parenthesized_expression" or kind == "program" or kind == "expression_statement":
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            raise NotLiteral(kind)
        return _value(inner[0], data, depth + 1)
    if kind == "number":
        return _number(_text(node, data))
    if kind == "unary_expression":
        operator = node.child_by_field_name("operator")
        argument = node.child_by_field_name("argument")
        sign = _text(operator, data) if operator is not None else ""
        if sign in ("-", "+") and argument is not None and argument.type == "number":
            value = _number(_text(argument, data))
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
        return [_value(c, data, depth + 1) for c in items]
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
                name = _text(key, data)
            elif key.type == "string":
                name = _string(key, data)
            elif key.type == "number":
                number = _number(_text(key, data))
                name = str(number) if isinstance(number, int) else _js_number_text(number)
            else:
                raise NotLiteral("computed key")
            out[name] = _value(value, data, depth + 1)
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
            parts.append(_text(child, data))
        elif child.type == "escape_sequence":
            parts.append(_unescape(_text(child, data)))
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


# --- rewriting for a vm.Script -------------------------------------------------------------


def commonjs(source: str) -> str:
    """``source`` with ``import`` as ``require`` and ``export`` keywords removed (what a
    ``vm.Script`` runs); lines stay where they were. Unchanged when it does not parse or has
    neither."""
    if "import" not in source and "export" not in source:
        return source
    data = source.encode("utf-8")
    root = languages.get("javascript").parse(data).root_node
    if root.has_error:
        return source
    edits: list[tuple[int, int, str]] = []
    for statement in root.named_children:
        if statement.type == "import_statement":
            edits.append((statement.start_byte, statement.end_byte, _required(statement, data)))
        elif statement.type == "export_statement":
            edit = _unexported(statement, data)
            if edit is not None:
                edits.append(edit)
    if not edits:
        return source
    out, position = bytearray(), 0
    for start, end, text in edits:
        out += data[position:start] + text.encode("utf-8")
        position = end
    out += data[position:]
    return out.decode("utf-8", "replace")


def _lines_of(node, data: bytes) -> str:  # type: ignore[no-untyped-def]
    return "\n" * data[node.start_byte:node.end_byte].count(b"\n")


def _required(statement, data: bytes) -> str:  # type: ignore[no-untyped-def]
    source = statement.child_by_field_name("source")
    module = _text(source, data) if source is not None else "''"
    loaded = f"require({module})"
    if module[1:2] in (".", "/"):  # a file of the exercise, absent here: often types only
        loaded = f"(() => {{ try {{ return require({module}); }} catch (e) {{ return {{}}; }} }})()"
    clause = next((c for c in statement.named_children if c.type == "import_clause"), None)
    parts: list[str] = []
    if clause is None:
        parts.append(f"{loaded};")
    else:
        for child in clause.named_children:
            if child.type == "identifier":
                parts.append(f"const {_text(child, data)} = {loaded};")
            elif child.type == "namespace_import":
                name = next((c for c in child.named_children if c.type == "identifier"), None)
                if name is not None:
                    parts.append(f"const {_text(name, data)} = {loaded};")
            elif child.type == "named_imports":
                names = []
                for specifier in child.named_children:
                    if specifier.type != "import_specifier":
                        continue
                    name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
                    if name is None:
                        continue
                    names.append(f"{_text(name, data)}: {_text(alias, data)}" if alias is not None else _text(name, data))
                parts.append(f"const {{{', '.join(names)}}} = {loaded};")
    return " ".join(parts) + _lines_of(statement, data)


def _unexported(statement, data: bytes) -> tuple[int, int, str] | None:  # type: ignore[no-untyped-def]
    declaration = statement.child_by_field_name("declaration")
    value = statement.child_by_field_name("value")
    if declaration is not None:  # ``export [default] function f`` -> ``function f``
        return statement.start_byte, declaration.start_byte, " " * (declaration.start_byte - statement.start_byte)
    if value is not None:  # ``export default <expression>``
        return statement.start_byte, value.start_byte, "module.exports.default = "
    clause = next((c for c in statement.named_children if c.type == "export_clause"), None)
    source = statement.child_by_field_name("source")
    if source is not None:
        return statement.start_byte, statement.end_byte, (
            f"Object.assign(module.exports, require({_text(source, data)}));" + _lines_of(statement, data))
    if clause is not None:  # ``export {a, b as c}``
        pairs = []
        for specifier in clause.named_children:
            name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
            if name is not None:
                pairs.append(f"{_text(alias if alias is not None else name, data)}: {_text(name, data)}")
        return statement.start_byte, statement.end_byte, (
            f"Object.assign(module.exports, {{{', '.join(pairs)}}});" + _lines_of(statement, data))
    return None
