"""Everything a document needs before scoring: its language, its references and their texts.

A reference open in the editor is read from the editor (its unsaved text counts, whatever URI
spelling or symbolic link the editor opened it by); otherwise from disk, cached by (mtime, ctime,
size, inode) so a file changed on disk is read again, even one whose mtime was set back (an
extracted archive, a reproducible build); a watched-file event drops the cached text outright.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import languages
from ..errors import InputFileError, lone_surrogate
from ..files.sources import empty_reference, read_source
from .references import ReferenceChoice, find_references
from .uris import file_name, file_uri, fs_path, real_path

#: Documents longer than this (code points) are not scored live; one message says so.
MAX_LIVE_CHARS = 1_000_000


@dataclass(frozen=True)
class Prepared:
    """A candidate ready to score, or the one problem that stops it (``problem``)."""

    spec: languages.LanguageSpec | None
    choice: ReferenceChoice
    texts: tuple[str, ...] = ()
    uris: tuple[str, ...] = ()
    problem: str | None = None


class ReferenceReader:
    """Reads reference files, re-reading only when their mtime, ctime, size or inode changed."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[tuple[int, ...], str]] = {}
        self._lock = threading.Lock()

    def forget(self, path: Path) -> None:
        """Drop ``path``'s cached text (the client says the file changed)."""
        with self._lock:
            self._cache.pop(path, None)

    def clear(self) -> None:
        """Drop every cached text (files were created or deleted)."""
        with self._lock:
            self._cache.clear()

    def read(self, path: Path) -> str:
        try:
            stat = path.stat()
            key: tuple[int, ...] = (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino)
        except OSError:
            key = (-1,)
        with self._lock:
            cached = self._cache.get(path)
            if cached is not None and cached[0] == key:
                return cached[1]
        text = read_source(path)
        with self._lock:
            self._cache[path] = (key, text)
        return text


def language_of(language_id: str, path: Path | None) -> languages.LanguageSpec | None:
    """The registry's language for an LSP languageId, else for the file's extension; None when unknown."""
    spec = languages.for_lsp_id(language_id or "")
    if spec is None and path is not None:
        try:
            spec = languages.for_path(path)
        except languages.UnknownLanguageError:
            spec = None
    return spec


def folder_of(path: Path, folders: Sequence[Path]) -> Path | None:
    """The innermost workspace folder holding ``path``."""
    holding = [f for f in folders if path == f or f in path.parents]
    return max(holding, key=lambda f: len(f.parts)) if holding else None


def _outside_workspace(choice: ReferenceChoice, folders: Sequence[Path], candidate: Path | None) -> Path | None:
    """The first reference a pragma names outside the workspace folders (links resolved; without
    folders, outside the document's own folder), else None. Only a pragma is checked: it is the
    document's own text, which a cloned repository or a student's file controls; the command and
    the settings are the user's."""
    if choice.source != "pragma":
        return None
    roots = [real_path(f) for f in folders] or ([candidate.parent] if candidate is not None else [])
    for reference in choice.paths:
        if not any(reference == root or root in reference.parents for root in roots):
            return reference
    return None


def prepare(uri: str, text: str, language_id: str, settings: Any, explicit: Sequence[Path] | None,
            folders: Sequence[Path], open_texts: Mapping[str, str], reader: ReferenceReader) -> Prepared | None:
    """Find and read the references of one document; None when it has no reference."""
    path = fs_path(uri)
    spec = language_of(language_id, path)
    if path is not None:
        # folders are resolved: a document opened through a linked folder is in them too (a linked
        # file keeps its own folder: its pragma paths and .ref file are where the user sees it)
        candidate = real_path(path.parent) / path.name
        folder = folder_of(candidate, folders)
    else:  # an unsaved buffer: relative pragma paths start at the first workspace folder
        folder = folders[0] if folders else None
        candidate = (folder or Path.home()) / (file_name(uri).split(":")[-1] or "untitled")
    choice = find_references(candidate, text, spec, folder, settings.references, explicit, on_disk=path is not None)
    if choice is None:
        return None
    choice = ReferenceChoice(tuple(real_path(p) for p in choice.paths), choice.source, choice.context)
    if spec is None:
        known = ", ".join(languages.names())
        return Prepared(None, choice, problem=f"RefScore: language {language_id!r} is not supported "
                                               f"(supported: {known})")
    if not choice.paths:
        return Prepared(spec, choice, problem="RefScore: the refscore pragma names no reference file; write "
                                              "`refscore: reference=PATH` (relative to this file)")
    outside = _outside_workspace(choice, folders, candidate if path is not None else None)
    if outside is not None:
        return Prepared(spec, choice, problem=f"RefScore: the pragma names {outside}, outside the workspace: not "
                                              "read (a file's own text may not open others' files; name it in the "
                                              "refscore.references setting to use it)")
    if len(text) > MAX_LIVE_CHARS:
        return Prepared(spec, choice, problem=f"RefScore: {len(text)} characters is too large to score live "
                                              f"(limit {MAX_LIVE_CHARS}); use `refscore score`")
    texts, uris = [], []
    for ref in choice.paths:
        if path is not None and ref == real_path(path):
            return Prepared(spec, choice, problem=f"RefScore: {ref.name} is its own reference")
        ref_uri = file_uri(ref)
        try:
            in_editor = open_texts.get(str(ref))  # one look-up: the editor may close it meanwhile
            texts.append(in_editor if in_editor is not None else reader.read(ref))
        except InputFileError as error:
            return Prepared(spec, choice, problem=f"RefScore: reference ({choice.source}) {error}")
        uris.append(ref_uri)
    empty = [empty_reference(ref.name, t) for ref, t in zip(choice.paths, texts)]
    if empty and all(empty):  # nothing to compare with: a score of 0 would say the work is wrong
        return Prepared(spec, choice, problem=f"RefScore: {empty[0]}")
    for name, scored in ((file_name(uri), text), *((ref.name, t) for ref, t in zip(choice.paths, texts))):
        where = lone_surrogate(scored)  # from the client's JSON ("\udc00"): no metric can encode it
        if where is not None:
            return Prepared(spec, choice, problem=f"RefScore: {name} holds a lone surrogate ({where}), "
                                                  "which is not text; it cannot be scored")
    return Prepared(spec, choice, tuple(texts), tuple(uris))
