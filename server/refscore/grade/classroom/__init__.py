"""Classroom inputs: an LMS's "download all submissions" archive or folder, read safely.

* ``model``: the data model every later stage relies on (``Student``, ``SubmittedFile``,
  ``Submission``, ``ClassInput``); rows carry ``student``, ``student_id`` and ``late``.
* ``starter``: the starter-code rule; ``starter_free_text`` is the text a submission is scored
  (and compared with other students) on.
* ``notebook``: ``.ipynb`` files as their code cells, with a map back to cell and line.
"""

from .model import LAYOUTS, ClassInput, Student, SubmittedFile, Submission
from .starter import Starter, load_starter, starter_free_text

__all__ = ["LAYOUTS", "ClassInput", "Starter", "Student", "SubmittedFile", "Submission", "load_starter",
           "starter_free_text"]
