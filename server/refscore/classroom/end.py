"""The classroom outputs at the end of a run (grade books, feedback pages, the pseudonym key), or
why there are none: rows that are not grades (an interrupted run, a problem nothing could be
graded for, no row with a score) get no grade book or feedback page, which would hold zeros that
look like points; the pseudonym key alone is kept, so that a rerun gives the same pseudonyms.
Ctrl-C while they are written writes them again whole (a second Ctrl-C stops), as the reports
are: a folder never holds one run's feedback pages beside an earlier run's.
"""

from __future__ import annotations

from typing import Any

from ..grade.assemble import Assembled
from ..grade.parts import PartStore
from ..grade.plan import Plan
from ..grade.terminal import note


def write_outputs(classroom: Any, done: Assembled, key: Any, elapsed: float, say: bool, store: PartStore,
                  plan: Plan, held_back: bool) -> tuple[Any, bool]:
    """Write what ``classroom`` (``classroom.outputs.ClassroomOutputs``) asks for, or the key
    alone when ``held_back``; (the ``ClassroomResult``, whether Ctrl-C came while writing)."""
    if held_back:
        return key_only(classroom, key), False
    from .outputs import write_classroom

    stopped = False
    try:
        written = write_classroom(classroom, done.rows or [], done.details, key, elapsed)
    except KeyboardInterrupt:
        if say:
            note("interrupted while writing the grade books and feedback pages: writing them whole "
                 "(Ctrl-C again to stop)")
        stopped = True
        written = write_classroom(classroom, done.rows or [], done.details, key, elapsed)
    if say:
        for line in written.notes:
            note(line)
        if key is not None:
            _note_earlier_names(classroom, key, written.written, store, plan)
    return written, stopped


def key_only(classroom: Any, key: Any) -> Any:
    """The classroom outputs of a run whose rows are not grades: the pseudonym key alone."""
    from .anonymise import write_key
    from .outputs import ClassroomResult

    if key is None or classroom.anonymise_key is None:
        return ClassroomResult(None, [], [])
    write_key(classroom.anonymise_key, key)
    return ClassroomResult(None, [classroom.anonymise_key], [])


def _note_earlier_names(classroom: Any, key: Any, written: list[Any], store: PartStore, plan: Plan) -> None:
    """``--anonymise``: name the files an earlier run left in the graders' folder with real names."""
    from .anonymise import earlier_names_note

    stale = store.other_parts((block.index, block.key) for block in plan.blocks)
    line = earlier_names_note(key, classroom.graders, classroom.feedback, written, stale, store.folder)
    if line:
        note(line)
