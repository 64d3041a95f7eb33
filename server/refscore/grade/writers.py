"""CSV and JSON reports (the HTML report lives in ``html_report``)."""

from __future__ import annotations

import csv
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

from .rows import COLUMNS, summary


def atomic_write(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so a crash leaves the old file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.6f}"
    return value


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    """One header line, then one line per submission (lists joined with ``; ``)."""
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(COLUMNS), lineterminator="\n")
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
