"""The one language registry: names, LSP ids, extensions, grammars, keywords, comment syntax,
and the per-language facts other packages read (dataflow rules, docstrings, function nodes).

Every front end (CLI, LSP, grader, the VS Code client's generated language list) and every
metric asks this module about a language; nothing else imports a tree-sitter grammar or keeps a
table keyed by language names. Parsers are built once per process and per thread.
``python -m refscore.languages --json`` prints the registry for clients.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from .spec import LanguageSpec
from .table import LANGUAGES

__all__ = ["LANGUAGES", "CODEBLEU_PACKAGE_LANGUAGES", "LanguageSpec", "UnknownLanguageError",
           "describe", "find", "for_lsp_id", "for_path", "get", "lsp_ids", "names"]


class UnknownLanguageError(ValueError):
    """Raised when a language name, LSP id or file extension is not in the registry."""


_BY_NAME: dict[str, LanguageSpec] = {}
for _spec in LANGUAGES:
    for _key in (_spec.name, *_spec.aliases, *_spec.lsp_ids):
        _BY_NAME.setdefault(_key.lower(), _spec)
_BY_EXTENSION: dict[str, LanguageSpec] = {ext: s for s in LANGUAGES for ext in s.extensions}

#: The languages the `codebleu` package supports (the compat API accepts exactly these).
CODEBLEU_PACKAGE_LANGUAGES: tuple[str, ...] = tuple(s.name for s in LANGUAGES if s.in_codebleu_package)


def names() -> list[str]:
    """Canonical names of every registered language."""
    return [s.name for s in LANGUAGES]


def lsp_ids() -> list[str]:
    """Every LSP languageId the server scores, in registry order (the VS Code client's list)."""
    return [lsp_id for s in LANGUAGES for lsp_id in s.lsp_ids]


def find(name: str) -> LanguageSpec | None:
    """Look a language up by canonical name, alias or LSP language id; None when unknown."""
    return _BY_NAME.get(name.strip().lower())


def get(name: str) -> LanguageSpec:
    """Look a language up by canonical name, alias or LSP language id."""
    spec = _BY_NAME.get(name.strip().lower())
    if spec is None:
        raise UnknownLanguageError(
            f"unknown language {name!r}; known: {', '.join(names())}")
    return spec


def for_path(path: str | PurePath) -> LanguageSpec:
    """Look a language up by a file's extension."""
    suffix = PurePath(path).suffix.lower()
    spec = _BY_EXTENSION.get(suffix)
    if spec is None:
        raise UnknownLanguageError(
            f"cannot tell the language of {str(path)!r} from its extension {suffix or '(none)'!r}; "
            f"pass --lang (one of: {', '.join(names())})")
    return spec


def for_shebang(first_line: str) -> LanguageSpec | None:
    """The language a ``#!`` first line runs (``#!/usr/bin/env python3``, ``#!/usr/bin/node``,
    ``#!/usr/bin/env -S ruby -w``), or None when it names no interpreter of the registry."""
    if not first_line.startswith("#!"):
        return None
    words = first_line[2:].split()
    if words and PurePath(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    if not words:
        return None
    program = re.sub(r"[\d.]+$", "", PurePath(words[0]).name.lower())
    return next((s for s in LANGUAGES if program in s.interpreters), None)


def accepted_by(spec: LanguageSpec) -> list[LanguageSpec]:
    """The other languages that also read ``spec``'s files (``accepts``: C++ reads C's)."""
    return [other for other in LANGUAGES if other is not spec and spec.name in other.accepts]


def reading_language(spec: LanguageSpec, texts: list[bytes]) -> LanguageSpec:
    """``spec``, or a language that also reads its files (``accepts``: C++ for C's ``.c`` and
    ``.h``, TSX for TypeScript) when ``spec``'s grammar finds an error in one of ``texts`` and
    only that language's grammar parses them all."""
    if not any(spec.parse(t).root_node.has_error for t in texts):
        return spec
    for other in accepted_by(spec):
        if not any(other.parse(t).root_node.has_error for t in texts):
            return other
    return spec


def for_lsp_id(language_id: str) -> LanguageSpec | None:
    """Look a language up by LSP languageId; None when unknown."""
    return _BY_NAME.get(language_id.lower())


def describe() -> list[dict[str, Any]]:
    """The registry as plain data for clients: name, LSP ids, extensions, aliases, comment syntax."""
    return [{"name": s.name, "lsp_ids": list(s.lsp_ids), "extensions": list(s.extensions),
             "aliases": list(s.aliases), "line_comments": list(s.line_comments),
             "block_comments": [list(pair) for pair in s.block_comments]} for s in LANGUAGES]
