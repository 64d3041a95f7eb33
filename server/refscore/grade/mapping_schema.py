"""The keys a mapping file's problem may have, and their types.

A value of the wrong type (``reference = 3``, ``per_folder = "maybe"``) is one clear error that
names the file, the problem and the key, before anything is read or scored; an unknown key is a
note (it is ignored), so that a typo such as ``submission =`` does not go unnoticed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..errors import InputFileError
from .classroom_choices import RESUBMISSION_POLICIES

TEXT = "a string"
PATHS = "a path or a list of paths"
FLAG = "true or false"

#: Every key a problem may have -> what its value must be.
KEYS: dict[str, str] = {
    "name": TEXT, "reference": PATHS, "references": PATHS, "context": TEXT, "context_file": TEXT,
    "language": TEXT, "submissions": PATHS, "pattern": TEXT, "per_folder": FLAG,
    # classroom inputs (``classroom``): the class's layout, which of a student's files are this
    # problem's, the starter code handed out for it
    "layout": TEXT, "files": PATHS, "starter": PATHS,
    # a Canvas file handed in again (``name-1.py``): the latest version is graded, or the best
    "resubmissions": TEXT,
    # behaviour: the problem's inputs file (calls, or program-mode standard inputs), instead of --inputs
    "inputs": TEXT,
}
LAYOUT_CHOICES = ("auto", "moodle", "canvas", "gradescope", "github-classroom", "plain")
RESUBMISSION_CHOICES = RESUBMISSION_POLICIES


def _fits(value: Any, kind: str) -> bool:
    if kind == TEXT:
        return isinstance(value, str)
    if kind == FLAG:
        return isinstance(value, bool)
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


def problem_where(mapping: Path, index: int, entry: Mapping[str, Any]) -> str:
    """``class.toml: problem 2 ('sum')``: where an error in a problem is."""
    name = entry.get("name")
    return f"{mapping}: problem {index}" + (f" ({name!r})" if isinstance(name, str) and name else "")


def check_problem(entry: Mapping[str, Any], mapping: Path, index: int) -> list[str]:
    """Raise InputFileError for a value of the wrong type; return notes about unknown keys."""
    notes = []
    for key, value in entry.items():
        kind = KEYS.get(key)
        if kind is None:
            notes.append(f"{problem_where(mapping, index, entry)}: unknown key {key!r} ignored "
                         f"(known: {', '.join(KEYS)})")
        elif not _fits(value, kind):
            raise InputFileError(f"{problem_where(mapping, index, entry)}: {key!r} must be {kind}, not {value!r}")
    if entry.get("layout") is not None and entry["layout"] not in LAYOUT_CHOICES:
        raise InputFileError(f"{problem_where(mapping, index, entry)}: 'layout' must be one of "
                             f"{', '.join(LAYOUT_CHOICES)}, not {entry['layout']!r}")
    if entry.get("resubmissions") is not None and entry["resubmissions"] not in RESUBMISSION_CHOICES:
        raise InputFileError(f"{problem_where(mapping, index, entry)}: 'resubmissions' must be one of "
                             f"{', '.join(RESUBMISSION_CHOICES)}, not {entry['resubmissions']!r}")
    if not entry.get("reference") and not entry.get("references"):
        raise InputFileError(f"{problem_where(mapping, index, entry)}: no 'reference' (every problem needs the "
                             "path of its reference solution)")
    return notes


def csv_flag(value: str, key: str, mapping: Path, index: int, true_words: frozenset[str],
             false_words: frozenset[str]) -> bool:
    """A CSV cell read as a flag (``yes``/``no``, ``true``/``false``, ``1``/``0``, empty = false)."""
    word = value.strip().lower()
    if word in true_words:
        return True
    if word in false_words:
        return False
    raise InputFileError(f"{mapping}: problem {index}: {key!r} must be yes or no (true/false, 1/0), not {value!r}")
