"""A type for each unannotated parameter, guessed from how the function uses it (``p.split()``:
a string; ``for v in p`` with ``v > 0``: a list of numbers; ``range(p)``: an int) and, failing
that, from its name (``nums``, ``text``, ``n``). What a teacher's reference without examples or
hints gets, so behaviour still has inputs; a wrong guess costs nothing: the reference fails on it
and the input is dropped."""

from __future__ import annotations

import ast
import re
from typing import Iterable

_STR_METHODS = {"split", "lower", "upper", "strip", "lstrip", "rstrip", "replace", "startswith", "endswith",
                "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "join", "find", "title",
                "capitalize", "swapcase", "encode", "zfill", "splitlines", "casefold"}
_LIST_METHODS = {"append", "sort", "pop", "extend", "insert", "remove", "reverse", "index"}
_DICT_METHODS = {"items", "keys", "values", "get", "setdefault"}
_NAME_HINTS = (
    (re.compile(r"^(nums|numbers|arr|array|values|xs|lst|list\d*|ints|scores|data|seq|items|elements|l|a|b)$"),
     "list[int]"),
    (re.compile(r"^(words|names|strings|lines|tokens|strs)$"), "list[str]"),
    (re.compile(r"^(s|text|string|word|sentence|line|name|str\d*|txt|st|msg|message|char|c|ch)$"), "str"),
    (re.compile(r"^(n|k|i|j|m|num|number|count|x|y|z|limit|size|idx|index|target|value|val|start|end|low|high|"
                r"lo|hi|base|exp|year|age|total|amount|width|height|times)$"), "int"),
    (re.compile(r"^(d|dict|mapping|counts|table|freq|dic)$"), "dict[str, int]"),
    (re.compile(r"^(matrix|grid|board|rows)$"), "list[list[int]]"),
    (re.compile(r"^(flag|is_\w+|enabled)$"), "bool"),
)


def guessed_annotation(function: ast.FunctionDef, parameter: str) -> ast.expr | None:
    """A type hint for ``parameter`` of ``function`` from its use, else its name (None: no idea)."""
    text = _from_use(function, parameter) or _from_name(parameter)
    return None if text is None else ast.parse(text, mode="eval").body


def _from_name(parameter: str) -> str | None:
    for pattern, hint in _NAME_HINTS:
        if pattern.match(parameter.lower()):
            return hint
    return None


def _from_use(function: ast.FunctionDef, parameter: str) -> str | None:
    votes: dict[str, int] = {}
    loop_vars: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.For) and _is(node.iter, parameter) and isinstance(node.target, ast.Name):
            loop_vars.add(node.target.id)
            votes["iter"] = votes.get("iter", 0) + 1
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and _is(node.value, parameter):
            if node.attr in _STR_METHODS:
                _vote(votes, "str")
            elif node.attr in _LIST_METHODS:
                _vote(votes, "list")
            elif node.attr in _DICT_METHODS:
                _vote(votes, "dict")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "range" and any(_is(a, parameter) for a in node.args):
                _vote(votes, "int", 2)
            if node.func.id in ("sorted", "sum", "max", "min", "set", "enumerate", "reversed") and \
                    any(_is(a, parameter) for a in node.args):
                _vote(votes, "list")
        elif isinstance(node, (ast.BinOp, ast.AugAssign)):
            sides = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.target, node.value)
            if any(_is(s, parameter) for s in sides) and any(_number(s) for s in sides):
                _vote(votes, "int")
        elif isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            if any(_is(p, parameter) for p in parts) and any(_number(p) for p in parts):
                _vote(votes, "int")
        elif isinstance(node, ast.Subscript) and _is(node.value, parameter):
            _vote(votes, "seq")
    if not votes:
        return None
    element = _element_type(function, loop_vars)
    best = max(("str", "list", "dict", "int"), key=lambda k: votes.get(k, 0))
    if votes.get(best, 0) == 0:
        return f"list[{element}]" if (votes.get("iter") or votes.get("seq")) and element else None
    if best == "list" or (best != "str" and votes.get("iter")):
        return f"list[{element or 'int'}]"
    return {"str": "str", "dict": "dict[str, int]", "int": "int"}[best]


def _element_type(function: ast.FunctionDef, names: Iterable[str]) -> str | None:
    names = set(names)
    if not names:
        return None
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names \
                and node.attr in _STR_METHODS:
            return "str"
        if isinstance(node, (ast.Compare, ast.BinOp)):
            parts = [node.left, *node.comparators] if isinstance(node, ast.Compare) else [node.left, node.right]
            if any(isinstance(p, ast.Name) and p.id in names for p in parts) and any(_number(p) for p in parts):
                return "int"
    return "int"


def _vote(votes: dict[str, int], kind: str, weight: int = 1) -> None:
    votes[kind] = votes.get(kind, 0) + weight


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
