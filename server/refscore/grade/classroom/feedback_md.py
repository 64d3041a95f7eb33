"""A student's feedback as Markdown (for an LMS comment box, an e-mail or a GitHub issue)."""

from __future__ import annotations

from ...bidi import reveal
from ..heatmap import NOTE_KINDS
from ..rows import LABELS
from .feedback import ProblemFeedback, StudentFeedback


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _plain(text: str) -> str:
    """One line of text with bidi controls shown as ``<U+202E>`` and Markdown's specials escaped."""
    shown = reveal(" ".join(text.split()))
    return "".join("\\" + c if c in "\\`*[]<>#|" else c for c in shown)


def feedback_markdown(page: StudentFeedback) -> str:
    """The whole Markdown document."""
    student = page.student
    out = [f"# {_plain(page.title)}: feedback for {_plain(student.name)}", "",
           f"**Total: {student.total:g} of {page.max_total:g} points**", ""]
    for adjustment in student.total_adjustments:
        out += [f"Your teacher adjusted the total by {adjustment.shown()}"
                + (f": {_plain(adjustment.comment)}" if adjustment.comment else ""), ""]
    for problem in page.problems:
        out += problem_markdown(problem)
    out += ["_The scores compare your code with a reference solution. A correct solution written in another way "
            "can score lower; your teacher reads the code too._", ""]
    return "\n".join(out)


def problem_markdown(view: ProblemFeedback) -> list[str]:
    grade = view.grade
    out = [f"## {_plain(grade.problem or 'submission')}: {grade.points:g} of {grade.max_points:g} points", ""]
    if view.scores:
        scores = ", ".join(f"{LABELS.get(k, k)} {view.score_text(k, v)}" for k, v in view.scores.items())
        out += [scores + (f" ({_plain(grade.rule)})" if grade.rule else ""), ""]
    lines = [*grade.notes, *(f"adjusted by your teacher: {a.shown()}" + (f": {a.comment}" if a.comment else "")
                             for a in grade.adjustments),
             *(f"{NOTE_KINDS['error']}{m}" for m in view.messages), *(f"{NOTE_KINDS['warning']}{m}" for m in view.warnings)]
    out += [f"- {_plain(line)}" for line in lines] + ([""] if lines else [])
    if view.code is not None:
        lines = view.code.split("\n")
        first = next((i for i, line in enumerate(lines) if line.strip()), 0)
        shown = "\n".join(lines[first:]).rstrip()
        fence = _fence(shown)
        note = [f"Lines 1 to {first} are blank or the starter code you were given (not shown); this is line "
                f"{first + 1} on.", ""] if first and not view.cells else []
        if view.cells:
            note = ["Your notebook's code cells, one after another (markdown cells and the starter code are left "
                    "out); the remarks name cell and line.", ""]
        out += ["### Your code", "", *note, fence, reveal(shown), fence, ""]
        if view.remarks:
            out += ["### What the reference has that yours lacks", ""]
            out += [f"{n}. {_plain(r.text)}" for n, r in enumerate(view.remarks, 1)] + [""]
    for name, text in view.references:
        fence = _fence(text)
        out += [f"### Reference: {_plain(name)}", "", fence, reveal(text).rstrip("\n"), fence, ""]
    return out
