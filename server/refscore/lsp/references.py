"""Finding a candidate's reference solution(s).

First match wins: an explicit choice made with the ``refscore.setReference`` command (the user
asked for it), then a pragma in the candidate's first lines, then the ``refscore.references``
setting (glob -> path template), then the conventions (``NAME.ref.EXT`` beside the file, or the
same relative path under ``reference/`` or ``solutions/`` in a workspace folder).

Pragma (inside the language's comment syntax, within the first ``scoring.pragma.PRAGMA_LINES`` lines)::

    # refscore: reference=../solutions/fizzbuzz.py
    # refscore: context=Print the numbers 1..100, Fizz for multiples of 3
    // refscore: reference=a.java, b.java        (several references, comma-separated)

Templates in settings may use ``${stem}`` (file name without extension), ``${name}``,
``${ext}`` (with the dot), ``${dir}`` (the candidate's folder), ``${relativeDir}`` (its folder
relative to the workspace folder) and ``${workspaceFolder}``; relative results are taken
from the workspace folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..languages import LanguageSpec
from ..safe_read import user_path
from ..scoring.pragma import read_pragma

CONVENTION_FOLDERS = ("reference", "solutions")


@dataclass(frozen=True)
class ReferenceChoice:
    """Where a candidate's references are, how they were found, and any pragma context."""

    paths: tuple[Path, ...]
    source: str  # "command", "pragma", "settings" or "convention"
    context: str | None = None


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """A glob over ``/``-separated paths: ``**`` spans folders, ``*`` and ``?`` stay inside one."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "{" and "}" in pattern[i:]:
            close = pattern.index("}", i)
            out.append("(?:" + "|".join(re.escape(p) for p in pattern[i + 1:close].split(",")) + ")")
            i = close + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _expand(template: str, candidate: Path, folder: Path | None) -> Path:
    root = folder or candidate.parent
    try:
        relative_dir = candidate.parent.relative_to(root).as_posix()
    except ValueError:
        relative_dir = ""
    values = {"stem": candidate.stem, "name": candidate.name, "ext": candidate.suffix,
              "dir": str(candidate.parent), "relativeDir": relative_dir or ".", "workspaceFolder": str(root)}
    expanded = re.sub(r"\$\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)
    path = user_path(expanded)
    return path if path.is_absolute() else root / path


def from_settings(mapping: Mapping[str, Any], candidate: Path, folder: Path | None) -> tuple[Path, ...]:
    """References named by the first glob in ``mapping`` that matches the candidate."""
    root = folder or candidate.parent
    try:
        relative = candidate.relative_to(root).as_posix()
    except ValueError:
        relative = candidate.name
    for pattern, target in mapping.items():
        if not glob_to_regex(str(pattern)).match(relative) and not glob_to_regex(str(pattern)).match(candidate.as_posix()):
            continue
        targets = [target] if isinstance(target, str) else [t for t in target or [] if isinstance(t, str)]
        return tuple(_expand(t, candidate, folder) for t in targets)
    return ()


def from_conventions(candidate: Path, folder: Path | None) -> tuple[Path, ...]:
    """``NAME.ref.EXT`` beside the file, else the same relative path under reference/ or solutions/."""
    if candidate.stem.endswith(".ref"):
        return ()
    beside = candidate.with_name(f"{candidate.stem}.ref{candidate.suffix}")
    if beside.is_file():
        return (beside,)
    if folder is None:
        return ()
    try:
        relative = candidate.relative_to(folder)
    except ValueError:
        return ()
    if relative.parts and relative.parts[0] in CONVENTION_FOLDERS:
        return ()  # a reference is not a candidate of itself
    for name in CONVENTION_FOLDERS:
        path = folder / name / relative
        if path.is_file():
            return (path,)
    return ()


def find_references(candidate: Path, text: str, spec: LanguageSpec | None, folder: Path | None,
                    mapping: Mapping[str, Any], explicit: Sequence[Path] | None = None,
                    on_disk: bool = True) -> ReferenceChoice | None:
    """The candidate's references, or None when it has none (then it gets no diagnostics).
    An unsaved (``untitled:``) document (``on_disk`` False) uses only the command and the pragma."""
    pragma = read_pragma(text, spec)
    if explicit:
        return ReferenceChoice(tuple(explicit), "command", pragma.context)
    if pragma.references:
        paths = tuple(_resolve(p, candidate, folder) for p in pragma.references)
        return ReferenceChoice(paths, "pragma", pragma.context)
    if pragma.names_nothing:  # no paths: ``snapshot.prepare`` says the pragma names no file
        return ReferenceChoice((), "pragma", pragma.context)
    if not on_disk:
        return None
    found = from_settings(mapping, candidate, folder)
    if found:
        return ReferenceChoice(found, "settings", pragma.context)
    found = from_conventions(candidate, folder)
    if found:
        return ReferenceChoice(found, "convention", pragma.context)
    return None


def _resolve(path: str, candidate: Path, folder: Path | None) -> Path:
    """A pragma path: ``${...}`` templates expanded, relative to the candidate's folder."""
    if "${" in path:
        return _expand(path, candidate, folder)
    resolved = user_path(path)
    return resolved if resolved.is_absolute() else (candidate.parent / resolved)

