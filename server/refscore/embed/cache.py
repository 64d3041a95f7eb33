"""A bounded LRU cache of token embeddings.

Keys are (model key, layer, settings, SHA-256 of the exact text given to the model), so a
reference scored against many candidates is encoded once, and a change of model, layer,
precision, window or context never returns stale vectors.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any, Hashable


def text_key(text: str) -> str:
    """Content hash of a text (SHA-256 of its UTF-8 bytes, invalid surrogates escaped)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class EmbeddingCache:
    """Thread-safe LRU bounded by entry count and by approximate bytes held."""

    def __init__(self, max_entries: int = 4096, max_bytes: int = 512 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def nbytes(self) -> int:
        """Approximate bytes held."""
        return self._bytes

    def get(self, key: Hashable) -> Any | None:
        """The cached value (and mark it recently used), or None."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return item[0]

    def put(self, key: Hashable, value: Any, nbytes: int) -> None:
        """Store ``value``; evict least recently used entries beyond the bounds."""
        if self.max_entries <= 0 or nbytes > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, nbytes)
            self._bytes += nbytes
            while self._items and (len(self._items) > self.max_entries or self._bytes > self.max_bytes):
                _, (_, size) = self._items.popitem(last=False)
                self._bytes -= size

    def clear(self) -> None:
        """Drop everything."""
        with self._lock:
            self._items.clear()
            self._bytes = 0
