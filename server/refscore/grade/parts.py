"""Scored blocks on disk: one part file per scored piece of a block, written atomically.

A part is named ``b<index>-<key>-<first>-<last>-<count>.jsonl`` and holds one
``{"offset": n, "row": {...}, "meta": {"scored", "missing"}}`` line per item (``offset``: the item's place
within its block; a run with the detailed HTML page adds ``"detail": {"item", "report"}``, the
texts and full report).
Writes go through ``refscore.safe_write`` (a new temporary file, never through a link, renamed
into place), so a reader sees a whole part or none,
and a piece scored twice (a retried task, two runs) writes the same name with the same rows. A
block's results are the union of its parts with one row per offset: nothing is lost or doubled
whichever worker wrote what. Parts of blocks whose key no longer matches (the input or the
settings changed) are never read.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import Any, Sequence

from ..safe_write import commit, new_temporary

_NAME = re.compile(r"^b(\d+)-([0-9a-f]+)-(\d+)-(\d+)-(\d+)\.jsonl$")
KEY_CHARS = 32


class PartStore:
    """The part files of one grading job in ``folder``."""

    def __init__(self, folder: str | Path, durable: bool = True) -> None:
        self.folder = Path(folder)
        self.durable = durable  # fsync each part (a temporary folder, removed after the run, need not)
        self._index: dict[tuple[int, str], list[tuple[int, Path]]] | None = None

    def write(self, block: int, key: str, rows: Sequence[tuple[Any, ...]]) -> Path | None:
        """Write one part holding ``rows`` (offset, row[, detail]) of block ``block``; None when empty."""
        if not rows:
            return None
        ordered = sorted(rows, key=lambda entry: entry[0])
        name = f"b{block:08d}-{key[:KEY_CHARS]}-{ordered[0][0]}-{ordered[-1][0]}-{len(ordered)}.jsonl"
        target = self.folder / name
        text = "".join(json.dumps(_entry(*entry), ensure_ascii=False, allow_nan=False) + "\n" for entry in ordered)
        handle, tmp = new_temporary(target, f".{name}.{uuid.uuid4().hex}.tmp")
        with handle:
            handle.write(text.encode("utf-8"))
            if self.durable:
                handle.flush()
                os.fsync(handle.fileno())
        commit(tmp, target)
        if self._index is not None:
            entries = self._index.setdefault((block, key[:KEY_CHARS]), [])
            if target not in (path for _, path in entries):
                entries.append((len(ordered), target))
        return target

    def _scan(self) -> dict[tuple[int, str], list[tuple[int, Path]]]:
        if self._index is None:
            index: dict[tuple[int, str], list[tuple[int, Path]]] = {}
            if self.folder.is_dir():
                for entry in os.scandir(self.folder):
                    match = _NAME.match(entry.name)
                    if match:
                        block, key, count = int(match[1]), match[2], int(match[5])
                        index.setdefault((block, key), []).append((count, Path(entry.path)))
            self._index = index
        return self._index

    def refresh(self) -> None:
        """Forget the listing (other processes may have written parts since)."""
        self._index = None

    def parts(self, block: int, key: str) -> list[Path]:
        """Part files of this block and key."""
        return [path for _, path in self._scan().get((block, key[:KEY_CHARS]), [])]

    def done_offsets(self, block: int, key: str, items: int) -> set[int] | None:
        """Offsets of the block already scored; None when every one of its ``items`` is."""
        entries = self._scan().get((block, key[:KEY_CHARS]), [])
        if any(count >= items for count, _ in entries):
            return None
        done = set(self.rows(block, key))
        return None if len(done) >= items else done

    def rows(self, block: int, key: str) -> dict[int, dict[str, Any]]:
        """offset -> row for every scored item of the block."""
        return {offset: entry["row"] for offset, entry in self.entries(block, key).items()}

    def entries(self, block: int, key: str) -> dict[int, dict[str, Any]]:
        """offset -> ``{"row", "detail"?}`` for every scored item of the block (a whole part wins
        ties; torn or foreign lines are skipped)."""
        out: dict[int, dict[str, Any]] = {}
        entries = sorted(self._scan().get((block, key[:KEY_CHARS]), []), key=lambda e: -e[0])
        for _, path in entries:
            for offset, entry in _read_part(path):
                out.setdefault(offset, entry)
        return out


def _entry(offset: int, row: dict[str, Any], detail: dict[str, Any] | None = None,
           meta: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"offset": offset, "row": row}
    if detail is not None:
        out["detail"] = detail
    if meta is not None:
        out["meta"] = meta
    return out


def _read_part(path: Path) -> list[tuple[int, dict[str, Any]]]:
    out = []
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    entry = json.loads(line)
                    out.append((int(entry["offset"]), {"row": dict(entry["row"]), "detail": entry.get("detail"),
                                                       "meta": entry.get("meta") or {}}))
                except (ValueError, KeyError, TypeError):
                    continue
    except OSError:
        return []
    return out
