"""A least-recently-used cache bounded by entries *and* by the size of the texts it keys on.

``functools.lru_cache`` bounds only the number of entries: a long-lived daemon that sees large
files would keep a thousand analyses of them (an analysis holds about 50 to 100 bytes per source
character). Here the first argument of the cached function is the text; the cache drops its least
recently used entries while it holds more than ``max_chars`` characters of text or more than
``max_entries`` entries, and a text larger than ``max_chars`` is computed but not kept.

``limit_caches`` lowers the bounds of every such cache of the process: the language server does,
because every version of an edited document is a new text (a 6 KB document's analyses take about
0.6 MB, so the grader's bounds let an editing session grow by hundreds of MB; issue 25, item 12).
"""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from functools import update_wrapper
from typing import Any, Callable, Generic, NamedTuple, TypeVar

from ..parsing.memo import limit_memos
from ..parsing.reaper import evicted

T = TypeVar("T")
_MISSING = object()
_ALL: "list[SizedCache[Any]]" = []  # every cache made by ``sized_cache`` (they live as long as the process)
_LIMIT: list[tuple[int, int]] = []  # (max_entries, max_chars) set by ``limit_caches``, for caches made later


class CacheInfo(NamedTuple):
    """What ``lru_cache``'s ``cache_info`` reports, plus the characters held and allowed."""

    hits: int
    misses: int
    maxsize: int
    currsize: int
    chars: int
    max_chars: int


class SizedCache(Generic[T]):
    """The cached function: call it as the function; ``cache_info()`` and ``cache_clear()``."""

    def __init__(self, function: Callable[..., T], max_entries: int, max_chars: int, own_bounds: bool = False) -> None:
        self._function = function
        self._max_entries = max_entries
        self._max_chars = max_chars
        self._entries: OrderedDict[tuple, tuple[T, int]] = OrderedDict()  # key -> (value, characters)
        self._text = next(iter(inspect.signature(function).parameters))  # the text's parameter name
        self._chars = self._hits = self._misses = 0
        self._lock = threading.Lock()
        self.own_bounds = own_bounds  # ``limit_caches`` leaves its bounds as made
        update_wrapper(self, function)
        _ALL.append(self)
        for entries, chars in _LIMIT:
            self.limit(entries, chars)

    def __call__(self, *args: Any, **kwargs: Any) -> T:
        key = args + tuple(sorted(kwargs.items())) if kwargs else args
        entries = self._entries
        with self._lock:
            found = entries.get(key, _MISSING)
            if found is not _MISSING:
                entries.move_to_end(key)
                self._hits += 1
                return found[0]  # type: ignore[index]
            self._misses += 1
        value = self._function(*args, **kwargs)
        size = len(args[0] if args else kwargs[self._text])
        if size <= self._max_chars:
            with self._lock:
                if key not in entries:
                    entries[key] = (value, size)
                    self._chars += size
                    if len(entries) > self._max_entries or self._chars > self._max_chars:
                        self._trim()
        return value

    def peek(self, *args: Any) -> T | None:
        """The value cached for these (positional) arguments, None when there is none; never
        computes it (a caller that only wants what is known already)."""
        with self._lock:
            found = self._entries.get(args, _MISSING)
        return None if found is _MISSING else found[0]  # type: ignore[index]

    def _trim(self) -> None:
        """Drop the least recently used entries beyond the bounds (the lock is held)."""
        while self._entries and (len(self._entries) > self._max_entries or self._chars > self._max_chars):
            _, (value, dropped) = self._entries.popitem(last=False)
            self._chars -= dropped
            evicted(value)

    def limit(self, max_entries: int, max_chars: int) -> None:
        """Lower the bounds to at most these (never raises them; none of a cache with its own
        bounds); drops what no longer fits."""
        if self.own_bounds:
            return
        with self._lock:
            self._max_entries = min(self._max_entries, max_entries)
            self._max_chars = min(self._max_chars, max_chars)
            self._trim()

    def cache_info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, self._max_entries, len(self._entries),
                             self._chars, self._max_chars)

    def cache_clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = self._hits = self._misses = 0


def limit_caches(max_entries: int, max_chars: int) -> None:
    """Lower the bounds of every text cache of this process, those made later included (see
    ``SizedCache.limit``)."""
    _LIMIT.append((max_entries, max_chars))
    for cache in list(_ALL):
        cache.limit(max_entries, max_chars)
    limit_memos(max_chars)  # the per-part memos: by characters only (a file has hundreds of parts)


def sized_cache(max_entries: int, max_chars: int,
                own_bounds: bool = False) -> Callable[[Callable[..., T]], SizedCache[T]]:
    """Decorator: cache a function of (text, ...) by its arguments within both bounds
    (``own_bounds``: bounds that ``limit_caches`` does not lower)."""
    def decorate(function: Callable[..., T]) -> SizedCache[T]:
        return SizedCache(function, max_entries, max_chars, own_bounds)
    return decorate

