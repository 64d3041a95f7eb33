"""CodeBERTScore options shared by ``score`` and ``grade``, turned into what requests carry."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputFileError


def idf_setting(idf: str | None) -> str | None:
    """``--idf`` as requests carry it: ``references`` or an absolute path (the daemon has its own
    working folder). A missing file is an input error (exit 3)."""
    if idf is None or idf == "references":
        return idf
    path = Path(idf).expanduser()
    if not path.is_file():
        raise InputFileError(f"{idf}: no such IDF file")
    return str(path.resolve())
