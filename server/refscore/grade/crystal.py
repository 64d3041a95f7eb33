"""CrystalBLEU for a grading run: the ignored n-grams come from the run's own texts.

For each language, the corpus is every distinct submission and reference of the run in that
language; each scored submission then gets ``report.crystalbleu``. A language with fewer texts
than CrystalBLEU needs gets one error line per submission instead.
"""

from __future__ import annotations

from typing import Sequence

from ..metrics.crystalbleu import corpus_ignored, score_crystalbleu
from .runner import GradeResult


def add_crystalbleu(results: Sequence[GradeResult]) -> None:
    """Fill ``crystalbleu`` on the report of every scored result."""
    by_language: dict[str, list[GradeResult]] = {}
    for result in results:
        item = result.item
        if result.report is not None and item.scorable and item.language:
            by_language.setdefault(result.report.language, []).append(result)
    for language, group in by_language.items():
        texts = [(r.item.candidate or "", language) for r in group]
        texts += [(ref, language) for r in group for ref in r.item.references]
        try:
            ignored = corpus_ignored(texts)
        except ValueError as error:
            for result in group:
                result.report.errors.append(f"crystalbleu: {error}")  # type: ignore[union-attr]
            continue
        for result in group:
            try:
                result.report.crystalbleu = score_crystalbleu(  # type: ignore[union-attr]
                    result.item.candidate or "", result.item.references, language, ignored)
            except (ValueError, RecursionError) as error:
                result.report.errors.append(f"crystalbleu: {error}")  # type: ignore[union-attr]
