"""Reports kept by request, so that an edit costs what it changed: the functions it did not touch
ask again for the very same requests (same texts, same settings) and are answered from here.

Bounded by entries and by the characters of the texts they were asked for (a whole document's
report holds its token alignments: a few hundred kB), least recently used first out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from ..scoring.report import ScoreReport, ScoreRequest


def request_chars(request: ScoreRequest) -> int:
    """The characters a request's texts hold (its weight in a memo)."""
    return len(request.candidate) + sum(len(r) for r in request.references) + len(request.context or "")


class ReportMemo:
    """ScoreRequest -> ScoreReport, least recently used out beyond ``entries`` or ``chars``
    (thread-safe: the CPU pool's threads share one). Reports with errors are never kept."""

    def __init__(self, entries: int, chars: int) -> None:
        self.entries, self.chars = entries, chars
        self._kept: OrderedDict[ScoreRequest, ScoreReport] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, request: object) -> bool:
        return request in self._kept

    def get(self, request: ScoreRequest) -> ScoreReport | None:
        with self._lock:
            found = self._kept.get(request)
            if found is not None:
                self._kept.move_to_end(request)
            return found

    def put(self, request: ScoreRequest, report: ScoreReport) -> None:
        if report.errors:
            return
        with self._lock:
            if request in self._kept:
                self._kept.move_to_end(request)
                return
            self._kept[request] = report
            self._chars += request_chars(request)
            while self._kept and (len(self._kept) > self.entries or self._chars > self.chars):
                old, _ = self._kept.popitem(last=False)
                self._chars -= request_chars(old)

    def answer(self, requests: Sequence[ScoreRequest],
               compute: Callable[[list[ScoreRequest]], list[ScoreReport]]) -> list[ScoreReport]:
        """A report per request: the kept ones from here, the others from ``compute`` (asked once
        each, in one call) and kept."""
        found = {r: self.get(r) for r in dict.fromkeys(requests)}
        missing = [r for r, report in found.items() if report is None]
        if missing:
            for request, report in zip(missing, compute(missing)):
                found[request] = report
                self.put(request, report)
        return [found[r] for r in requests]  # type: ignore[misc]
