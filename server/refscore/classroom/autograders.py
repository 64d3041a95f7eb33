"""What an autograder step reads: Gradescope's ``results.json`` and GitHub Classroom's summary.

* Gradescope runs the autograder once per submission and reads
  ``/autograder/results/results.json`` (its documented format: ``score``, ``output``,
  ``visibility``, ``stdout_visibility`` and ``tests[]`` with ``name``, ``score``, ``max_score``,
  ``output``, ``visibility``). One test per problem; each test's output is the student's
  Markdown feedback for that problem at the run's ``--reveal`` level.
* GitHub Classroom's autograding reporter reads a runner's result: ``{"version": 1, "status",
  "max_score", "tests": [{"name", "status", "score", "message"}]}``; the command exits 0 when the
  student reaches the rubric's ``pass`` share of the points (``autograding-command-grader``
  awards a step's points on exit 0).
"""

from __future__ import annotations

from typing import Any

from .feedback import StudentFeedback
from .feedback_md import problem_markdown
from .gradebook import Gradebook, StudentGrade


def gradescope_results(book: Gradebook, page: StudentFeedback, visibility: str = "visible",
                       elapsed: float | None = None) -> dict[str, Any]:
    """``results.json`` for the one student of a Gradescope run."""
    student = page.student
    tests = []
    for number, view in enumerate(page.problems, 1):
        grade = view.grade
        tests.append({"name": grade.problem or "submission", "number": str(number), "score": grade.points,
                      "max_score": grade.max_points, "output": "\n".join(problem_markdown(view)[2:]).strip(),
                      "output_format": "md", "visibility": visibility})
    out: dict[str, Any] = {
        "score": student.total,
        "output": f"RefScore: {student.total:g} of {book.max_total:g} points, {_from_what(student)}.",
        "output_format": "md", "visibility": visibility, "stdout_visibility": "hidden", "tests": tests,
        "extra_data": {"refscore": {"student": student.key, "max_total": book.max_total}},
    }
    if elapsed is not None:
        out["execution_time"] = round(elapsed, 3)
    return out


def _from_what(student: StudentGrade) -> str:
    """Where the points came from, in a student's words."""
    late = sum(g.late_points for g in student.problems.values())
    said = ", less " + f"{late:g} for handing in late" if late else ""
    if any(g.behaviour_max for g in student.problems.values()):
        return ("most from what your code does (run beside a reference solution on many inputs), the rest from how "
                "closely it resembles that solution" + said)
    return ("from the similarity of your code to a reference solution (a correct solution written another way can "
            "score lower)" + said)


def classroom_summary(book: Gradebook) -> tuple[dict[str, Any], bool]:
    """The runner result for GitHub Classroom (one student: their repository) and whether every
    student reaches the rubric's ``pass`` share of the points."""
    need = book.rubric.pass_share * book.max_total
    passed = all(s.total >= need - 1e-9 for s in book.students) and bool(book.students)
    tests = []
    for student in book.students:
        for grade in student.problems.values():
            name = grade.problem if len(book.students) == 1 else f"{student.key}: {grade.problem}"
            tests.append({"name": name or "submission", "status": "pass" if grade.points > 0 else "fail",
                          "score": grade.points, "max_score": grade.max_points, "message": grade.summary()})
    summary = {"version": 1, "status": "pass" if passed else "fail", "max_score": book.max_total,
               "score": sum(s.total for s in book.students), "pass_points": round(need, 6),
               "students": [{"student": s.key, "total": s.total, "max_total": book.max_total,
                             "passed": s.total >= need - 1e-9} for s in book.students],
               "tests": tests}
    return summary, passed
