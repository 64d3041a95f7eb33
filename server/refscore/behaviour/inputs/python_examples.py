"""The calls a Python reference shows: docstring examples in any of their usual forms
(``>>> f(1)``, ``f(1) ==> 2``, ``f(1) -> 2``, ``Input: x = 1``, ``For lst = [1, 2] the output
is``, an ``Input:`` block of ``name : value`` lines, ``is_happy(abc)`` with a bare word for a
string, a call under another name when the function has none), its ``__main__`` block, its
type hints; read with ``ast``, never run."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..calls import Call
from .brackets import closing, outside_strings

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
                         _documentation(node), required, bool(args.vararg or args.kwarg))


def _documentation(node: ast.FunctionDef) -> str:
    """The docstring, or the first string statement after leading imports (``import math``
    written above the docstring)."""
    for statement in node.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) \
                and isinstance(statement.value.value, str):
            import inspect

            return inspect.cleandoc(statement.value.value)
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            return ""
    return ""


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
    found = False
    for call in _expression_calls(text, names, shape):
        found |= call.function == shape.name
        yield call
    for match in _INPUT_LINE.finditer(text):
        call = _input_line_call(shape, match.group(1))
        if call is not None:
            found = True
            yield call
    for call in _assignment_calls(shape):
        found = True
        yield call
    if not found:  # examples that call the function by another name (``list_sort(...)``)
        yield from _renamed_calls(shape, names)


def _expression_calls(text: str, names: set[str], shape: FunctionShape) -> Iterator[Call]:
    """The calls of ``names`` in ``text``; when none of ``shape``'s is all literals, bare words
    as its arguments are read as strings (``is_happy(abcd) => True``)."""
    trees = []
    for expression in _call_expressions(text, names):
        try:
            trees.append(ast.parse(expression, mode="eval"))
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
    calls = [call for tree in trees for call in _calls_in(tree, names, "example")]
    yield from calls
    if any(c.function == shape.name and c.values is not None for c in calls):
        return
    for tree in trees:
        node = tree.body
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == shape.name:
            words = _bare_words(node, set(shape.parameters) | names)
            if words is not None:
                call = _call_of(words, "example")
                if call is not None:
                    yield call


def _bare_words(node: ast.Call, taken: set[str]) -> ast.Call | None:
    """``node`` with its bare-name arguments as strings (None when it has none, or names a
    parameter, a function or a builtin)."""
    import builtins

    changed = False
    args: list[ast.expr] = []
    for arg in node.args:
        if isinstance(arg, ast.Name):
            if arg.id in taken or hasattr(builtins, arg.id):
                return None
            args.append(ast.Constant(arg.id))
            changed = True
        else:
            args.append(arg)
    if not changed or node.keywords:
        return None
    return ast.Call(node.func, args, [])


#: ``name = value`` or ``name : value`` in a docstring's prose (``For lst = [1, 2] the output...``).
_ASSIGNED = r"(?<![\w.])({names})\s*(?:=(?!=)|:)\s*"
_INPUT_HEAD = re.compile(r"^\s*(?:Input|Inputs|Example input)\s*:?\s*$", re.IGNORECASE)
_NAMED_VALUE = re.compile(r"^\s*[A-Za-z_]\w*\s*[:=]\s*(.+)$")


def _assignment_calls(shape: FunctionShape) -> Iterator[Call]:
    """Examples written as values of the parameters: ``For s = "ab", c = "a", the result is``,
    ``arr = [2, 1]`` (over one or more lines), or an ``Input:`` block of ``name : value`` lines
    in parameter order."""
    if not shape.parameters:
        return
    assigned = re.compile(_ASSIGNED.format(names="|".join(re.escape(p) for p in shape.parameters)))
    pending: dict[str, str] = {}
    block: list[str] | None = None
    for line in shape.docstring.splitlines():
        if _INPUT_HEAD.match(line):
            block = []
            continue
        if block is not None:
            named = _NAMED_VALUE.match(line)
            value = _literal_prefix(named.group(1)) if named else None
            if value is not None:
                block.append(value)
                if len(block) == len(shape.parameters):
                    call = _positional(shape, block)
                    if call is not None:
                        yield call
                    block, pending = None, {}
                continue
            block = None if line.strip() else block
        found = [(m.group(1), _literal_prefix(line[m.end():])) for m in assigned.finditer(line)]
        for name, value in found:
            if value is None:
                continue
            if name in pending:
                pending = {}
            pending[name] = value
            if all(p in pending for p in shape.parameters[:max(shape.required, 1)]):
                call = _positional(shape, [pending[p] for p in shape.parameters if p in pending])
                if call is not None and len(pending) == sum(1 for p in shape.parameters if p in pending):
                    yield call
                pending = {}


def _positional(shape: FunctionShape, sources: list[str]) -> Call | None:
    if not shape.required <= len(sources) <= len(shape.parameters):
        return None
    try:
        node = ast.parse(f"{shape.name}({', '.join(sources)})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return _call_of(node, "example") if isinstance(node, ast.Call) else None


def _literal_prefix(text: str) -> str | None:
    """The longest start of ``text`` that is one Python literal, cut where a top-level comma,
    space or semicolon ends it (``"abcde", c = "ae"`` gives ``"abcde"``)."""
    text = text.strip()
    cuts = [len(text)]
    for index, char, depth in outside_strings(text):
        if depth < 0:  # a bracket closing one opened before ``text``
            cuts.append(index)
            break
        if depth == 0 and char in ", ;":
            cuts.append(index)
    for cut in sorted(set(cuts), reverse=True):
        source = text[:cut].strip().rstrip(".")
        if not source or source.endswith(","):
            continue
        try:
            ast.literal_eval(source)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        return source
    return None


def _renamed_calls(shape: FunctionShape, names: set[str]) -> Iterator[Call]:
    """Calls in ``shape``'s docstring of one name that is defined nowhere, with literal arguments
    that fit its parameters: the function's examples under an older name."""
    import builtins
    import keyword

    found: dict[str, list[Call]] = {}
    for match in re.finditer(r"(?<![\w.])([A-Za-z_]\w*)\s*\(", shape.docstring):
        name = match.group(1)
        if name in names or hasattr(builtins, name) or keyword.iskeyword(name):
            continue
        end = closing(shape.docstring, match.end() - 1)
        if end is None:
            continue
        try:
            node = ast.parse(name + shape.docstring[match.end() - 1:end + 1], mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        if not isinstance(node, ast.Call) or node.keywords:
            continue
        fits = shape.required <= len(node.args) and (shape.variadic or len(node.args) <= len(shape.parameters))
        node.func = ast.Name(shape.name, ast.Load())
        call = _call_of(node, "example") if fits else None
        if call is not None and call.values is not None:
            found.setdefault(name, []).append(call)
    if found:
        yield from max(found.values(), key=len)


def _call_expressions(text: str, names: set[str]) -> Iterator[str]:
    """Every ``name(...)`` with balanced brackets in ``text`` whose name is a function here."""
    pattern = re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")\s*\(")
    for match in pattern.finditer(text):
        end = closing(text, match.end() - 1)
        if end is not None:
            yield match.group(1) + text[match.end() - 1:end + 1]


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
