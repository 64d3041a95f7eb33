"""Where something above the grader plugs in: the named points at which ``run`` calls out.

The grader never imports ``refscore.classroom``; the command layer (``commands/grade.py``) builds
``refscore.classroom.hooks.classroom_hooks`` and puts it in the job (``GradeJob.hooks``). A job
without hooks (``dataset.grade_dataset``) runs the plain grader: no input is a class, nothing is
written besides the reports. The points, in the order of a run:

1. ``classes`` (reading the inputs): which SUBMISSION arguments are classes, a class's items for
   its problems (``ClassProblem``), the roster they are checked against;
2. ``outputs`` and ``folders`` (before anything is read): the files and folders written besides
   the reports, checked and locked with them;
3. ``start`` (before scoring): refuse a run the outputs cannot be written for, pseudonymise the
   items; it gives the run's ``ClassroomRun``;
4. ``ClassroomRun.page`` (writing the reports): the HTML page's extra sections;
5. ``ClassroomRun.end`` (after the reports): grade books, feedback pages, the pseudonym key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from .. import languages
from ..errors import UsageError
from .classroom_choices import RESUBMISSION_POLICIES
from .items import ItemSet

if TYPE_CHECKING:
    from .assemble import Assembled
    from .discover import Problem
    from .parts import PartStore
    from .plan import Plan
    from .starter import Starter

#: ``assemble``'s ``students``: the HTML page's extra sections from the rows and details.
PageExtras = Callable[[Sequence[dict[str, Any]], Sequence[Any]], str]


@dataclass(frozen=True)
class ClassProblem:
    """A problem graded from a class: its references (``discover.Problem``), file patterns and
    starter code."""

    problem: Problem
    patterns: tuple[str, ...] = ()
    starter: Starter | None = None
    #: which version of a file handed in again is graded (``refscore.classroom.resubmissions``)
    resubmissions: str = RESUBMISSION_POLICIES[0]

    @property
    def name(self) -> str | None:
        return self.problem.name

    def takes(self, language: str | None) -> bool:
        """Whether a file in ``language`` can be graded for this problem."""
        return language is not None and self.problem.language is not None and \
            languages.get(self.problem.language).takes(language)


class ClassReader(Protocol):
    """Point 1: classes among the inputs (an LMS's download, a zip archive)."""

    def load_roster(self, path: str) -> Any:
        """The students expected (``--roster``), as ``read`` takes them."""

    def split(self, arguments: Sequence[str | Path], layout: str | None,
              folders: bool = False) -> tuple[list[Path], list[str | Path]]:
        """(the classes among ``arguments``, the rest as given); ``folders``: a roster was given."""

    def read(self, source: Path, layout: str | None, problems: Sequence[ClassProblem], roster: Any,
             skip: Sequence[str | Path] = ()) -> ItemSet:
        """The items of one class for ``problems``, its report in ``ItemSet.classes``."""


class ClassroomRun(Protocol):
    """Points 4 and 5: one run's classroom side, from ``GradeHooks.start``."""

    writes: bool  # ``end`` writes outputs from the rows (the reports hand every row back for it)

    def page(self, info: dict[str, Any], html: Path | None) -> PageExtras | None:
        """The HTML page's extra sections (None: none)."""

    def end(self, done: Assembled, held_back: bool, elapsed: float, say: bool, store: PartStore,
            plan: Plan) -> tuple[Any, bool]:
        """Write the outputs after the reports (only the pseudonym key when ``held_back``: rows
        that are not grades); (what was written: its ``written`` files, ``passed`` (the pass mark,
        None: none), ``pages`` (a folder the summary counts in one line); whether Ctrl-C came
        while writing)."""


class GradeHooks(Protocol):
    """Everything a plug-in offers the grader (module docstring)."""

    classes: ClassReader
    needs_details: bool  # the outputs show each submission's texts and full report

    def outputs(self) -> dict[str, Path]:
        """Option name -> file written besides the reports (point 2)."""

    def folders(self) -> list[Path]:
        """Folders written besides the reports' (point 2)."""

    def start(self, items: ItemSet) -> ClassroomRun | None:
        """Point 3, before scoring (one-line errors); None: nothing more to do in this run."""


class NoClasses:
    """The plain grader's reader: no input is a class, and no roster applies."""

    def load_roster(self, path: str) -> Any:
        raise UsageError(f"--roster {path}: this run reads no class (the classroom is not plugged in)")

    def split(self, arguments: Sequence[str | Path], layout: str | None,
              folders: bool = False) -> tuple[list[Path], list[str | Path]]:
        return [], list(arguments)

    def read(self, source: Path, layout: str | None, problems: Sequence[ClassProblem], roster: Any,
             skip: Sequence[str | Path] = ()) -> ItemSet:
        raise UsageError(f"{source}: this run reads no class (the classroom is not plugged in)")


NO_CLASSES = NoClasses()


@dataclass(frozen=True)
class PlainGrader:
    """No plug-in: nothing is a class, nothing is written besides the reports."""

    classes: ClassReader = NO_CLASSES
    needs_details: bool = False

    def outputs(self) -> dict[str, Path]:
        return {}

    def folders(self) -> list[Path]:
        return []

    def start(self, items: ItemSet) -> ClassroomRun | None:
        return None


PLAIN = PlainGrader()
