"""The classroom as the grader's plug-in (``grade.hooks``): classes among the inputs, the
outputs besides the reports (``outputs.ClassroomOutputs``), pseudonyms, the page's Class and
Students sections, the grade books and feedback pages at the end (``outputs.write_outputs``).

An input is a class (read by a layout reader instead of file by file) when it is a ``.zip``
archive (or a glob that matches only zip archives), when a layout is named (``--layout``, a
mapping's ``layout`` key), or when it is a folder whose names are recognised as an LMS layout
(Moodle, Canvas, Gradescope, GitHub Classroom); a plain folder stays as before (a file per
submission, or ``--per-folder``) unless a layout or a roster is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..grade.globs import glob_paths, has_magic
from ..grade.hooks import ClassProblem, ClassroomRun, PageExtras
from ..grade.items import ItemSet
from .assign import class_items
from .layouts import detect, read_class
from .roster import RosterEntry, load_roster
from .tree import folder_names, is_archive

if TYPE_CHECKING:
    from ..grade.assemble import Assembled
    from ..grade.parts import PartStore
    from ..grade.plan import Plan
    from .outputs import ClassroomOutputs


def is_class(path: str | Path, layout: str | None, folders: bool = False) -> bool:
    """True when ``path`` is read as a class (module docstring); ``folders``: every folder is
    (a roster was given: a plain folder is then a folder per student)."""
    path = Path(path)
    if is_archive(path) and path.is_file():
        return True
    if not path.is_dir():
        return False
    return folders or bool(layout) or detect(folder_names(path)) != "plain"


def split_classes(arguments: Sequence[str | Path], layout: str | None,
                  folders: bool = False) -> tuple[list[Path], list[str | Path]]:
    """(the classes among ``arguments``, the rest as given). A glob whose matches are all zip
    archives (``downloads/*.zip``) names each as a class."""
    classes: list[Path] = []
    rest: list[str | Path] = []
    for argument in arguments:
        text = str(argument)
        matches = glob_paths(text) if has_magic(text) and not Path(text).exists() else []
        if matches and all(is_archive(m) and Path(m).is_file() for m in matches):
            classes.extend(Path(m) for m in matches)
        elif is_class(argument, layout, folders):
            classes.append(Path(argument))
        else:
            rest.append(argument)
    return classes, rest


def grade_class(path: str | Path, layout: str | None, problems: Sequence[ClassProblem],
                roster: Sequence[RosterEntry] | None, skip: Sequence[str | Path] = ()) -> ItemSet:
    """The items of one class for ``problems``, with its report in ``classes``."""
    cls = read_class(path, layout or "auto", skip)
    items, report = class_items(cls, problems, roster)
    items.notes.extend(report.notes())
    items.classes.append(report.to_dict())
    return items


class Classes:
    """Hook 1: classes among the inputs (``split_classes``), checked against a roster (``roster``)."""

    def load_roster(self, path: str) -> Any:
        return load_roster(path)

    def split(self, arguments: Sequence[str | Path], layout: str | None,
              folders: bool = False) -> tuple[list[Path], list[str | Path]]:
        return split_classes(arguments, layout, folders)

    def read(self, source: Path, layout: str | None, problems: Sequence[ClassProblem], roster: Any,
             skip: Sequence[str | Path] = ()) -> ItemSet:
        return grade_class(source, layout, problems, roster, skip)


@dataclass(frozen=True)
class ClassroomHooks:
    """``grade.hooks.GradeHooks`` for a run with ``out`` (None: no classroom output asked for)."""

    out: ClassroomOutputs | None = None
    classes: Classes = Classes()

    @property
    def needs_details(self) -> bool:
        return self.out is not None and self.out.needs_details

    def outputs(self) -> dict[str, Path]:
        return self.out.named_outputs() if self.out is not None else {}

    def folders(self) -> list[Path]:
        return [self.out.feedback] if self.out is not None and self.out.feedback else []

    def start(self, items: ItemSet) -> ClassroomRun:
        """Refuse what the outputs cannot be written for (``--gradescope`` and several students),
        before scoring; pseudonymise the items (``--anonymise``)."""
        key = None
        if self.out is not None:
            self.out.check_items(items.items)
            if self.out.anonymise_key is not None:
                from .anonymise import anonymise_items
                from .outputs import load_key

                key = load_key(self.out)
                anonymise_items(items, key)
        return Run(self.out, key)


@dataclass
class Run:
    """Hooks 4 and 5 of one run: the page's sections, the outputs after the reports."""

    out: ClassroomOutputs | None
    key: Any = None  # the run's pseudonym key (``anonymise``)

    @property
    def writes(self) -> bool:
        return self.out is not None

    def page(self, info: dict[str, Any], html: Path | None) -> PageExtras:
        """The Class section (each class read) and, with a rubric, the Students table."""
        from .teacher_html import class_section, teacher_table

        section = class_section(info.get("classes", []))
        table = teacher_table(self.out, html, info)
        return lambda rows, details=(): section + (table(rows, details) if table is not None else "")

    def end(self, done: Assembled, held_back: bool, elapsed: float, say: bool, store: PartStore,
            plan: Plan) -> tuple[Any, bool]:
        if self.out is None:
            return None, False
        from .outputs import write_outputs

        written, stopped = write_outputs(self.out, done, self.key, elapsed, say, store, plan, held_back)
        written.pages = self.out.feedback
        return written, stopped


def classroom_hooks(out: ClassroomOutputs | None) -> ClassroomHooks:
    """The plug-in ``commands/grade.py`` puts in every job it builds."""
    return ClassroomHooks(out)
