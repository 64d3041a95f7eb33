"""Gradescope's "Export Submissions": a folder per submission (``submission_123456/``) and
``submission_metadata.yml`` naming who submitted each (``submission_123456: {":submitters:":
[{":name:", ":sid:", ":email:"}], ":created_at:", ...}``, as Gradescope writes it; a
``submission_metadata.yml`` inside each folder, for that folder, is read too). The student id is
the SID, else the e-mail, else the submission id; ``late`` is the metadata's ``:late:`` flag
where it has one. A group submission is graded once, under its first submitter (the others are
named in a note). The metadata is read with ``yaml.safe_load`` (no object tags).

The autograder's own folder, ``/autograder/submission`` (the student's files as they handed them
in, no ``submission_N`` folders, no metadata inside), is one submission: each problem takes its
file by the usual rules (``assign``: a file named after the problem or its reference), no
``pattern`` needed. The student is named by ``/autograder/submission_metadata.json`` beside it
where it is there (``users[0]``: ``name``, ``sid``, else ``email``; late when ``created_at`` is
after ``assignment.due_date``), else ``submission``."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence

from ..safe_read import read_capped

from .common import SKIP, group, top
from .model import ClassInput, Student
from .safe_zip import Entry

LAYOUT = "gradescope"
METADATA = "submission_metadata.yml"


def matches(names: Sequence[str]) -> bool:
    """True when the export's metadata file is there (at the top or in submission folders)."""
    return any(n == METADATA or (n.count("/") == 1 and n.endswith("/" + METADATA)) for n in names)


def _key(text: Any) -> str:
    return str(text).strip(":").strip()


def _get(data: Any, key: str) -> Any:
    """``data[key]`` where Gradescope writes it as a Ruby symbol (``:name:``) or plainly. Only
    the keys asked for are looked at: a YAML of nested aliases (a "billion laughs") is never walked."""
    if not isinstance(data, dict):
        return None
    for name, value in data.items():
        if _key(name) == key:
            return value
    return None


def _load(entry: Entry, notes: list[str]) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load((entry.data or b"").decode("utf-8-sig"))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as error:
        notes.append(f"{entry.origin or entry.name}: not readable YAML ({str(error).splitlines()[0]}); "
                     "students named by folder")
        return {}
    return {_key(k): v for k, v in data.items()} if isinstance(data, dict) else {}


def read(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students and files of a Gradescope export, or the one submission of an autograder run."""
    if is_one_submission([e.name for e in entries]):
        return read_one(entries, source)
    notes: list[str] = []
    meta: dict[str, Any] = {}
    for entry in entries:
        head, rest = top(entry.name)
        if entry.error is None and entry.name == METADATA:
            meta.update(_load(entry, notes))
        elif entry.error is None and rest == METADATA:
            meta[head] = _load(entry, notes)
    students = {folder: _student(folder, info, notes) for folder, info in meta.items() if isinstance(info, dict)}

    def split(entry: Entry) -> tuple[Student, str, bool | None] | str | None:
        head, rest = top(entry.name)
        if entry.name == METADATA or rest == METADATA:
            return SKIP
        if not rest:
            return None
        student, late = students.get(head, (Student(head, head.removeprefix("submission_")), None))
        return student, rest, late

    result = group(entries, split, LAYOUT, source)
    result.notes[:0] = notes
    return result


def _student(folder: str, info: dict[str, Any], notes: list[str]) -> tuple[Student, bool | None]:
    submitters = _get(info, "submitters") or []
    first = submitters[0] if isinstance(submitters, list) and submitters and isinstance(submitters[0], dict) else {}
    if isinstance(submitters, list) and len(submitters) > 1:
        others = ", ".join(_text(_get(s, "name")) or "?" for s in submitters[1:20])
        notes.append(f"{folder}: a group submission, graded under {_text(_get(first, 'name')) or folder} "
                     f"(also: {others})")
    name = _text(_get(first, "name")) or folder
    email = _text(_get(first, "email"))
    sid = _text(_get(first, "sid")) or email or folder.removeprefix("submission_")
    late = _get(info, "late")
    return Student(name, sid, email), late if isinstance(late, bool) else None


def _text(value: Any) -> str | None:
    """A scalar metadata value as text (a list or mapping where a name belongs: None)."""
    return str(value).strip() or None if isinstance(value, (str, int, float)) and not isinstance(value, bool) \
        else None


#: The autograder's metadata file, beside its ``submission`` folder.
AUTOGRADER_METADATA = "submission_metadata.json"
_EXPORT_FOLDER = re.compile(r"^submission_\d+$")


def is_one_submission(names: Sequence[str]) -> bool:
    """True when the names are one student's files (no export metadata, no ``submission_N``)."""
    return not matches(names) and not any(_EXPORT_FOLDER.match(top(n)[0]) and top(n)[1] for n in names)


def read_one(entries: Sequence[Entry], source: str) -> ClassInput:
    """The autograder's ``submission`` folder as one submission (module docstring)."""
    notes: list[str] = []
    student, days = _autograder_student(Path(source).parent / AUTOGRADER_METADATA, notes)
    late = None if days is None else days > 0
    result = group(entries, lambda entry: (student, entry.name, late), LAYOUT, source)
    result.submissions = [replace(s, days_late=days) for s in result.submissions]
    result.notes[:0] = notes
    return result


def _autograder_student(path: Path, notes: list[str]) -> tuple[Student, float | None]:
    """The submitter and days late of ``submission_metadata.json`` (``submission`` without it)."""
    if not path.is_file():
        return Student("submission"), None
    try:
        data = json.loads(read_capped(path, 1 << 20).decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError) as error:
        notes.append(f"{path}: not readable JSON ({error}); the submission is named 'submission'")
        return Student("submission"), None
    users = data.get("users") if isinstance(data, dict) else None
    first = users[0] if isinstance(users, list) and users and isinstance(users[0], dict) else {}
    name, email = _text(first.get("name")), _text(first.get("email"))
    sid = _text(first.get("sid")) or email or _text(first.get("id"))
    student = Student(name or sid or "submission", sid, email)
    return student, _late(data.get("created_at"), (data.get("assignment") or {}).get("due_date")
                          if isinstance(data.get("assignment"), dict) else None)


def _late(created: Any, due: Any) -> float | None:
    """The days from ``due`` to ``created`` (ISO 8601; 0 when on time); None when either is
    missing or unreadable."""
    try:
        if not (created and due):
            return None
        late = datetime.fromisoformat(str(created)) - datetime.fromisoformat(str(due))
    except (ValueError, TypeError):
        return None
    return max(0.0, late.total_seconds() / 86400)
