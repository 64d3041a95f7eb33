"""A run's similarity step (``--similarity``): compare the students of each problem, write the
similarity report, and give the grade report its ``similar_to`` cells."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .items import GradeItem, earlier_version
from .job import GradeJob
from .starter import starter_for
from .targets import is_stream
from .terminal import note


def similarity(job: GradeJob, items: list[GradeItem], outputs: dict[str, Path], info: dict[str, Any],
               say: bool, starters: dict[str | None, tuple[str, ...]]) -> dict[tuple[str, str | None], list[str]] | None:
    """The ``similar_to`` cells (None without ``--similarity``); ``starters``: the mapping
    problems' own starter code (``ItemSet.starters``), before ``--starter``'s."""
    threshold = job.reports.similarity
    if threshold is None:
        return None
    from .similarity import NOTHING_TO_COMPARE, comparable_pairs, empty_problems, flagged_pairs, flags, nothing_in, \
        similarity_of
    from .similarity_report import write_similarity

    items = [item for item in items if not earlier_version(item)]  # never a student and their own earlier work
    problems = similarity_of(items, threshold, {**_starters(job, items), **starters})
    write_similarity(outputs["similarity_html"].parent, problems, threshold)
    count = flagged_pairs(problems)
    possible = comparable_pairs(problems)
    empty = empty_problems(problems) if possible else []
    info["similarity"] = {"threshold": threshold, "flagged_pairs": count, "possible_pairs": possible,
                          "nothing_to_compare": empty, "page": _page_link(outputs)}
    if say:
        found = (NOTHING_TO_COMPARE if not possible else
                 f"{count} pair(s) of submissions at or above {threshold:g}{nothing_in(empty)} "
                 "(a hint, not a verdict)")
        note(f"similarity: {found}: {outputs['similarity_html']}")
        if job.inputs.jsonl:
            note("similarity: --jsonl lines are not compared (only submission files and mapping problems)")
    return flags(problems)


def _page_link(outputs: dict[str, Path]) -> str:
    """The similarity page as the grade page links it: its path from the grade page's folder
    (``--csv a/grade.csv --html b/grade.html`` puts it in ``a/``), else its name."""
    page, html = outputs["similarity_html"], outputs.get("html")
    if html is None or is_stream(html):
        return page.name
    return Path(os.path.relpath(os.path.abspath(page), os.path.abspath(html.parent))).as_posix()


def _starters(job: GradeJob, items: list[GradeItem]) -> dict[str | None, tuple[str, ...]]:
    """``--starter``'s texts for each problem's language: their k-grams count for no one (on top of
    the starter rule the items were read with, which left the block headers a student filled in)."""
    if not job.inputs.starter:
        return {}
    out: dict[str | None, tuple[str, ...]] = {}
    for problem, language in dict.fromkeys((i.problem, i.language) for i in items if i.language):
        found = starter_for(job.inputs.starter, language)
        out[problem] = found.texts if found is not None else ()
    return out
