"""The classroom's sections of the grade report (``grade.html``): the Class section (each class
read, its students, the roster's missing students and the files that matched no problem: ``run``
puts them in ``settings["classes"]``), and the teacher's table: one row per student with the total,
each problem's points (how the rubric gave them in the tooltip), what behaviour found, whether the
hand-in was late, one click to the student's feedback page and to each of their similarity pairs.

Built from the same rows, rubric and adjustments as the grade books (``gradebook``), so the page
and the uploads never disagree. An interrupted run shows no points (its rows are not grades).
Below it, the students who fail in the same way (``same_failures``): in one problem, the same
wrong answers (the same inputs, the same wrong outputs: every counter-example behaviour kept, or
the first where only the rows are at hand) and the same number of inputs agreed on. A signal beside
the similarity (two students whose code looks different but breaks identically), never a verdict:
a common mistake is common.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..grade.heatmap import heat_color, safe_attr, safe_text
from .assign import headcount

if TYPE_CHECKING:  # the grade books load only for a run with a rubric
    from .gradebook import Gradebook, StudentGrade

#: How a row's ``behaviour_note`` starts when the code got an input wrong (``Disagreement.line``).
DIFFERS = "differs on "


def class_section(classes: Sequence[dict[str, Any]]) -> str:
    """One short section per class; '' when the run read none."""
    out = []
    for info in classes:
        out.append(f'<section class="class"><h2>Class: {safe_text(str(info.get("source", "")))}</h2><p>'
                   f'layout {safe_text(str(info.get("layout", "")))} &middot; {safe_text(headcount(info))}'
                   f' &middot; {int(info.get("refused_entries", 0))} entries refused</p>')
        for key, label in (("missing_students", "On the roster, handed nothing in"),
                           ("not_on_roster", "Not on the roster (graded)"),
                           ("unmatched_files", "Files that matched no problem (not graded)")):
            names = info.get(key) or []
            if names:
                items = "".join(f"<li>{safe_text(str(n))}</li>" for n in names)
                out.append(f'<h3>{label} ({len(names)})</h3><ul class="{key}">{items}</ul>')
        out.append("</section>")
    return "".join(out)


def teacher_table(out: Any, html: Path | None,
                  info: dict[str, Any]) -> Callable[[Sequence[dict[str, Any]], Sequence[Any]], str] | None:
    """``assemble``'s ``students``: the table of ``out`` (``ClassroomOutputs``; None, or no rubric:
    no table) for the rows, linking from the page at ``html`` to the feedback folder and the
    similarity page."""
    if out is None or out.rubric is None:
        return None

    def build(rows: Sequence[dict[str, Any]], details: Sequence[Any] = ()) -> str:
        from ..grade.targets import is_stream
        from .adjustments import read_adjustments
        from .gradebook import build_gradebook
        from .outputs import feedback_stems

        if not rows:
            return ""
        scored = {str(r.get("problem") or "") for r in rows if _scored(r)}
        empty = sorted({str(r.get("problem") or "") for r in rows} - scored)
        if info.get("interrupted") or empty:  # as the grade books: rows that are not grades show no points
            why = "the run was interrupted" if info.get("interrupted") else \
                f"nothing could be scored for {', '.join(e or 'the problem' for e in empty)}"
            return ('<section class="students"><h2>Students</h2><p class="warn">No points are shown (and no grade '
                    f"book was written): {safe_text(why)}. Rerun the same command once the notes say what to "
                    "fix.</p></section>")
        adjustments = read_adjustments(out.adjustments, out.adjustments_folder) if out.adjustments is not None else []
        roster = () if out.anonymise_key is not None else out.roster  # pseudonyms stay pseudonyms
        book = build_gradebook(rows, out.rubric, adjustments, roster,  # as ``write_classroom``'s
                               out.anonymise_key is not None)
        feedback = None
        if out.feedback is not None and html is not None and not is_stream(html):
            folder = Path(os.path.relpath(os.path.abspath(out.feedback), os.path.abspath(html.parent))).as_posix()
            feedback = {key: f"{folder}/{stem}.html" for key, stem in feedback_stems(book.students).items()}
        similarity = info.get("similarity") or {}
        return students_table(book, feedback, similarity.get("page"), _counter_examples(details))

    return build


def _counter_examples(details: Sequence[Any]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Row id -> every kept counter-example of its behaviour (input, what the code gave), from the
    details of a small run (none: the rows' first counter-example stands for them)."""
    out = {}
    for result, row in details:
        behaviour = result.report.behaviour if result.report is not None else None
        if behaviour is not None and behaviour.disagreements:
            out[str(row.get("id"))] = tuple((d.input, d.actual) for d in behaviour.disagreements)
    return out


def _scored(row: dict[str, Any]) -> bool:
    """Whether a row has any score (a run where none has is no grade book)."""
    from ..grade.rows import SCORE_COLUMNS

    return any(isinstance(row.get(c), (int, float)) and math.isfinite(row[c]) for c in SCORE_COLUMNS)


def students_table(book: Gradebook, feedback: dict[str, str] | None, similarity_page: str | None,
                   wrong: dict[str, tuple[tuple[str, str], ...]] | None = None) -> str:
    """The section: the book's notes, then one sortable row per student, then the students who
    failed in the same way (``wrong``: row id -> its counter-examples, where the details have them)."""
    from ..grade.similarity_report import submission_anchor

    problems = book.problems
    head = "".join(f"<th>{safe_text(p or 'points')} (of {book.rubric.scheme(p).points:g})</th>" for p in problems)
    out = ['<section class="students"><h2>Students</h2>',
           f'<p class="legend">{len(book.students):,} student{"s" * (len(book.students) != 1)}; points out of '
           f"{book.max_total:g} from the rubric{f' {safe_text(str(book.rubric.source.name))}' if book.rubric.source else ''}"
           " (the tooltip of each cell says how). Click a heading to sort.</p>"]
    out += [f'<p class="note">{safe_text(note)}</p>' for note in book.notes]
    out.append('<div class="tablewrap"><table class="sortable students" id="students"><thead><tr><th>Student</th>'
               f"<th>Total (of {book.max_total:g})</th>{head}<th>Late</th><th>Feedback and similarity</th></tr>"
               "</thead><tbody>")
    for student in book.students:
        out.append(_row(student, problems, book.max_total, feedback, similarity_page, submission_anchor))
    out.append("</tbody></table></div>")
    out.append(_same_failures(book, wrong or {}))
    out.append("</section>")
    return "".join(out)


@dataclass(frozen=True)
class SameFailure:
    """Two or more students of ``problem`` whose behaviour failed the same way."""

    problem: str
    note: str  # the first counter-example, as the grade report writes it
    agreed: int
    inputs: int
    students: tuple[str, ...]


def same_failures(rows: Sequence[dict[str, Any]], names: dict[str, str],
                  wrong: dict[str, tuple[tuple[str, str], ...]] | None = None) -> list[SameFailure]:
    """The groups in ``rows`` (``names``: row id -> the student's name; ``wrong``: row id -> every
    kept counter-example as (input, output)), largest first."""
    wrong = wrong or {}
    groups: dict[tuple[str, Any, int, int], list[str]] = {}
    notes: dict[tuple[str, Any, int, int], str] = {}
    for row in rows:
        note, share = row.get("behaviour_note"), row.get("behaviour")
        if not isinstance(note, str) or not note.startswith(DIFFERS) or not isinstance(share, (int, float)):
            continue
        key = (str(row.get("problem") or ""), wrong.get(str(row.get("id")), note),
               int(row.get("behaviour_agreed") or 0), int(row.get("behaviour_inputs") or 0))
        notes.setdefault(key, note)
        who = names.get(str(row.get("id")), str(row.get("id")))
        if who not in groups.setdefault(key, []):
            groups[key].append(who)
    found = [SameFailure(key[0], notes[key], key[2], key[3], tuple(who)) for key, who in groups.items() if len(who) > 1]
    return sorted(found, key=lambda group: (-len(group.students), group.problem, group.note))


def _same_failures(book: Gradebook, wrong: dict[str, tuple[tuple[str, str], ...]]) -> str:
    """The students who failed a problem in the same way (``same_failures``), as a signal."""
    names = {str(row.get("id")): student.name for student in book.students for row in student.rows}
    groups = same_failures([row for student in book.students for row in student.rows], names, wrong)
    if not groups:
        return ""
    items = "".join(f"<li>{safe_text(g.problem or 'the problem')}: {safe_text(', '.join(g.students))} &mdash; "
                    f"agree on {g.agreed:,} of {g.inputs:,} inputs and first {safe_text(g.note)}</li>" for g in groups)
    return ('<h3 id="same-failures">The same wrong behaviour</h3><p class="legend">Students whose code fails the '
            "same inputs with the same wrong answers and agrees on as many inputs: a signal to read beside the "
            f'similarity (a common mistake is common), never a verdict.</p><ul class="same-failures">{items}</ul>')


def _row(student: StudentGrade, problems: Sequence[str], max_total: float, feedback: dict[str, str] | None,
         page: str | None, anchor: Callable[[str | None, str], str]) -> str:
    share = student.total / max_total if max_total else 0.0
    ident = f"<small>{safe_text(student.student_id)}</small>" if student.student_id not in (None, student.name) else ""
    cells = [f'<tr data-student="{safe_attr(student.key)}"><td data-v="{safe_attr(student.name)}">'
             f"{safe_text(student.name)}{ident}</td>",
             f'<td class="num" data-v="{student.total:.6f}" style="background:{heat_color(share)}">'
             f"{student.total:g}</td>"]
    late = False
    for problem in problems:
        grade = student.problems.get(problem)
        if grade is None:
            cells.append('<td class="num" data-v="">&ndash;</td>')
            continue
        row = next((r for r in student.rows if str(r.get("id")) == grade.submission), None)
        extra = []
        if row is not None and isinstance(row.get("behaviour_inputs"), int):
            extra.append(f"behaviour {row.get('behaviour_agreed', 0)}/{row['behaviour_inputs']}")
        if row is not None and row.get("late"):
            late = True
            off = getattr(grade, "late_points", 0.0)
            extra.append(f"late, -{off:g}" if off else "late")
        small = f"<small>{safe_text(', '.join(extra))}</small>" if extra else ""
        cells.append(f'<td class="num" data-v="{grade.points:.6f}" title="{safe_attr(grade.summary())}">'
                     f"{grade.points:g}{small}</td>")
    late = late or any(r.get("late") for r in student.rows)
    cells.append(f'<td class="late" data-v="{int(late)}">late</td>' if late else '<td data-v="0"></td>')
    links = []
    if feedback is not None and student.key in feedback:
        links.append(f'<a href="{safe_attr(feedback[student.key])}">feedback</a>')
    if page:
        for row in student.rows:
            partners = [p for p in row.get("similar_to") or () if not str(p).startswith("and ")]
            if partners:  # one link per submission: its place on the similarity page lists every pair
                target = f"{page}#{anchor(row.get('problem'), str(row.get('id')))}"
                what = f"{len(partners)} similar" + (f" in {row['problem']}" if row.get("problem") else "")
                links.append(f'<a class="similar" href="{safe_attr(target)}">{safe_text(what)}</a>')
    cells.append(f'<td class="links" data-v="{len(links)}">{"".join(links)}</td></tr>')
    return "".join(cells)
