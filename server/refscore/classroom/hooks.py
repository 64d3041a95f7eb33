"""The classroom as the grader's plug-in (``grade.hooks``): classes among the inputs, the
outputs besides the reports (``outputs.ClassroomOutputs``), pseudonyms, the page's Class and
Students sections, the grade books and feedback pages at the end (``end``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..grade.hooks import ClassProblem, ClassroomRun, PageExtras
from ..grade.items import ItemSet

if TYPE_CHECKING:
    from ..grade.assemble import Assembled
    from ..grade.parts import PartStore
    from ..grade.plan import Plan
    from .outputs import ClassroomOutputs


class Classes:
    """Hook 1: classes among the inputs (``sources``), checked against a roster (``roster``)."""

    def load_roster(self, path: str) -> Any:
        from .roster import load_roster

        return load_roster(path)

    def split(self, arguments: Sequence[str | Path], layout: str | None,
              folders: bool = False) -> tuple[list[Path], list[str | Path]]:
        from .sources import split_classes

        return split_classes(arguments, layout, folders)

    def read(self, source: Path, layout: str | None, problems: Sequence[ClassProblem], roster: Any,
             skip: Sequence[str | Path] = ()) -> ItemSet:
        from .sources import grade_class

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
        from .html import class_section
        from .teacher_html import teacher_table

        section = class_section(info.get("classes", []))
        table = teacher_table(self.out, html, info)
        return lambda rows, details=(): section + (table(rows, details) if table is not None else "")

    def end(self, done: Assembled, held_back: bool, elapsed: float, say: bool, store: PartStore,
            plan: Plan) -> tuple[Any, bool]:
        if self.out is None:
            return None, False
        from .end import write_outputs

        written, stopped = write_outputs(self.out, done, self.key, elapsed, say, store, plan, held_back)
        written.pages = self.out.feedback
        return written, stopped


def classroom_hooks(out: ClassroomOutputs | None) -> ClassroomHooks:
    """The plug-in ``commands/grade.py`` puts in every job it builds."""
    return ClassroomHooks(out)
