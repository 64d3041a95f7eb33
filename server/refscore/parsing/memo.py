"""A small memo of what is made from a text alone, by (text, tag): bounded by entries and by the
characters of the texts kept, least recently used out (thread-safe)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, TypeVar

from .reaper import evicted

T = TypeVar("T")
_MISSING = object()
_ALL: "list[TextMemo]" = []  # every memo of the process (``limit_memos``)
_LIMIT: list[int] = []  # characters set by ``limit_memos``, for memos made later


class TextMemo(Generic[T]):
    """(text, tag) -> what was made of the text, least recently used out beyond ``entries`` or
    ``chars`` (thread-safe). For what a text alone decides (a reference's position tables, a
    top-level part's tokens), which every version of an edited document would make again."""

    def __init__(self, entries: int, chars: int) -> None:
        self.entries, self.chars = entries, chars
        self._kept: OrderedDict[tuple[str | bytes, str], T] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        _ALL.append(self)
        for chars in _LIMIT:
            self.limit(chars)

    def limit(self, chars: int) -> None:
        """Hold at most ``chars`` characters from now on (never raises the bound)."""
        with self._lock:
            self.chars = min(self.chars, chars)
            self._trim()

    def _trim(self) -> None:
        while self._kept and (len(self._kept) > self.entries or self._chars > self.chars):
            (old, _), value = self._kept.popitem(last=False)
            self._chars -= len(old)
            evicted(value)

    def __call__(self, text: str | bytes, tag: str, make: Callable[[], T]) -> T:
        """The value kept for ``(text, tag)``, else ``make()`` (kept when the text fits)."""
        key = (text, tag)
        with self._lock:
            found = self._kept.get(key, _MISSING)
            if found is not _MISSING:
                self._kept.move_to_end(key)
                return found  # type: ignore[return-value]
        value = make()
        if len(text) <= self.chars:
            with self._lock:
                if key not in self._kept:
                    self._kept[key] = value
                    self._chars += len(text)
                    self._trim()
        return value


def limit_memos(chars: int) -> None:
    """Lower the character bound of every memo of this process, those made later included (the
    language server's, as its text caches: ``analysis.cache.limit_caches``)."""
    _LIMIT.append(chars)
    for memo in list(_ALL):
        memo.limit(chars)
