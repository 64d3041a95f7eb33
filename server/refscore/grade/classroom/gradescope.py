"""Gradescope's "Export Submissions": a folder per submission (``submission_123456/``) and
``submission_metadata.yml`` naming who submitted each (``submission_123456: {":submitters:":
[{":name:", ":sid:", ":email:"}], ":created_at:", ...}``, as Gradescope writes it; a
``submission_metadata.yml`` inside each folder, for that folder, is read too). The student id is
the SID, else the e-mail, else the submission id; ``late`` is the metadata's ``:late:`` flag
where it has one. A group submission is graded once, under its first submitter (the others are
named in a note). The metadata is read with ``yaml.safe_load`` (no object tags)."""

from __future__ import annotations

from typing import Any, Sequence

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


def _plain(data: Any) -> Any:
    """The metadata with Ruby-symbol keys (``:name:``) as plain ones (``name``)."""
    if isinstance(data, dict):
        return {_key(k): _plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    return data


def _load(entry: Entry, notes: list[str]) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load((entry.data or b"").decode("utf-8-sig"))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as error:
        notes.append(f"{entry.origin or entry.name}: not readable YAML ({str(error).splitlines()[0]}); "
                     "students named by folder")
        return {}
    return _plain(data) if isinstance(data, dict) else {}


def read(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students and files of a Gradescope export."""
    notes: list[str] = []
    meta: dict[str, Any] = {}
    for entry in entries:
        head, rest = top(entry.name)
        if entry.error is None and entry.name == METADATA:
            meta.update(_load(entry, notes))
        elif entry.error is None and rest == METADATA:
            meta[head] = _load(entry, notes)
    students = {folder: _student(folder, info, notes) for folder, info in meta.items() if isinstance(info, dict)}

    def split(entry: Entry) -> tuple[Student, str, bool] | str | None:
        head, rest = top(entry.name)
        if entry.name == METADATA or rest == METADATA:
            return SKIP
        if not rest:
            return None
        student, late = students.get(head, (Student(head, head.removeprefix("submission_")), False))
        return student, rest, late

    result = group(entries, split, LAYOUT, source)
    result.notes[:0] = notes
    return result


def _student(folder: str, info: dict[str, Any], notes: list[str]) -> tuple[Student, bool]:
    submitters = info.get("submitters") or []
    first = submitters[0] if isinstance(submitters, list) and submitters and isinstance(submitters[0], dict) else {}
    if isinstance(submitters, list) and len(submitters) > 1:
        others = ", ".join(str(s.get("name", "?")) for s in submitters[1:] if isinstance(s, dict))
        notes.append(f"{folder}: a group submission, graded under {first.get('name', folder)} (also: {others})")
    name = str(first.get("name") or folder)
    sid = first.get("sid") or first.get("email") or folder.removeprefix("submission_")
    email = first.get("email")
    return Student(name, str(sid), str(email) if email else None), bool(info.get("late", False))
