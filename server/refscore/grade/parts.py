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

Each line carries ``"check"``: a SHA-256 over the part key (the block's content and the run's
settings), the offset and the line's result. A line that is torn, not UTF-8, not JSON, or whose
check does not match (a part cut short by a crash, random bytes, a hand-edited score) is dropped
with one note per part file (``notes``) and its item is scored again: damaged state heals on the
next run instead of failing it forever. Only regular files are read (``safe_read``). A file this
store wrote or verified, unchanged since (same inode, size and modification time), is not checked
again: assembling a run reads each part more than once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..errors import InputFileError
from ..safe_read import open_regular
from ..safe_write import OutputFileError, commit, new_temporary

_NAME = re.compile(r"^b(\d+)-([0-9a-f]+)-(\d+)-(\d+)-(\d+)\.jsonl$")
#: A part's temporary file while it is written (``write``): ``.<part name>.<32 hex>.tmp``.
_TEMPORARY = re.compile(r"^\.b\d+-[0-9a-f]+-\d+-\d+-\d+\.jsonl\.[0-9a-f]{32}\.tmp$")
KEY_CHARS = 32


class PartStore:
    """The part files of one grading job in ``folder``."""

    def __init__(self, folder: str | Path, durable: bool = True) -> None:
        self.folder = Path(folder)
        self.durable = durable  # fsync each part (a temporary folder, removed after the run, need not)
        self._index: dict[tuple[int, str], list[tuple[int, Path]]] | None = None
        self.notes: list[str] = []  # one line per damaged part file found
        self._noted: set[Path] = set()
        self._vouched: dict[Path, tuple[int, int, int]] = {}  # path -> fingerprint when written or verified

    def write(self, block: int, key: str, rows: Sequence[tuple[Any, ...]]) -> Path | None:
        """Write one part holding ``rows`` (offset, row[, detail]) of block ``block``; None when empty."""
        if not rows:
            return None
        ordered = sorted(rows, key=lambda entry: entry[0])
        name = f"b{block:08d}-{key[:KEY_CHARS]}-{ordered[0][0]}-{ordered[-1][0]}-{len(ordered)}.jsonl"
        target = self.folder / name
        text = "".join(json.dumps(_checked(key, _entry(*entry)), ensure_ascii=False, allow_nan=False) + "\n"
                       for entry in ordered)
        handle, tmp = new_temporary(target, f".{name}.{uuid.uuid4().hex}.tmp")
        try:
            with handle:
                handle.write(text.encode("utf-8"))
                if self.durable:
                    handle.flush()
                    os.fsync(handle.fileno())
        except BaseException as error:  # a full disk, Ctrl-C: no half-written part stays behind
            tmp.unlink(missing_ok=True)
            if isinstance(error, OSError):
                raise OutputFileError(f"{target}: cannot write this scored part ({error.strerror or error}); the "
                                      "parts written before it are kept: make room and rerun the same command to "
                                      "finish") from None
            raise
        commit(tmp, target)
        self._vouch(target)
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

    def remove_stale_temporaries(self) -> list[Path]:
        """Remove the temporary files of parts a run never finished (killed, or the disk was full);
        call it only while this run holds the folder's lock (``folder_lock``). The paths removed."""
        removed = []
        if self.folder.is_dir():
            for entry in os.scandir(self.folder):
                if _TEMPORARY.match(entry.name) and entry.is_file(follow_symlinks=False):
                    Path(entry.path).unlink(missing_ok=True)
                    removed.append(Path(entry.path))
        return removed

    def refresh(self) -> None:
        """Forget the listing (other processes may have written parts since)."""
        self._index = None

    def parts(self, block: int, key: str) -> list[Path]:
        """Part files of this block and key."""
        return [path for _, path in self._scan().get((block, key[:KEY_CHARS]), [])]

    def other_parts(self, keys: Iterable[tuple[int, str]]) -> list[Path]:
        """Part files of no (block, key) in ``keys``: earlier runs' (other inputs or settings)."""
        used = {(block, key[:KEY_CHARS]) for block, key in keys}
        return sorted(path for found, entries in self._scan().items() if found not in used for _, path in entries)

    def done_offsets(self, block: int, key: str, items: int) -> set[int] | None:
        """Offsets of the block already scored (lines whose check holds); None when every one
        of its ``items`` is."""
        done = set(self.entries(block, key))
        return None if len(done) >= items else done

    def rows(self, block: int, key: str) -> dict[int, dict[str, Any]]:
        """offset -> row for every scored item of the block."""
        return {offset: entry["row"] for offset, entry in self.entries(block, key).items()}

    def entries(self, block: int, key: str) -> dict[int, dict[str, Any]]:
        """offset -> ``{"row", "detail"?}`` for every scored item of the block (a whole part wins
        ties; damaged lines are dropped with a note)."""
        out: dict[int, dict[str, Any]] = {}
        entries = sorted(self._scan().get((block, key[:KEY_CHARS]), []), key=lambda e: -e[0])
        for count, path in entries:
            vouched = self._vouched.get(path)
            trusted = vouched is not None and vouched == _fingerprint(path)
            good, damaged = _read_part(path, key, verify=not trusted)
            if damaged or len(good) < count:
                self._vouched.pop(path, None)
                self._heal(block, key, path, good, max(damaged, count - len(good)))
            elif not trusted:
                self._vouch(path)
            for offset, entry in good:
                out.setdefault(offset, entry)
        return out

    def _heal(self, block: int, key: str, path: Path, good: list[tuple[int, dict[str, Any]]], lost: int) -> None:
        """Replace a damaged part by one of its good lines (or none), with one note."""
        if path in self._noted:
            return
        self._noted.add(path)
        self.notes.append(f"{path}: {lost} damaged or missing line(s) dropped; scoring them again")
        kept = self.write(block, key, [(o, e["row"], e.get("detail"), e.get("meta")) for o, e in good]) if good else None
        if kept != path:
            path.unlink(missing_ok=True)
            self._index = None

    def _vouch(self, path: Path) -> None:
        found = _fingerprint(path)
        if found is not None:
            self._vouched[path] = found


def _fingerprint(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, modification time in ns) of ``path``, None when it cannot be read."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _entry(offset: int, row: dict[str, Any], detail: dict[str, Any] | None = None,
           meta: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"offset": offset, "row": row}
    if detail is not None:
        out["detail"] = detail
    if meta is not None:
        out["meta"] = meta
    return out


def _checked(key: str, entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with its ``check``."""
    return {**entry, "check": _check(key, entry)}


def _check(key: str, entry: dict[str, Any]) -> str:
    """SHA-256 over the part key, the offset and the result (row, detail, meta) of one line."""
    body = {k: entry[k] for k in ("offset", "row", "detail", "meta") if k in entry}
    text = json.dumps(body, ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{key}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()


def _read_part(path: Path, key: str, verify: bool = True) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The part's lines whose check holds (``verify``; else every JSON line), as (offset, entry),
    and how many lines were dropped."""
    out, damaged = [], 0
    try:
        with open_regular(path) as fh:
            lines = fh.read().split(b"\n")
    except (OSError, InputFileError):
        return [], 1
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = json.loads(line.decode("utf-8"))
            if not isinstance(entry, dict) or (verify and entry.get("check") != _check(key, entry)):
                raise ValueError("check")
            out.append((int(entry["offset"]), {"row": dict(entry["row"]), "detail": entry.get("detail"),
                                               "meta": entry.get("meta") or {}}))
        except (ValueError, KeyError, TypeError, RecursionError):
            damaged += 1
    return out, damaged
