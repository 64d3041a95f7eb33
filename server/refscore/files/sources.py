"""Reading source files for scoring: one clear error per bad input, never a traceback."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from .. import languages
from ..analysis.text import InputError, MAX_INPUT_BYTES, decode_source
from ..errors import InputFileError, LanguageError
from ..safe_read import read_capped


def read_source(path: str | Path) -> str:
    """Read a UTF-8 source file; raise InputFileError saying what is wrong with it (missing,
    not a regular file, over the size limit, binary, not UTF-8). Reads through ``safe_read``:
    never blocks on a FIFO, never reads past the limit."""
    path = Path(path)
    data = read_capped(path, MAX_INPUT_BYTES)
    try:
        return decode_source(data, name=str(path))
    except InputError as error:
        raise InputFileError(str(error)) from None


#: The candidate path that means standard input (``refscore score REF -``).
STDIN = "-"


def read_stdin_source(stream: BinaryIO | None = None) -> str:
    """The candidate piped on standard input, by the same rules as a file (UTF-8, not binary,
    at most ``MAX_INPUT_BYTES``: never more than that is read)."""
    stream = stream if stream is not None else sys.stdin.buffer
    data = stream.read(MAX_INPUT_BYTES + 1)
    try:
        return decode_source(data, name="standard input")
    except InputError as error:
        raise InputFileError(str(error)) from None


def empty_reference(name: str | Path, text: str) -> str | None:
    """The one line that says a reference holds nothing to compare with (None when it does)."""
    return None if text.strip() else f"the reference {name} is empty: there is nothing to compare with"


#: The most of each file read to tell a language from one that also reads its files.
_PEEK_BYTES = 1 << 20


def _head(path: str | Path, limit: int = _PEEK_BYTES) -> bytes | None:
    """The first ``limit`` bytes of a regular file; None for standard input, a stream (never
    read twice) or a file that cannot be read (its reader says what is wrong with it)."""
    if str(path) == STDIN:
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            return handle.read(limit)
    except (OSError, ValueError):
        return None


def _from_shebang(path: str | Path) -> languages.LanguageSpec | None:
    """The language of an extensionless regular file's ``#!`` line."""
    head = None if Path(path).suffix else _head(path, 256)
    return languages.for_shebang(head.decode("utf-8", "replace").splitlines()[0].strip()) if head else None


def _peek(paths: tuple[str | Path, ...]) -> list[bytes] | None:
    """The head of every file, or None when one of them cannot be peeked at."""
    heads = [_head(path) for path in paths]
    return None if any(h is None for h in heads) else heads  # type: ignore[return-value]


def resolve_language(explicit: str | None, *paths: str | Path) -> languages.LanguageSpec:
    """The language named by --lang, else the one the file extensions agree on (a file with no
    extension: the interpreter its ``#!`` line names; files that only a language which also reads
    their extension parses, such as C++ in ``.h`` headers: that language)."""
    try:
        if explicit:
            return languages.get(explicit)
        specs = []
        for path in paths:
            try:
                specs.append(languages.for_path(path))
            except languages.UnknownLanguageError:
                spec = _from_shebang(path)
                if spec is not None:
                    specs.append(spec)
        if not specs:
            files = [path for path in paths if str(path) != STDIN]
            if not files:
                raise languages.UnknownLanguageError(
                    f"standard input has no file name to tell its language by; pass --lang "
                    f"(one of: {', '.join(languages.names())})")
            return languages.for_path(files[-1])  # raises the helpful message
        if len(specs) > 1 and specs[0].takes(specs[-1].name) and not specs[-1].takes(specs[0].name):
            return specs[0]  # a C candidate (.c, .h) of a C++ reference is read as C++
        texts = _peek(paths) if languages.accepted_by(specs[-1]) else None
        # the candidate's extension wins, unless only a language that also reads such files
        # parses them (C++ in .h headers)
        return languages.reading_language(specs[-1], texts) if texts else specs[-1]
    except languages.UnknownLanguageError as error:
        raise LanguageError(str(error)) from None
