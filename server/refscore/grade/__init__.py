"""Batch grading: many submissions against references, through the shared Scorer.

One path for every run (``run``): ``discover``/``mapping``/``blocks`` turn the inputs into blocks
of ``GradeItem``s, ``plan`` makes pass one, an engine (``local_engine``, ``ray_engine``) scores
the pending items into ``parts``, and ``assemble`` writes the CSV, JSON, JSONL, Parquet and HTML
reports. ``job.GradeJob`` is the typed job the command builds from argv.
"""

from .items import GradeItem, ItemSet
from .job import GradeJob, Inputs, Threshold
from .settings import GradeSettings

__all__ = ["GradeItem", "GradeJob", "GradeSettings", "Inputs", "ItemSet", "Threshold"]
