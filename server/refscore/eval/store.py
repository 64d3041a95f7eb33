"""The scores file as a cache: every metric value of every item, keyed by the item's texts.

A *unit* is one metric group under one setting (``codebleu:effective-order:norm=no``, ``cbs:...:L6:ctx=no``);
it holds a fixed list of columns and one row per scored item key. ``item_key`` hashes what a
score depends on (language, candidate, references, context), so a run on a sample, a run on
everything and a run with more layers share their work, and an interrupted run (the file is
checkpointed while scoring) continues where it stopped.

The file is a numpy ``.npz``: ``__meta__`` (JSON: run settings, timing, the units and their
columns), ``<dataset>/target``, ``<dataset>/problem``, ``<dataset>/col/<name>`` (the last run's
score tables, read by ``--from-scores``) and ``cache/<n>/keys`` + ``cache/<n>/values`` (units).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..errors import InputFileError
from ..safe_write import replacing
from .data import Item

KEY_CHARS = 24


def item_key(item: Item) -> str:
    """Digest of everything an item's scores depend on (not its target or problem number)."""
    text = json.dumps([item.language, item.candidate, list(item.references), item.context],
                      ensure_ascii=False)
    return hashlib.sha1(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:KEY_CHARS]


#: What reading a file that is no scores file can raise (``open_scores``, then its entries).
SCORES_FILE_ERRORS = (OSError, ValueError, KeyError, TypeError, IndexError, EOFError, zipfile.BadZipFile)
_ZIP_MAGIC, _NPY_MAGIC, _PICKLE_MAGIC = b"PK\x03\x04", b"\x93NUMPY", b"\x80"


def open_scores(path: Path) -> Any:
    """The scores file ``path`` opened as numpy's ``NpzFile`` (never unpickled): InputFileError
    when it is missing or no regular file, ValueError saying why when it is no ``.npz`` archive
    (``np.load`` answers a pickle with its "allow_pickle" advice, a ``.npy`` with an array)."""
    from ..safe_read import open_regular

    with open_regular(path, what="a scores file") as handle:
        head = handle.read(len(_NPY_MAGIC))
    if not head:
        raise ValueError("an empty file")
    if head.startswith(_NPY_MAGIC):
        raise ValueError("a single .npy array, not a .npz archive")
    if head.startswith(_PICKLE_MAGIC):
        raise ValueError("a Python pickle, which is never loaded")
    if not head.startswith(_ZIP_MAGIC):
        raise ValueError("not a .npz archive")
    return np.load(path, allow_pickle=False)


def not_a_scores_file(path: Path, error: BaseException, remedy: str = "") -> InputFileError:
    """The one line for ``path`` that ``open_scores`` or reading its entries refused with ``error``."""
    if isinstance(error, InputFileError):  # missing, a folder, a FIFO: said as for any input file
        return error
    if isinstance(error, ValueError) and "pickle" in str(error) and "never loaded" not in str(error):
        why = "it holds Python objects, which are never loaded"  # numpy's allow_pickle advice
    elif isinstance(error, ValueError) and str(error) and not isinstance(error, UnicodeError):
        why = str(error) if str(error).startswith(("a ", "an ", "not ")) else f"ValueError: {str(error)[:80]}"
    elif isinstance(error, KeyError):
        why = f"it has no {str(error.args[0]).split()[0] if error.args else 'entry it needs'}"
    else:
        why = type(error).__name__
    return InputFileError(f"{path}: not a scores file written by --save-scores ({why})"
                          + (f"; {remedy}" if remedy else ""))


@dataclass
class Unit:
    """Rows of one metric unit: key -> row index into per-column value lists."""

    columns: tuple[str, ...]
    index: dict[str, int] = field(default_factory=dict)
    values: list[list[float]] = field(default_factory=list)  # one list per column

    def __post_init__(self) -> None:
        if not self.values:
            self.values = [[] for _ in self.columns]

    def put(self, key: str, row: Mapping[str, float]) -> None:
        """Store (or overwrite) one item's values."""
        at = self.index.get(key)
        if at is None:
            self.index[key] = len(self.values[0]) if self.values else 0
            for col, name in zip(self.values, self.columns):
                col.append(float(row[name]))
        else:
            for col, name in zip(self.values, self.columns):
                col[at] = float(row[name])


class ScoreStore:
    """Cached metric values per unit and item key; ``save`` writes the scores file atomically."""

    def __init__(self, path: Path | None = None, remedy: str = "move it away or use --no-cache") -> None:
        self.path = Path(path) if path is not None else None
        self.units: dict[str, Unit] = {}
        self.loaded_meta: dict[str, Any] = {}
        self.seconds: dict[str, float] = {}  # "dataset/group" -> scoring seconds, over all runs
        self.runs: list[dict[str, Any]] = []  # one record per run that scored something
        if self.path is not None and self.path.is_file():
            try:
                self._load(self.path)
            except SCORES_FILE_ERRORS as error:  # not an npz, or not ours
                raise not_a_scores_file(self.path, error, remedy) from None

    def _load(self, path: Path) -> None:
        with open_scores(path) as npz:
            meta = json.loads(str(npz["__meta__"]))
            self.loaded_meta = meta
            self.seconds = {k: float(v) for k, v in meta.get("unit_seconds", {}).items()}
            self.runs = list(meta.get("scoring_runs", []))
            for n, spec in enumerate(meta.get("units", [])):
                keys = npz[f"cache/{n}/keys"].tolist()
                values = npz[f"cache/{n}/values"]
                unit = Unit(tuple(spec["columns"]))
                unit.index = {k: i for i, k in enumerate(keys)}
                unit.values = [values[:, j].tolist() for j in range(len(unit.columns))]
                self.units[spec["name"]] = unit

    def merge_from(self, path: Path) -> int:
        """Add the rows of another scores file that this store lacks; returns how many."""
        other = ScoreStore(path, remedy="name a file --save-scores wrote, or leave this --cache-from out")
        added = 0
        for name, unit in other.units.items():
            mine = self.unit(name, unit.columns)
            for key, at in unit.index.items():
                if key not in mine.index:
                    mine.put(key, {c: unit.values[j][at] for j, c in enumerate(unit.columns)})
                    added += 1
        for key, seconds in other.seconds.items():
            self.seconds[key] = self.seconds.get(key, 0.0) + seconds
        self.runs += [run for run in other.runs if run not in self.runs]
        return added

    def unit(self, name: str, columns: Sequence[str]) -> Unit:
        """The unit called ``name`` (created empty; a stored one with other columns is dropped)."""
        unit = self.units.get(name)
        if unit is None or unit.columns != tuple(columns):
            unit = self.units[name] = Unit(tuple(columns))
        return unit

    def missing(self, name: str, columns: Sequence[str], keys: Iterable[str]) -> list[str]:
        """Distinct keys (first-seen order) that ``name`` has no row for."""
        unit = self.unit(name, columns)
        return [k for k in dict.fromkeys(keys) if k not in unit.index]

    def put(self, name: str, columns: Sequence[str], keys: Sequence[str],
            values: Mapping[str, Sequence[float]]) -> None:
        """Store the values of ``keys`` (``values[col][i]`` belongs to ``keys[i]``)."""
        unit = self.unit(name, columns)
        for i, key in enumerate(keys):
            unit.put(key, {c: values[c][i] for c in columns})

    def column(self, name: str, column: str, keys: Sequence[str]) -> np.ndarray:
        """Values of one column for ``keys`` (every key must be present)."""
        unit = self.units[name]
        j = unit.columns.index(column)
        col = unit.values[j]
        return np.array([col[unit.index[k]] for k in keys], dtype=float)

    def save(self, meta: Mapping[str, Any], tables: Mapping[str, Any] | None = None,
             path: Path | None = None) -> None:
        """Write units (and, when given, the score tables) to ``path`` or the store's path."""
        target = Path(path or self.path)  # type: ignore[arg-type]
        arrays: dict[str, np.ndarray] = {}
        specs = []
        for n, (name, unit) in enumerate(sorted(self.units.items())):
            keys = sorted(unit.index, key=unit.index.__getitem__)
            arrays[f"cache/{n}/keys"] = np.array(keys, dtype=f"U{KEY_CHARS}")
            arrays[f"cache/{n}/values"] = (np.column_stack([np.asarray(v, dtype=float)
                                                            for v in unit.values])
                                           if keys else np.zeros((0, len(unit.columns))))
            specs.append({"name": name, "columns": list(unit.columns), "rows": len(keys)})
        for dataset, table in (tables or {}).items():
            arrays[f"{dataset}/target"] = table.target
            arrays[f"{dataset}/problem"] = table.problem
            for col, values in table.columns.items():
                arrays[f"{dataset}/col/{col}"] = values
        full_meta = {**meta, "units": specs, "unit_seconds": dict(self.seconds),
                     "scoring_runs": list(self.runs)}
        with replacing(target) as handle:  # never over a device, a FIFO or through a link
            np.savez_compressed(handle, __meta__=np.array(json.dumps(full_meta)), **arrays)

    def rows(self) -> int:
        """Stored rows over all units."""
        return sum(len(u.index) for u in self.units.values())
