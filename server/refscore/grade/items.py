"""What the grader scores: one ``GradeItem`` per submission, already read from disk.

An item carries its texts (never a path to read later) so that scoring, caching and reporting
work the same for files, mapping files and JSONL. An item that could not be read keeps its
``error`` and is reported, never scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..bidi import readable


@dataclass
class GradeItem:
    """One submission: its id, the candidate text, the references, language and context."""

    id: str
    candidate: str | None
    references: tuple[str, ...]
    language: str | None
    context: str | None = None
    problem: str | None = None
    source: str | None = None  # where the candidate came from (path or "file.jsonl:line")
    reference_names: tuple[str, ...] = ()
    error: str | None = None
    # from a classroom export (``classroom.model``): who handed it in, and the LMS's late mark
    student: str | None = None
    student_id: str | None = None
    late: bool | None = None
    # a notebook: (cell number, first line in ``candidate``, lines) per code cell (``classroom.notebook``)
    cells: tuple[tuple[int, int, int], ...] | None = None
    reference_cells: tuple[tuple[tuple[int, int, int], ...] | None, ...] | None = None  # the same, per reference
    extra: dict[str, Any] = field(default_factory=dict)  # other input fields, passed to the reports
    input_id: int | None = None  # the input's ``id`` when it is an integer (reports keep it one)
    #: behaviour's inputs file, its text, for this item alone (a mapping problem's ``inputs``, a
    #: JSONL row's ``inputs`` field); None: the run's ``--inputs`` (``settings.request_for``)
    inputs: str | None = None

    @property
    def scorable(self) -> bool:
        """True when the item has everything needed to be scored."""
        return self.error is None and self.candidate is not None and bool(self.references) \
            and self.language is not None


@dataclass
class ItemSet:
    """The items of a run, in order, with notes about inputs that yielded nothing."""

    items: list[GradeItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    classes: list[dict[str, Any]] = field(default_factory=list)  # per class read: ``classroom.assign.ClassReport``
    problem_errors: list[str] = field(default_factory=list)  # one line per problem nothing can be graded for
    #: a mapping problem's own starter code (its ``starter =``), by problem name: the similarity's
    starters: dict[str | None, tuple[str, ...]] = field(default_factory=dict)

    def extend(self, other: "ItemSet") -> None:
        """Append another set's items, notes and class reports."""
        self.items.extend(other.items)
        self.notes.extend(other.notes)
        self.classes.extend(other.classes)
        self.problem_errors.extend(other.problem_errors)
        self.starters.update(other.starters)


#: The report field of a version of a file handed in again (``refscore.classroom.resubmissions``),
#: and how the latest version's value ends.
RESUBMISSION_FIELD = "resubmission"
LATEST_MARK = " (the latest)"


def earlier_version(item: GradeItem) -> bool:
    """Whether ``item`` is a version of a resubmitted file that is not the latest (``best``):
    the similarity report compares only the latest, never a student with their own work."""
    label = item.extra.get(RESUBMISSION_FIELD)
    return isinstance(label, str) and not label.endswith(LATEST_MARK)


def with_readable_names(item: GradeItem) -> GradeItem:
    """The item with its id, problem, source, reference names and error made writable
    (``readable``): a file name that is not UTF-8 never stops the reports."""
    item.id = readable(item.id)
    item.problem = None if item.problem is None else readable(item.problem)
    item.source = None if item.source is None else readable(item.source)
    item.error = None if item.error is None else readable(item.error)
    item.reference_names = tuple(readable(name) for name in item.reference_names)
    item.extra = _readable_value(item.extra)
    return item


def _readable_value(value: Any) -> Any:
    """A passed-through JSON value with every text in it (names too) ``readable``."""
    if isinstance(value, str):
        return readable(value)
    if isinstance(value, list):
        return [_readable_value(v) for v in value]
    if isinstance(value, dict):
        return {readable(str(k)): _readable_value(v) for k, v in value.items()}
    return value
