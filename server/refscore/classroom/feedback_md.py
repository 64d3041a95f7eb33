"""A student's feedback as Markdown (for an LMS comment box, an e-mail or a GitHub issue)."""

from __future__ import annotations

from ..bidi import reveal
from ..grade.heatmap import NOTE_KINDS
from ..grade.rows import LABELS
from .feedback import ProblemFeedback, StudentFeedback, empty_code_note
from .feedback_words import Part, points_words


def _longest_run(text: str) -> int:
    """The longest run of backticks in ``text``."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    return "`" * max(3, _longest_run(text) + 1)


def _plain(text: str) -> str:
    """One line of text with bidi controls shown as ``<U+202E>`` and Markdown's specials escaped."""
    return _escaped(" ".join(text.split()))


def _escaped(text: str) -> str:
    """``text`` with bidi controls shown and Markdown's specials escaped, its spaces kept."""
    return "".join("\\" + c if c in "\\`*[]<>#|" else c for c in reveal(text.replace("\n", " ")))


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
        out += [scores, ""]
    how = points_words(grade)
    out += [f"- {_plain(line)}" for line in how] + ([""] if how else [])
    lines = [*grade.notes, *(f"adjusted by your teacher: {a.shown()}" + (f": {a.comment}" if a.comment else "")
                             for a in grade.adjustments),
             *(f"{NOTE_KINDS['error']}{m}" for m in view.messages), *(f"{NOTE_KINDS['warning']}{m}" for m in view.warnings)]
    out += [f"- {_plain(line)}" for line in lines] + ([""] if lines else [])
    if view.behaviour:
        out += ["### What your code does", "", _plain(view.behaviour), ""]
        out += [f"- {_sentence(parts)}" for parts in view.counter_examples] + ([""] if view.counter_examples else [])
    empty = empty_code_note(view)
    if empty:
        out += ["### Your code", "", empty, ""]
    elif view.code is not None:
        shown, note = numbered(view.code, view.cells)
        fence = _fence(shown)
        out += ["### Your code", "", *note, fence, reveal(shown), fence, ""]
        if view.remarks:
            out += ["### What the reference has that yours lacks", ""]
            out += [f"{n}. {_plain(r.text)}" for n, r in enumerate(view.remarks, 1)] + [""]
    for name, text in view.references:
        fence = _fence(text)
        out += [f"### Reference: {_plain(name)}", "", fence, reveal(text).rstrip("\n"), fence, ""]
    return out


def numbered(code: str, cells: tuple[tuple[int, int, int], ...] | None) -> tuple[str, list[str]]:
    """The student's code with each line's number (a notebook's ``cell:line``), the numbers the
    remarks cite; leading blank lines (where the starter code was) left out and said so."""
    lines = code.rstrip().split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    if cells:
        from ..grade.notebook import locate

        places = [locate(cells, n) for n in range(first, len(lines))]
        labels = [f"{p[0]}:{p[1]}" if p else "" for p in places]
        note = ["Your notebook's code cells, one after another (markdown cells and the starter code are left out), "
                "each line numbered cell:line as the remarks name them.", ""]
    else:
        labels = [str(n + 1) for n in range(first, len(lines))]
        note = [f"Lines 1 to {first} are blank or the starter code you were given (not shown); the numbers are "
                "your file's line numbers.", ""] if first else []
    width = max((len(label) for label in labels), default=1)
    return "\n".join(f"{label:>{width}} | {line}".rstrip() for label, line in zip(labels, lines[first:])), note


def _sentence(parts: list[Part]) -> str:
    """A counter-example in Markdown: its values as code spans."""
    return "".join(_code_span(text) if code else _escaped(text) for text, code in parts)


def _code_span(text: str) -> str:
    """``text`` as an inline code span on one line (fenced past any backticks it holds)."""
    shown = reveal(" ".join(text.split("\n")))
    fence = "`" * (_longest_run(shown) + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"
