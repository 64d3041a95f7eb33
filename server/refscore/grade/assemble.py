"""The reports of a block-wise run, written from its parts in input order, one block at a time.

Pass one reads every part for the ids (``ids.IdNamer``: repeated ids get ``#2``... as in the
in-memory grader) and the summary; pass two writes the CSV, JSON, JSONL and Parquet files (each
to a temporary name, renamed when complete) and the summary HTML. Memory stays bounded: one block
of rows, the summary, the lowest and highest rows, and 8 bytes per id.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Sequence

from .ids import IdNamer
from .parts import PartStore
from .rows import COLUMNS, SCORE_COLUMNS, threshold_failures
from .stream_stats import RowStats
from .summary_html import build_summary_html
from .targets import STDOUT, is_stream, write_target
from .writers import csv_text

PARQUET_ROW_GROUP = 65_536


class IncompleteRun(RuntimeError):
    """A block has fewer scored items than it holds (the run did not finish)."""


@dataclass(frozen=True)
class BlockRef:
    """A block of the run: which parts to read and what was scored before this run started."""

    index: int
    key: str
    items: int
    before: frozenset[int] | None = frozenset()  # offsets scored by an earlier run; None: all of them


@dataclass
class Assembled:
    """What the reports say, for the command's summary lines and exit code."""

    stats: RowStats
    failures: int = 0
    first_failures: list[dict[str, Any]] = field(default_factory=list)
    from_cache: int = 0


def block_rows(store: PartStore, block: BlockRef) -> list[tuple[int, dict[str, Any]]]:
    """(offset, row) of the block in input order; IncompleteRun when some are missing."""
    rows = store.rows(block.index, block.key)
    if len(rows) < block.items:
        raise IncompleteRun(f"block {block.index}: {len(rows)} of {block.items} items scored")
    return sorted(rows.items())


def assemble(blocks: Sequence[BlockRef], store: PartStore, outputs: dict[str, Path], info: dict[str, Any],
             title: str, rank_by: str | None, fail: tuple[str, float] | None = None,
             echo: Callable[[dict[str, Any]], None] | None = None) -> Assembled:
    """Write every requested output (kinds: csv, json, jsonl, parquet, html) from the parts."""
    namer, totals = IdNamer(), RowStats(keep=0)
    for block in blocks:
        for _, row in block_rows(store, block):
            namer.add(str(row["id"]))
            totals.add(row)
    namer.freeze()
    result = Assembled(RowStats(rank_by))
    writers = _Writers(outputs, info, totals.summary())
    try:
        for block in blocks:
            pairs = block_rows(store, block)
            rows = [row for _, row in pairs]
            for offset, row in pairs:
                row["id"] = namer.name(str(row["id"]))
                earlier = block.before is None or offset in block.before
                row["cached"] = bool(earlier and not row["errors"])
                result.from_cache += row["cached"]
                result.stats.add(row)
                if echo is not None:
                    echo(row)
            if fail is not None:
                failed = threshold_failures(rows, *fail)
                result.failures += len(failed)
                result.first_failures.extend(failed[:max(0, 20 - len(result.first_failures))])
            writers.write(rows)
        writers.close()
    except BaseException:
        writers.abandon()
        raise
    if "html" in outputs:
        files = [outputs[k].name for k in ("csv", "json", "jsonl", "parquet") if k in outputs]
        html = build_summary_html(result.stats, info, title, files)
        _replace_with(outputs["html"], lambda fh: fh.write(html))
    return result


def _tmp(path: Path) -> Path:
    """Where ``path`` is written before the rename (a stream is written in place)."""
    if is_stream(path):
        return path
    path = write_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _open(path: Path) -> IO[str]:
    if str(path) == STDOUT:
        sys.stdout.flush()
        return open(sys.stdout.fileno(), "w", encoding="utf-8", newline="", closefd=False)
    return open(_tmp(path), "w", encoding="utf-8", newline="")


def _finish(path: Path) -> None:
    """Rename the finished temporary file over ``path`` (nothing to do for a stream)."""
    if not is_stream(path):
        os.replace(_tmp(path), write_target(path))


def _replace_with(path: Path, write: Callable[[IO[str]], Any]) -> None:
    with _open(path) as fh:
        write(fh)
    _finish(path)


class _Writers:
    """The streamed output files of one assembly."""

    def __init__(self, outputs: dict[str, Path], info: dict[str, Any], summary: dict[str, Any]) -> None:
        self.targets = {k: outputs[k] for k in ("csv", "json", "jsonl") if k in outputs}
        self.handles = {k: _open(p) for k, p in self.targets.items()}
        self.first = True
        self.parquet = _ParquetOut(outputs["parquet"]) if "parquet" in outputs else None
        if "json" in self.handles:
            head = json.dumps({"settings": info, "summary": summary}, ensure_ascii=False, allow_nan=False,
                              default=str)
            self.handles["json"].write(head[:-1] + ', "submissions": [\n')

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        if not rows:
            return
        lines = [json.dumps(row, ensure_ascii=False, allow_nan=False, default=str) for row in rows]
        if "csv" in self.handles:
            text = csv_text(rows)
            self.handles["csv"].write(text if self.first else text.split("\r\n", 1)[1])
        if "json" in self.handles:
            self.handles["json"].write(("" if self.first else ",\n") + ",\n".join(lines))
        if "jsonl" in self.handles:
            self.handles["jsonl"].write("\n".join(lines) + "\n")
        if self.parquet is not None:
            self.parquet.add(rows)
        self.first = False

    def close(self) -> None:
        if "csv" in self.handles and self.first:
            self.handles["csv"].write(csv_text([]))
        if "json" in self.handles:
            self.handles["json"].write("\n]}\n")
        for kind, handle in self.handles.items():
            handle.close()
            _finish(self.targets[kind])
        if self.parquet is not None:
            self.parquet.close()

    def abandon(self) -> None:
        for kind, handle in self.handles.items():
            handle.close()
            if not is_stream(self.targets[kind]):
                _tmp(self.targets[kind]).unlink(missing_ok=True)
        if self.parquet is not None:
            self.parquet.abandon()


def parquet_schema() -> Any:
    """The Parquet columns: the CSV's, typed (floats for scores, lists for warnings and errors)."""
    import pyarrow as pa

    types = {"codebertscore_layer": pa.int64(), "cached": pa.bool_(),
             "warnings": pa.list_(pa.string()), "errors": pa.list_(pa.string()),
             **{c: pa.float64() for c in SCORE_COLUMNS}}
    return pa.schema([(c, types.get(c, pa.string())) for c in COLUMNS])


class _ParquetOut:
    """Rows appended as row groups of ``PARQUET_ROW_GROUP``."""

    def __init__(self, path: Path) -> None:
        import pyarrow.parquet as pq

        self.path, self.schema = path, parquet_schema()
        self.writer = pq.ParquetWriter(str(_tmp(path)), self.schema)
        self.pending: list[dict[str, Any]] = []

    def add(self, rows: Sequence[dict[str, Any]]) -> None:
        self.pending.extend({c: row.get(c) for c in COLUMNS} for row in rows)
        if len(self.pending) >= PARQUET_ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self.pending:
            self.writer.write_table(pa.Table.from_pylist(self.pending, schema=self.schema))
            self.pending = []

    def close(self) -> None:
        self._flush()
        self.writer.close()
        os.replace(_tmp(self.path), self.path)

    def abandon(self) -> None:
        self.writer.close()
        _tmp(self.path).unlink(missing_ok=True)


def read_jsonl_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a ``grade.jsonl`` written here, one at a time."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)
