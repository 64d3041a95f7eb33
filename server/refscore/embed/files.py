"""Reading and writing the files CodeBERTScore settings may name: IDF tables and baselines.

Kept apart from ``refscore.metrics`` so the metric modules stay pure (no I/O).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Sequence

from ..metrics.codebertscore import IdfTable
from ..safe_read import read_capped

MAX_SETTINGS_FILE_BYTES = 64 * 1024 * 1024  # an IDF table or baseline CSV is a few MB at most


def load_idf(path: str | Path) -> IdfTable:
    """Read an IDF JSON file: ``{"default": w, "num_docs": n, "idf": {"<token id>": w, ...}}``
    (a bare ``{"<token id>": w}`` object also works, default 0). Anything else is a ValueError
    that names the file and says what is wrong (weights must be finite numbers; a table with no
    token weights, such as ``{}``, is refused: it weighs every token by the default, so every
    CodeBERTScore came out 0)."""
    data = read_capped(path, MAX_SETTINGS_FILE_BYTES)
    try:
        data = json.loads(data.decode("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("idf", {}), dict):
            raise ValueError("expected a JSON object of token id -> weight")
        if "idf" in data:
            table = IdfTable.from_mapping(data["idf"], float(data.get("default", 0.0)))
            table.num_docs = int(data.get("num_docs", 0))
        else:
            table = IdfTable.from_mapping(data, 0.0)
    except (ValueError, TypeError) as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ValueError(f"{path}: not an IDF file ({error}); expected {{\"<token id>\": weight, ...}} or "
                         "{\"idf\": {...}, \"default\": weight}") from None
    if not all(math.isfinite(w) for w in (table.default, *table.weights.values())):
        raise ValueError(f"{path}: not an IDF file (a weight is not a finite number)")
    if not table.weights:
        raise ValueError(f"{path}: not an IDF file (the table is empty: no token weights)")
    return table


def save_idf(table: IdfTable, path: str | Path) -> None:
    """Write the JSON form ``load_idf`` reads."""
    payload = {"default": table.default, "num_docs": table.num_docs,
               "idf": {str(k): v for k, v in sorted(table.weights.items())}}
    Path(path).write_text(json.dumps(payload), encoding="utf-8")


def load_baseline(path: str | Path, layer: int) -> tuple[float, float, float, float]:
    """Baselines (P, R, F1, F3) from a code-bert-score style CSV: a header line, then one row per
    layer (row ``layer`` counted from 0 after the header, as the package reads it), first column
    the layer, then P, R, F (and F3; a file without F3 uses the F baseline for it)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    body = [r for r in rows[1:] if r]
    if not 0 <= layer < len(body):
        raise ValueError(f"{path}: no baseline row for layer {layer} ({len(body)} rows)")
    values = [float(v) for v in body[layer][1:]]
    if len(values) == 3:
        values.append(values[2])
    if len(values) != 4:
        raise ValueError(f"{path}: expected P, R, F[, F3] columns, got {len(values)}")
    return values[0], values[1], values[2], values[3]


def write_baseline(path: str | Path, rows: Sequence[Sequence[float]]) -> None:
    """Write baselines, one (P, R, F1, F3) row per layer 0..n-1, in the format ``load_baseline``
    reads."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["LAYER", "P", "R", "F", "F3"])
        for layer, row in enumerate(rows):
            writer.writerow([layer, *(f"{v:.10f}" for v in row)])
