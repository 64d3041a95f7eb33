"""The reports of every run, written from its parts in input order, one block at a time.

Pass one reads every part for the ids (``ids.IdNamer``: repeated ids get ``#2``...) and the
statistics (``stream_stats.RowStats``); pass two writes the CSV, JSON, JSONL and Parquet files
(each to a temporary name, renamed when complete) and then the HTML page (``html_report``): with
each submission's detail when the run keeps details (``BlockWork.detail``), else the summary
kind. Memory stays bounded: one block of rows, the statistics, the lowest and highest rows, and 8
bytes per id (plus every row's detail when the run keeps them, which only small runs do). An
interrupted run is assembled too: ``fill`` gives the rows of the items no part holds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..vocabulary import SCORE_NAMES
from .behaviour_cells import RunBehaviour
from .columns import RunColumns, parquet_schema  # noqa: F401 - parquet_schema: re-exported
from .ids import IdNamer
from .items import GradeItem
from .parts import PartStore
from .plan import PlannedBlock
from .job import Threshold
from .rows import JSON_ONLY_COLUMNS, GradeResult
from .stream_stats import RowStats
from .targets import is_stream
from .writers import csv_text, finish_report, open_binary_report, open_report, replace_report, temporary_name

if TYPE_CHECKING:
    from ..scoring.report import ScoreReport

PARQUET_ROW_GROUP = 65_536
#: The widest id the terminal lines pad to.
ID_WIDTH = 60
#: ``fill(block, offsets_held)``: the entries (offset -> {"row", "detail"}) of the block's other items.
Fill = Callable[[PlannedBlock, set[int]], dict[int, dict[str, Any]]]
#: (block, offset) -> (item, report): details an engine kept in memory.
Details = Mapping[tuple[int, int], "tuple[GradeItem, ScoreReport | None]"]


class IncompleteRun(RuntimeError):
    """A block has fewer scored items than it holds (the run did not finish)."""


@dataclass
class Assembled:
    """What the reports say, for the command's summary lines and exit code."""

    stats: RowStats
    failures: int = 0
    first_failures: list[dict[str, Any]] = field(default_factory=list)
    from_cache: int = 0
    scored_pairs: int = 0  # rows with a report
    numbered: int = 0  # rows with at least one number (every metric asked for may be unavailable)
    lacking: int = 0  # scored pairs without the combined number that applies to them
    first_reason: str = ""  # why the first of them lacks it
    first_error: str = ""  # the first row's first error
    rows: list[dict[str, Any]] | None = None  # every row, in order (``keep``: the classroom outputs)
    details: list[tuple[GradeResult, dict[str, Any]]] = field(default_factory=list)  # (result, row) with details
    behaviour_note: str | None = None  # ``behaviour not run: <why>``: it ran for no submission, for one reason

    def headline_note(self) -> str | None:
        """The one line when some scored pairs lack the combined number that applies to them."""
        from ..scoring.headline import missing_line

        return missing_line(self.lacking, self.scored_pairs, self.first_reason) if self.lacking else None


def block_entries(store: PartStore, block: PlannedBlock, fill: Fill | None = None) -> list[tuple[int, dict[str, Any]]]:
    """(offset, entry) of the block in input order; IncompleteRun when some are missing."""
    entries = store.entries(block.index, block.key)
    if len(entries) < block.items and fill is not None:
        entries.update(fill(block, set(entries)))
    if len(entries) < block.items:
        raise IncompleteRun(f"block {block.index}: {len(entries)} of {block.items} items scored")
    return sorted(entries.items())


def assemble(blocks: Sequence[PlannedBlock], store: PartStore, outputs: dict[str, Path], info: dict[str, Any],
             title: str, rank_by: str | None, fail: Threshold | None = None,
             echo: Callable[[dict[str, Any], int], None] | None = None, fill: Fill | None = None,
             detail: bool = False, similar: Mapping[tuple[str, str | None], list[str]] | None = None,
             keep: bool = False, held: Details | None = None, panes: bool = True,
             students: Callable[[Sequence[dict[str, Any]], Sequence[tuple[GradeResult, dict[str, Any]]]], str]
             | None = None) -> Assembled:
    """Write every requested output (kinds: csv, json, jsonl, parquet, html) from the parts.
    ``echo(row, id_width)`` is called for each row in order (the terminal lines); ``similar``:
    (item id, source) -> the ``similar_to`` cell (``--similarity``'s flagged partners); ``keep``:
    the result holds every row (and, with ``detail``, every detail) for the classroom outputs;
    ``held``: the items and reports of the detailed page the engine kept in memory (else read
    from the parts); ``panes``: the detailed page shows each submission's code; ``students(rows,
    details)``: the HTML page's table of students and points (a run with a rubric)."""
    namer, totals, width, behaviour = IdNamer(), RowStats(keep=0), 0, RunBehaviour()
    columns = RunColumns(info.get("metrics", ()), similarity="similarity" in info,
                         codebleu_rule=info.get("codebleu_rule", "native"))
    kept: dict[int, list[tuple[int, dict[str, Any]]]] = {}  # a run with details is small: read once
    for block in blocks:
        pairs = block_entries(store, block, fill)
        if detail:
            kept[block.index] = pairs
        for _, entry in pairs:
            namer.add(str(entry["row"]["id"]))
            totals.add(entry["row"])
            columns.add(entry["row"])
            behaviour.add(entry["row"])
            width = max(width, len(str(entry["row"]["id"])))
    namer.freeze()
    result = Assembled(RowStats(rank_by, per_problem=True), rows=[] if keep else None,
                       behaviour_note=behaviour.note if "behaviour" in columns.metrics else None)
    if result.behaviour_note:  # said once (the JSON report's settings, the HTML header), not in every detail
        info["behaviour_not_run"] = result.behaviour_note
    writers = _Writers(outputs, info, totals.summary(), columns, namer.unique)
    details: list[tuple[GradeResult, dict[str, Any]]] = []
    try:
        for block in blocks:
            pairs = kept.pop(block.index) if detail else block_entries(store, block, fill)
            rows = [entry["row"] for _, entry in pairs]
            for offset, entry in pairs:
                row = entry["row"]
                row["similar_to"] = similar.get((str(row["id"]), row.get("source"))) if similar else None
                name = namer.name(str(row["id"]))
                row["id"] = row["id"] if name == str(row["id"]) else name  # an integer id stays one
                earlier = block.before is None or offset in block.before
                meta = entry.get("meta") or {}
                # a scored row from the parts (one metric's error, CrystalBLEU's small corpus, aside)
                row["cached"] = bool(earlier and meta.get("scored"))
                result.from_cache += row["cached"]
                result.stats.add(row)
                if echo is not None:
                    echo(row, min(ID_WIDTH, width))
                result.scored_pairs += bool(meta.get("scored"))
                result.numbered += any(row.get(name) is not None for name in SCORE_NAMES)
                if row["errors"] and not result.first_error:
                    result.first_error = str(row["errors"][0])
                if meta.get("missing"):
                    result.lacking += 1
                    result.first_reason = result.first_reason or str(meta["missing"])
                if detail:
                    kept_now = held.get((block.index, offset)) if held else None
                    if kept_now is not None:
                        item, report = kept_now
                        details.append((GradeResult(replace(item, id=str(row["id"])), report,
                                                    warnings=list(row["warnings"])), row))
                    elif entry.get("detail") is not None:
                        details.append((_result(entry["detail"], row), row))
            if fail is not None:
                failed = fail.failures(rows)
                result.failures += len(failed)
                result.first_failures.extend(failed[:max(0, 20 - len(result.first_failures))])
            writers.write(rows)
            if result.rows is not None:
                result.rows.extend(rows)
        writers.close()
    except BaseException:
        writers.abandon()
        raise
    result.details = details
    if "html" in outputs:
        from .html_report import build_html

        files = [outputs[k].name for k in ("csv", "json", "jsonl", "parquet") if k in outputs]
        table = students(result.rows or [], details) if students is not None else ""
        html = build_html(result.stats, info, title, files, details if detail else None, panes=panes, students=table)
        replace_report(outputs["html"], lambda fh: fh.write(html))
    return result


def _result(detail: dict[str, Any], row: dict[str, Any]) -> GradeResult:
    """The item (under its report id) and full report a detail section shows."""
    from ..scoring.report import ScoreReport

    item = dict(detail["item"])
    item.update(id=str(row["id"]), references=tuple(item["references"]), reference_names=tuple(item["reference_names"]))
    report = ScoreReport.from_dict(detail["report"]) if detail.get("report") is not None else None
    return GradeResult(GradeItem(**item), report, warnings=list(row["warnings"]))


class _Writers:
    """The streamed output files of one assembly."""

    def __init__(self, outputs: dict[str, Path], info: dict[str, Any], summary: dict[str, Any],
                 columns: RunColumns, unique_ids: bool) -> None:
        self.targets = {k: outputs[k] for k in ("csv", "json", "jsonl") if k in outputs}
        self.handles = {k: open_report(p) for k, p in self.targets.items()}
        self.first = True
        self.columns = columns.columns
        self.parquet = _ParquetOut(outputs["parquet"], columns, unique_ids) if "parquet" in outputs else None
        if "json" in self.handles:
            head = json.dumps({"settings": info, "summary": summary}, ensure_ascii=False, allow_nan=False,
                              default=str)
            self.handles["json"].write(head[:-1] + ', "submissions": [\n')

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        if not rows:
            return
        rows = [{**{c: row.get(c) for c in self.columns}, **{c: row[c] for c in JSON_ONLY_COLUMNS if c in row}}
                for row in rows]
        lines = [json.dumps(row, ensure_ascii=False, allow_nan=False, default=str) for row in rows]
        if "csv" in self.handles:
            self.handles["csv"].write(csv_text(rows, self.columns, header=self.first))
        if "json" in self.handles:
            self.handles["json"].write(("" if self.first else ",\n") + ",\n".join(lines))
        if "jsonl" in self.handles:
            self.handles["jsonl"].write("\n".join(lines) + "\n")
        if self.parquet is not None:
            self.parquet.add(rows)
        self.first = False

    def close(self) -> None:
        if "csv" in self.handles and self.first:
            self.handles["csv"].write(csv_text([], self.columns))
        if "json" in self.handles:
            self.handles["json"].write("\n]}\n")
        for kind, handle in self.handles.items():
            handle.close()
            finish_report(self.targets[kind])
        if self.parquet is not None:
            self.parquet.close()

    def abandon(self) -> None:
        for kind, handle in self.handles.items():
            handle.close()
            if not is_stream(self.targets[kind]):
                temporary_name(self.targets[kind]).unlink(missing_ok=True)
        if self.parquet is not None:
            self.parquet.abandon()


class _ParquetOut:
    """Rows appended as row groups of ``PARQUET_ROW_GROUP``."""

    def __init__(self, path: Path, columns: RunColumns, unique_ids: bool) -> None:
        import pyarrow.parquet as pq

        self.path, self.columns, self.schema = path, columns, columns.parquet_schema(unique_ids)
        self.handle = open_binary_report(path)
        self.writer = pq.ParquetWriter(self.handle, self.schema)
        self.pending: list[dict[str, Any]] = []

    def add(self, rows: Sequence[dict[str, Any]]) -> None:
        self.pending.extend(self.columns.parquet_row(row, self.schema) for row in rows)
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
        self.handle.close()
        finish_report(self.path)

    def abandon(self) -> None:
        self.writer.close()
        self.handle.close()
        temporary_name(self.path).unlink(missing_ok=True)
