"""Batch grading: many submissions against references, through the shared Scorer.

``discover``/``mapping`` turn inputs into ``GradeItem``s, ``runner`` scores them (cache,
progress, Ctrl-C), ``rows``/``writers``/``html_report`` write the CSV, JSON and HTML reports.
"""

from .cache import ReportCache
from .items import GradeItem, ItemSet
from .runner import GradeResult, GradeRun, GradeSettings, run_grading

__all__ = ["GradeItem", "GradeResult", "GradeRun", "GradeSettings", "ItemSet", "ReportCache", "run_grading"]
