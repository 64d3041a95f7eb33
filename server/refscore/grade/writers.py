"""Report files: each written to a temporary name and renamed when complete (a stream, such as
standard output or a pipe, is written in place), and the CSV's cells. Files go through
``refscore.safe_write``: the temporary file is created new (never through a link planted under
its name) and renamed over a missing or regular file only (never through a link)."""

from __future__ import annotations

import csv
import json
import os
import sys
from pathlib import Path
from typing import IO, Any, BinaryIO, Callable, Sequence

from ..safe_write import commit, new_temporary
from .rows import COLUMNS
from .targets import STDOUT, is_stream

#: First characters that make a spreadsheet cell a formula (or hide one behind a control).
FORMULA_STARTS = frozenset("=+-@\t\r\n")


def neutralise(text: str) -> str:
    """A CSV cell that a spreadsheet would read as a formula (it starts with ``=``, ``+``,
    ``-``, ``@``, a tab or a line break) gets a leading ``'``, as OWASP recommends against CSV
    injection; the JSON report keeps the exact text."""
    return "'" + text if text[:1] in FORMULA_STARTS else text


def _cell(value: Any) -> Any:
    """A CSV cell: numbers unrounded (``repr``: the shortest text that reads back as the same
    float), lists of text joined with ``; ``, objects and other lists as JSON."""
    if value is None:
        return ""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return neutralise("; ".join(value))
    if isinstance(value, (list, dict)):
        return neutralise(json.dumps(value, ensure_ascii=False))
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return neutralise(value)
    return value


def csv_text(rows: Sequence[dict[str, Any]], columns: Sequence[str] = COLUMNS, header: bool = True) -> str:
    """One header line (a passed-through field's name is a cell too: neutralised; left out with
    ``header=False``, for the blocks after the first), then one line per submission (lists
    joined with ``; ``)."""
    import io

    buffer = io.StringIO()
    # CRLF rows (RFC 4180): the writer then also quotes a cell holding a lone CR, which "\n" rows leave bare
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\r\n")
    if header:
        writer.writerow({c: neutralise(c) for c in columns})
    for row in rows:
        writer.writerow({k: _cell(row.get(k)) for k in columns})
    return buffer.getvalue()


def temporary_name(path: Path) -> Path:
    """Where ``path`` is written before the rename (a stream is written in place)."""
    if is_stream(path):
        return path
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def open_binary_report(path: Path) -> BinaryIO:
    """A binary handle on ``path``'s new temporary file (a stream: opened in place)."""
    if is_stream(path):
        return open(path, "wb")
    handle, _ = new_temporary(path, temporary_name(path).name)
    return handle


def open_report(path: Path) -> IO[str]:
    """A text handle writing ``path``'s temporary file (standard output: the process's own)."""
    if str(path) == STDOUT:
        sys.stdout.flush()
        return open(sys.stdout.fileno(), "w", encoding="utf-8", newline="", closefd=False)
    if is_stream(path):
        return open(path, "w", encoding="utf-8", newline="")
    import io

    return io.TextIOWrapper(open_binary_report(path), encoding="utf-8", newline="")


def finish_report(path: Path) -> None:
    """Rename the finished temporary file over ``path`` (nothing to do for a stream)."""
    if not is_stream(path):
        commit(temporary_name(path), path)


def replace_report(path: Path, write: Callable[[IO[str]], Any]) -> None:
    """Write a whole report with ``write(handle)``, then put it in place."""
    with open_report(path) as fh:
        write(fh)
    finish_report(path)
