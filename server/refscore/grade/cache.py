"""Resumable grading: an append-only JSONL file of finished reports keyed by content hash.

Each line is ``{"key": sha256, "report": ScoreReport.to_dict(explain=True)}``, flushed after
every batch, so an interrupted run loses at most the batch in flight. A torn last line (the
process was killed mid-write) is ignored on the next load.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import IO

from ..scoring.report import ScoreReport

log = logging.getLogger(__name__)


class ReportCache:
    """Finished reports of earlier runs; ``None`` path means a cache that remembers nothing."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self._entries: dict[str, dict] = {}
        self._handle: IO[str] | None = None
        self.skipped_lines = 0
        if self.path and self.path.exists():
            self._load()

    def _load(self) -> None:
        assert self.path is not None
        import io

        from ..safe_read import open_regular

        # regular files only, opened without blocking: a FIFO or /dev/zero is refused, not waited on or read forever
        with io.TextIOWrapper(open_regular(self.path), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    self._entries[str(entry["key"])] = dict(entry["report"])
                except (ValueError, KeyError, TypeError):
                    self.skipped_lines += 1
        if self.skipped_lines:
            log.info("cache %s: ignored %d unreadable line(s)", self.path, self.skipped_lines)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def get(self, key: str) -> ScoreReport | None:
        """The cached report for ``key``, or None (also when the entry no longer parses)."""
        data = self._entries.get(key)
        if data is None:
            return None
        try:
            return ScoreReport.from_dict(data)
        except (KeyError, TypeError, ValueError):
            return None

    def put_many(self, pairs: list[tuple[str, ScoreReport]]) -> None:
        """Remember finished reports and flush them to disk at once."""
        if not pairs:
            return
        lines = []
        for key, report in pairs:
            data = report.to_dict(explain=True)
            self._entries[key] = data
            lines.append(json.dumps({"key": key, "report": data}, ensure_ascii=False, default=_jsonable))
        if self.path is None:
            return
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.path, "a", encoding="utf-8")
            if self._handle.tell() > 0:
                self._handle.write("\n")  # a torn last line stays on its own
        self._handle.write("\n".join(lines) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        """Close the file (the cache stays usable for reads)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _jsonable(value: object) -> object:
    """Fallback for values json cannot write (tuples of floats from tensors, sets)."""
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)
