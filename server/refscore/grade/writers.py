"""CSV and JSON reports (the HTML report lives in ``html_report``)."""

from __future__ import annotations

import csv
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from .rows import COLUMNS, summary
from .targets import STDOUT, is_stream, write_target

#: First characters that make a spreadsheet cell a formula (or hide one behind a control).
FORMULA_STARTS = frozenset("=+-@\t\r\n")


def atomic_write(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so a crash leaves the old file. The
    report gets the permissions any new file gets (0666 less the umask), not the temporary
    file's 0600. Standard output (``-``) and other streams (``/dev/stdout``, a pipe) are written
    straight to; a link to a file is written through (``targets``)."""
    if is_stream(path):
        write_stream(path, text)
        return
    path = write_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~current_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def current_umask() -> int:
    """The process umask (read from /proc where it can be, so it is never changed, even briefly)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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
