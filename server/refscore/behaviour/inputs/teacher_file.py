"""A per-problem inputs file, as a teacher writes it: one call per line (``add(1, 2)``; ``#``
starts a comment), or a JSON list of calls; in program mode, standard inputs separated by lines
of ``---`` (or a JSON list of strings)."""

from __future__ import annotations

import ast
import json

from ..calls import Call
from .python_examples import _call_of


class InputsFileError(ValueError):
    """An inputs file that cannot be read as calls (the message names the line)."""


def read_calls(text: str, functions: set[str] | None = None) -> list[Call]:
    """The calls of an inputs file (Python syntax); ``functions``: the reference's, to check names."""
    items = _json_list(text)
    lines = items if items is not None else [line for line in text.splitlines()]
    calls = []
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            node = ast.parse(line, mode="eval").body
        except SyntaxError as error:
            raise InputsFileError(f"inputs line {number}: not a call ({error.msg})") from None
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise InputsFileError(f"inputs line {number}: not a call of a function by name: {line[:60]}")
        if functions is not None and node.func.id not in functions:
            raise InputsFileError(f"inputs line {number}: the reference has no function {node.func.id}")
        parts = [ast.unparse(a) for a in node.args] + [f"{k.arg}={ast.unparse(k.value)}" for k in node.keywords]
        literal = _call_of(node, "file")
        calls.append(Call(node.func.id, ", ".join(parts), "file", literal.values if literal else None))
    return calls


def read_stdins(text: str) -> list[str]:
    """The standard inputs of a program-mode inputs file."""
    items = _json_list(text)
    if items is not None:
        return [str(item) for item in items]
    blocks, current = [], []
    for line in text.splitlines(keepends=True):
        if line.strip() == "---":
            blocks.append("".join(current))
            current = []
        else:
            current.append(line)
    blocks.append("".join(current))
    return [b for b in blocks if b.strip()] or [""]


def _json_list(text: str) -> list | None:
    stripped = text.strip()
    if not stripped.startswith("["):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, list) else None
