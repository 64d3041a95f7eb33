"""Checking command arguments: a wrong argument is an InvalidParams error with one clear message
(never a Python traceback in the reply)."""

from __future__ import annotations

import re
from typing import Any, Sequence

from pygls.exceptions import JsonRpcInvalidParams

_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")


def invalid(command: str, usage: str, problem: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(f"{command} takes {usage}: {problem}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def document_uri(command: str, usage: str, args: Sequence[Any]) -> str:
    """The first argument, which must be a document URI such as ``file:///home/me/a.py``."""
    if not args:
        raise invalid(command, usage, "no arguments given")
    uri = args[0]
    if not isinstance(uri, str) or not _URI.fullmatch(uri):
        raise invalid(command, usage, f"the first argument must be a document URI like file:///path/a.py, "
                                      f"not {_shown(uri)}")
    return uri


def reference_paths(command: str, usage: str, args: Sequence[Any]) -> list[str] | None:
    """The second argument: a path or URI, a list of them, or null/empty (back to discovery)."""
    if len(args) > 2:
        raise invalid(command, usage, f"{len(args)} arguments given, at most 2 expected")
    target = args[1] if len(args) > 1 else None
    if target is None or target == "" or target == []:
        return None
    names = [target] if isinstance(target, str) else target
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise invalid(command, usage, f"the second argument must be a path, a list of paths or null, "
                                      f"not {_shown(target)}")
    if any("\0" in n for n in names):  # no file name holds a NUL: a bad argument, not an internal error
        raise invalid(command, usage, "a path holds a NUL character")
    return names
