"""Reading source files for scoring: one clear error per bad input, never a traceback."""

from __future__ import annotations

from pathlib import Path

from .. import languages
from ..analysis.text import InputError, MAX_INPUT_BYTES, decode_source
from ..errors import InputFileError, LanguageError


def read_source(path: str | Path) -> str:
    """Read a UTF-8 source file; raise InputFileError saying what is wrong with it."""
    path = Path(path)
    try:
        if path.is_dir():
            raise InputFileError(f"{path}: is a directory, not a source file")
        size = path.stat().st_size
        if size > MAX_INPUT_BYTES:
            raise InputFileError(f"{path}: {size} bytes is over the {MAX_INPUT_BYTES // (1024 * 1024)} MiB limit")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except PermissionError:
        raise InputFileError(f"{path}: permission denied") from None
    except OSError as error:
        raise InputFileError(f"{path}: cannot read ({error.strerror or error})") from None
    try:
        return decode_source(data, name=str(path))
    except InputError as error:
        raise InputFileError(str(error)) from None


def resolve_language(explicit: str | None, *paths: str | Path) -> languages.LanguageSpec:
    """The language named by --lang, else the one the file extensions agree on."""
    try:
        if explicit:
            return languages.get(explicit)
        specs = []
        for path in paths:
            try:
                specs.append(languages.for_path(path))
            except languages.UnknownLanguageError:
                continue
        if not specs:
            return languages.for_path(paths[-1])  # raises the helpful message
        return specs[-1]  # the candidate's extension wins
    except languages.UnknownLanguageError as error:
        raise LanguageError(str(error)) from None
