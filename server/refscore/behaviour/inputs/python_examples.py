"""The calls a Python reference shows: docstring examples in any of their usual forms
(``>>> f(1)``, ``f(1) ==> 2``, ``f(1) -> 2``, ``Input: x = 1``), its ``__main__`` block, its
type hints; read with ``ast``, never run."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..calls import Call

_INPUT_LINE = re.compile(r"^\s*(?:Input|Example input)\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class FunctionShape:
    """A top-level function of the reference: its parameters, their annotations, its docstring."""

    name: str
    parameters: tuple[str, ...]
    annotations: tuple[ast.expr | None, ...]
    docstring: str
    required: int
    variadic: bool = False


@dataclass
class Shapes:
    """What inputs can be made from: the functions, the calls the source shows."""

    functions: dict[str, FunctionShape] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)


def read_shapes(source: str) -> Shapes:
    """The top-level functions of ``source`` and the example calls it shows (``SyntaxError``
    when it does not parse)."""
    tree = ast.parse(source)
    shapes = Shapes()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not isinstance(node, ast.AsyncFunctionDef):
            shapes.functions[node.name] = _shape(node)
    names = set(shapes.functions)
    seen: set[tuple[str, str]] = set()

    def add(call: Call) -> None:
        if call.key() not in seen:
            seen.add(call.key())
            shapes.calls.append(call)

    for shape in shapes.functions.values():
        for call in _docstring_calls(shape, names):
            add(call)
    for node in tree.body:
        if _is_main_block(node):
            for call in _calls_in(node, names, "main"):
                add(call)
    return shapes


def _shape(node: ast.FunctionDef) -> FunctionShape:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    parameters = tuple(a.arg for a in positional)
    required = len(positional) - len(args.defaults)
    return FunctionShape(node.name, parameters, tuple(a.annotation for a in positional),
                         ast.get_docstring(node) or "", required, bool(args.vararg or args.kwarg))


def _is_main_block(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left, *node.test.comparators]
    return any(isinstance(p, ast.Name) and p.id == "__name__" for p in parts) and any(
        isinstance(p, ast.Constant) and p.value == "__main__" for p in parts)


def _calls_in(node: ast.AST, names: set[str], origin: str) -> Iterator[Call]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in names:
            call = _call_of(sub, origin)
            if call is not None:
                yield call


def _call_of(node: ast.Call, origin: str) -> Call | None:
    """A ``Call`` from a call expression; None for ``*args`` calls and ones naming local variables."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    values: list[Any] = []
    literal = True
    for arg in node.args:
        try:
            values.append(ast.literal_eval(arg))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            literal = False
    for keyword in node.keywords:
        try:
            ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            literal = False
    if not literal and any(_names_variables(a) for a in [*node.args, *(k.value for k in node.keywords)]):
        return None
    parts = [ast.unparse(a) for a in node.args] + [f"{k.arg}={ast.unparse(k.value)}" for k in node.keywords]
    positional_only = literal and not node.keywords
    return Call(node.func.id, ", ".join(parts), origin, tuple(values) if positional_only else None)  # type: ignore[attr-defined]


def _names_variables(node: ast.AST) -> bool:
    """Whether an argument reads a name that is not a builtin (a variable of the example's prose)."""
    import builtins

    return any(isinstance(n, ast.Name) and not hasattr(builtins, n.id) for n in ast.walk(node))


def _docstring_calls(shape: FunctionShape, names: set[str]) -> Iterator[Call]:
    text = shape.docstring
    if not text:
        return
    for expression in _call_expressions(text, names):
        try:
            tree = ast.parse(expression, mode="eval")
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        yield from _calls_in(tree, names, "example")
    for match in _INPUT_LINE.finditer(text):
        call = _input_line_call(shape, match.group(1))
        if call is not None:
            yield call


def _call_expressions(text: str, names: set[str]) -> Iterator[str]:
    """Every ``name(...)`` with balanced brackets in ``text`` whose name is a function here."""
    pattern = re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")\s*\(")
    for match in pattern.finditer(text):
        end = _closing(text, match.end() - 1)
        if end is not None:
            yield match.group(1) + text[match.end() - 1:end + 1]


def _closing(text: str, start: int) -> int | None:
    """Index of the bracket that closes ``text[start]``, skipping strings; None when unbalanced."""
    depth, quote, index = 0, "", start
    while index < len(text) and index - start < 20000:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def _input_line_call(shape: FunctionShape, text: str) -> Call | None:
    """``Input: nums = [1, 2], k = 3`` as a call of ``shape`` (keywords by parameter name)."""
    try:
        tree = ast.parse(f"_f({text.strip().rstrip('.')})", mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        # ``Input: [1, 2], 3`` (positional) parses; ``nums = [1, 2]`` needs keyword form:
        return None
    call = tree.body
    if not isinstance(call, ast.Call) or not call.keywords and not call.args:
        return None
    if call.keywords and not all(k.arg in shape.parameters for k in call.keywords):
        return None
    ordered = sorted(call.keywords, key=lambda k: shape.parameters.index(k.arg))  # type: ignore[arg-type]
    call.args = [*call.args, *(k.value for k in ordered)]
    call.keywords = []
    call.func = ast.Name(shape.name, ast.Load())
    return _call_of(call, "example")
