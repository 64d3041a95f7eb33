"""``refscore grade --similarity``: similarity among the students of each problem, from the items.

The submissions of a run are grouped by problem and language; each group goes to
``metrics.similarity.compare`` (structural tokens, starter code removed, MinHash/LSH candidates
for a large class, exact scores). Submissions that could not be read keep their error as their
status. The flags become the ``similar_to`` column of the grade report (``flags``); the pages
are written by ``similarity_report``. A hint for the teacher, never a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from ..analysis.similarity_tokens import structural_tokens
from ..metrics.similarity import Method, SimilarityResult, Submission, compare
from .ids import IdNamer
from .items import GradeItem

#: Partners named in a submission's ``similar_to`` cell (the rest: "and N more").
MAX_PARTNERS = 10
#: A problem's starter code: problem name (None: the run's only problem) -> starter texts.
Starters = Mapping[str | None, Sequence[str]]


@dataclass(frozen=True)
class ProblemSimilarity:
    """One problem's result and, for the side-by-side view, each compared id's source and text."""

    problem: str | None
    language: str | None
    result: SimilarityResult
    texts: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str | None] = field(default_factory=dict)
    keys: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # id -> (item id, item source)
    starter_files: int = 0


def similarity_of(items: Sequence[GradeItem], threshold: float, starters: Starters | None = None,
                  method: Method = "auto") -> list[ProblemSimilarity]:
    """Each problem's similarity among its submissions, in the order problems first appear."""
    namer = IdNamer()
    for item in items:
        namer.add(item.id)
    namer.freeze()
    groups: dict[tuple[str | None, str | None], list[tuple[str, GradeItem]]] = {}
    for item in items:
        groups.setdefault((item.problem, item.language), []).append((namer.name(item.id), item))
    starters = starters or {}
    out = []
    for (problem, language), members in groups.items():
        texts = starters.get(problem, starters.get(None, ())) if starters else ()
        starter = [structural_tokens(t, language) for t in texts] if language else []
        readable = [(name, item) for name, item in members if item.error is None and item.candidate is not None]
        submissions = [Submission(name, structural_tokens(item.candidate or "", language or "")) for name, item in readable]
        result = compare(submissions, threshold, starter, method)
        for name, item in members:
            if item.error is not None or item.candidate is None:
                result.status[name] = f"not compared: {item.error or 'not read'}"
        out.append(ProblemSimilarity(problem, language, result, {n: i.candidate or "" for n, i in readable},
                                     {n: i.source for n, i in members}, {n: (i.id, i.source) for n, i in members},
                                     len(texts)))
    return out


def flags(problems: Sequence[ProblemSimilarity]) -> dict[tuple[str, str | None], list[str]]:
    """(item id, item source) -> its flagged partners as ``"id (score)"``, highest first (the
    grade report's ``similar_to`` column)."""
    out: dict[tuple[str, str | None], list[str]] = {}
    for problem in problems:
        partners = problem.result.partners()
        for name, key in problem.keys.items():
            if name in partners:
                out[key] = [f"{other} ({score:.2f})" for other, score in partners[name][:MAX_PARTNERS]]
                if len(partners[name]) > MAX_PARTNERS:
                    out[key].append(f"and {len(partners[name]) - MAX_PARTNERS} more (similarity.json)")
    return out


def flagged_pairs(problems: Sequence[ProblemSimilarity]) -> int:
    """How many pairs are flagged in all problems."""
    return sum(len(p.result.pairs) for p in problems)


def comparable_pairs(problems: Sequence[ProblemSimilarity]) -> int:
    """How many pairs of submissions could be compared in all problems (0: nothing to compare)."""
    return sum(p.result.possible for p in problems)


#: What the reports say when a problem (or the run) has fewer than two submissions to compare.
NOTHING_TO_COMPARE = "nothing to compare: fewer than two submissions that can be compared"


#: Problems named in ``nothing_in``'s sentence (the rest: "and N more").
MAX_NAMED_PROBLEMS = 10


def empty_problems(problems: Sequence[ProblemSimilarity]) -> list[str]:
    """The problems with nothing to compare (fewer than two comparable submissions), by name (a
    problem graded in several languages: ``name (language)`` for each)."""
    names = [p.problem or "(no problem)" for p in problems]
    return [name if names.count(name) == 1 else f"{name} ({p.language or 'no language'})"
            for name, p in zip(names, problems) if not p.result.possible]


def nothing_in(names: Sequence[str]) -> str:
    """``; nothing to compare in a, b (fewer than two ...)``: what the grade page and the terminal add
    when some problems, not all, had no pair; '' when none."""
    if not names:
        return ""
    shown = ", ".join(names[:MAX_NAMED_PROBLEMS])
    more = f" and {len(names) - MAX_NAMED_PROBLEMS} more" if len(names) > MAX_NAMED_PROBLEMS else ""
    return f"; nothing to compare in {shown}{more} ({NOTHING_TO_COMPARE.split(': ', 1)[1]})"
