"""Glob expansion for submissions that never follows a directory link while recursing.

Python's ``glob.glob(..., recursive=True)`` descends into symbolic links to folders for ``**``,
so a link to ``.`` or to a parent loops (up to the kernel's link limit, or forever with two
such links). Here ``**`` walks real folders only; ``*``, ``?`` and ``[...]`` match one path part
as ``glob`` does (a link named by such a part is followed once: that is finite). Names starting
with ``.`` match only a pattern part that starts with ``.``, as in ``glob``. Matches are unique
by real path, in sorted order.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Iterator

MAGIC = frozenset("*?[")


def has_magic(text: str) -> bool:
    """True when ``text`` holds a glob wildcard."""
    return any(ch in MAGIC for ch in text)


def glob_paths(pattern: str) -> list[str]:
    """The paths ``pattern`` matches (``**`` spans folders), each real path once, sorted."""
    parts = pattern.replace(os.sep, "/").split("/")
    fixed: list[str] = []
    while parts and not has_magic(parts[0]):
        fixed.append(parts.pop(0))
    start = ("/".join(fixed) or "/") if fixed else ""
    found: dict[str, str] = {}
    for match in _match(start, [p for p in parts if p]):
        found.setdefault(os.path.realpath(match or "."), match)
    return sorted(found.values())


def _match(base: str, parts: list[str]) -> Iterator[str]:
    """Paths under ``base`` ("" = the current folder, left out of the results) matching ``parts``."""
    if not parts:
        if base and os.path.lexists(base):
            yield base
        return
    head, rest = parts[0], parts[1:]
    if head == "**":
        if rest:
            yield from _match(base, rest)  # zero folders
        else:  # a final ``**`` matches everything below, files too
            if base:
                yield base
            for name in _names(base, hidden=False):
                if not os.path.isdir(_join(base, name)) or os.path.islink(_join(base, name)):
                    yield _join(base, name)
        for folder in _real_folders(base):
            yield from _match(_join(base, folder), parts)
        return
    if not has_magic(head):
        target = _join(base, head)
        if not rest or os.path.isdir(target):
            yield from _match(target, rest)
        return
    for name in _names(base, hidden=head.startswith(".")):
        if fnmatch.fnmatch(name, head):
            target = _join(base, name)
            if not rest or os.path.isdir(target):
                yield from _match(target, rest)


def _join(base: str, name: str) -> str:
    return os.path.join(base, name) if base else name


def _names(folder: str, hidden: bool) -> list[str]:
    try:
        names = sorted(os.listdir(folder or "."))
    except OSError:
        return []
    return names if hidden else [n for n in names if not n.startswith(".")]


def _real_folders(folder: str) -> list[str]:
    """Sub-folders that are not links (hidden ones skipped, as ``**`` does in ``glob``)."""
    try:
        with os.scandir(folder or ".") as entries:
            return sorted(e.name for e in entries
                          if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
    except OSError:
        return []
