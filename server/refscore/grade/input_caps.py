"""Caps that apply while JSONL, JSONL.gz and Parquet inputs are read, in every engine, before
memory or minutes are spent on a hostile file.

* **Blank lines**: more than ``MAX_BLANK_RUN`` blank lines in a row is no JSONL file (128 MiB of
  newlines in a 130 KB ``.gz`` took 82 s in memory and 114 s at 863 MB block by block): refused in
  one line as soon as the run is seen.
* **Gzip bombs**: past ``BOMB_MIN_BYTES`` decompressed, a ``.gz`` that has grown more than
  ``BOMB_RATIO`` times its compressed bytes is refused (real JSONL of code compresses 3 to 30
  times; gzip's ceiling is about 1,030).
* **Parquet**: a column chunk over ``MAX_PARQUET_CHUNK`` uncompressed (a 93 KB file with one 1 GB
  cell reached 6.3 GB RSS before the per-text limit applied) is refused from the file's metadata,
  before any row is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..errors import InputFileError

MAX_BLANK_RUN = 1_000_000
BOMB_MIN_BYTES = 64 * 1024 * 1024
BOMB_RATIO = 500
MAX_PARQUET_CHUNK = 512 * 1024 * 1024


class ReadGuard:
    """Checks one stream of lines as it is read: ``line(number, blank)`` per line, ``grown(total)``
    per chunk of decompressed bytes (``compressed()``: the compressed bytes read so far, None for a
    plain file)."""

    def __init__(self, path: Path, compressed: Callable[[], int] | None = None) -> None:
        self.path, self.compressed, self.blank_run = path, compressed, 0

    def line(self, number: int, blank: bool) -> None:
        self.blank_run = self.blank_run + 1 if blank else 0
        if self.blank_run > MAX_BLANK_RUN:
            raise InputFileError(f"{self.path}: line {number}: more than {MAX_BLANK_RUN:,} blank lines in a row; "
                                 "not a JSONL file (refused)")

    def grown(self, total: int) -> None:
        if self.compressed is None or total <= BOMB_MIN_BYTES:
            return
        packed = max(1, self.compressed())
        if total > BOMB_RATIO * packed:
            raise InputFileError(f"{self.path}: {_size(packed)} of gzip decompressed to more than "
                                 f"{_size(total)} (over {BOMB_RATIO} times): a gzip bomb? refused")


def read_guard(path: Path, handle: Any) -> ReadGuard:
    """The guard of ``path`` read through the open file ``handle`` (a ``.gz``: its ratio checked)."""
    return ReadGuard(path, handle.tell if Path(path).suffix == ".gz" else None)


def check_parquet(path: Path, metadata: Any) -> None:
    """Refuse a Parquet file whose metadata shows a column chunk too large to read in bounded
    memory (one line naming the row group, the column and its size)."""
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for column in range(row_group.num_columns):
            chunk = row_group.column(column)
            size = int(chunk.total_uncompressed_size or 0)
            if size > MAX_PARQUET_CHUNK:
                raise InputFileError(
                    f"{path}: row group {group}, column {chunk.path_in_schema!r}: {_size(size)} "
                    f"uncompressed for {row_group.num_rows} row(s), over the {_size(MAX_PARQUET_CHUNK)} "
                    "a column chunk may hold (each text is at most 20 MiB; write smaller row groups)")


def _size(count: int) -> str:
    """``1.5 MiB``, ``130 KiB``, ``512 bytes``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{count} bytes"
