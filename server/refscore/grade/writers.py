"""CSV and JSON reports (the HTML report lives in ``html_report``)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from ..safe_write import current_umask, replace_file  # noqa: F401 - current_umask: this module's API
from .rows import COLUMNS, summary
from .targets import STDOUT, is_stream

#: First characters that make a spreadsheet cell a formula (or hide one behind a control).
FORMULA_STARTS = frozenset("=+-@\t\r\n")


def atomic_write(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically through ``safe_write`` (a crash leaves the old file).
    Standard output (``-``) and other streams (``/dev/stdout``, a pipe) are written straight to;
    a link to a file is written through (``targets``)."""
    if is_stream(path):
        write_stream(path, text)
        return
    replace_file(path, text, through_link=True)


def write_stream(path: str | Path, text: str) -> None:
    """Write ``text`` to standard output (``-``) or to an existing stream such as ``/dev/stdout``."""
    if str(path) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def neutralise(text: str) -> str:
    """A CSV cell that a spreadsheet would read as a formula (it starts with ``=``, ``+``,
    ``-``, ``@``, a tab or a line break) gets a leading ``'``, as OWASP recommends against CSV
    injection; the JSON report keeps the exact text."""
    return "'" + text if text[:1] in FORMULA_STARTS else text


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list):
        return neutralise("; ".join(str(v) for v in value))
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, str):
        return neutralise(value)
    return value


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    """One header line, then one line per submission (lists joined with ``; ``)."""
    import io

    buffer = io.StringIO()
    # CRLF rows (RFC 4180): the writer then also quotes a cell holding a lone CR, which "\n" rows leave bare
    writer = csv.DictWriter(buffer, fieldnames=list(COLUMNS), lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(row.get(k)) for k in COLUMNS})
    return buffer.getvalue()


def json_text(rows: Sequence[dict[str, Any]], settings: dict[str, Any]) -> str:
    """``{"settings", "summary", "submissions": [row, ...]}``, pretty-printed."""
    payload = {"settings": settings, "summary": summary(rows), "submissions": list(rows)}
    return json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False, default=str) + "\n"


def write_csv(path: str | Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write the CSV report."""
    atomic_write(path, csv_text(rows))


def write_json(path: str | Path, rows: Sequence[dict[str, Any]], settings: dict[str, Any]) -> None:
    """Write the JSON report."""
    atomic_write(path, json_text(rows, settings))
