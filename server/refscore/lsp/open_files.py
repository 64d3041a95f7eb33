"""Indexes over the open documents that keep the server linear in how many are open.

Before, each scoring run resolved the path of every open document to find the references open in
the editor (``snapshot.editor_texts``), and each opened document looked through every result for
the candidates it is a reference of: N runs times N documents. With 800 documents open that was
36 of 40 seconds of the event loop's time (issue 45, item 8). Here each document's real path is
resolved once, when it opens, and each result files its references once, when it is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .uris import fs_path, real_path


class OpenFiles:
    """Open documents by their real path (symbolic links resolved), kept as they open and close."""

    def __init__(self) -> None:
        self._by_path: dict[str, dict[str, None]] = {}  # real path -> its open URIs (in order)
        self._path_of: dict[str, str | None] = {}  # URI -> its real path (None: not a file)

    def opened(self, uri: str) -> None:
        """Note ``uri`` (its path is resolved the first time only)."""
        if uri in self._path_of:
            return
        path = fs_path(uri)
        real = str(real_path(path)) if path is not None else None
        self._path_of[uri] = real
        if real is not None:
            self._by_path.setdefault(real, {})[uri] = None

    def closed(self, uri: str) -> None:
        """Forget ``uri``."""
        real = self._path_of.pop(uri, None)
        uris = self._by_path.get(real) if real is not None else None
        if uris is not None:
            uris.pop(uri, None)
            if not uris:
                del self._by_path[real]  # type: ignore[arg-type]

    def texts(self, document: Callable[[str], Any]) -> "EditorTexts":
        """The editor's text of each open file by its real path (read when looked up, not copied:
        the cost of a run does not grow with the documents open); ``document`` gives the open
        document of a URI, None once closed."""
        return EditorTexts(self._by_path, document)


class EditorTexts(Mapping[str, str]):
    """Real path -> the editor's current text of that open file (what ``snapshot.prepare`` reads
    a reference from), looked up in the live index: safe from the CPU pool's threads (one
    dictionary read each), the text read when asked for."""

    def __init__(self, by_path: dict[str, dict[str, None]], document: Callable[[str], Any]) -> None:
        self._by_path = by_path
        self._document = document

    def _open(self, path: str) -> Any:
        for uri in list(self._by_path.get(path, ())):
            found = self._document(uri)
            if found is not None:
                return found
        return None

    def __getitem__(self, path: str) -> str:
        found = self._open(path)
        if found is None:
            raise KeyError(path)
        return found.source

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._open(path) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._by_path))

    def __len__(self) -> int:
        return len(self._by_path)


class Results(dict):
    """The loop's results by URI (``dict[str, Result]``) with an index of who names which
    reference: ``dependents(path)`` reads it instead of every result."""

    def __init__(self) -> None:
        super().__init__()
        self._dependents: dict[str, dict[str, None]] = {}  # real path -> the URIs (in order)

    def __setitem__(self, uri: str, result: Any) -> None:
        self._unfile(uri)
        super().__setitem__(uri, result)
        for path in result.choice.paths:
            self._dependents.setdefault(str(path), {})[uri] = None

    def __delitem__(self, uri: str) -> None:
        self._unfile(uri)
        super().__delitem__(uri)

    def pop(self, uri: str, *default: Any) -> Any:
        self._unfile(uri)
        return super().pop(uri, *default)

    def _unfile(self, uri: str) -> None:
        old = self.get(uri)
        if old is None:
            return
        for path in old.choice.paths:
            users = self._dependents.get(str(path))
            if users is not None:
                users.pop(uri, None)
                if not users:
                    del self._dependents[str(path)]

    def dependents(self, path: str) -> list[str]:
        """The URIs whose stored result names ``path`` (a real path) among its references."""
        return list(self._dependents.get(path, ()))
