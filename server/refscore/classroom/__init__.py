"""Classroom grading, from an LMS's "download all submissions" to grades, feedback and flags.

Above the grader: ``refscore.grade`` never imports this package; ``hooks.classroom_hooks`` plugs
it in at the grader's named points (``grade.hooks``).

Inputs (read safely):

* ``model``: the data model every later stage relies on (``Student``, ``SubmittedFile``,
  ``Submission``, ``ClassInput``); rows carry ``student``, ``student_id`` and ``late``.
* the grader's ``starter`` (the starter-code rule; ``starter_free_text`` is the text a submission
  is scored, and compared with other students, on) and ``notebook`` (``.ipynb`` files as their
  code cells, with a map back to cell and line).

Outputs (``outputs`` writes them after a run, from the cache alike): a rubric turns scores into
points (``rubric``, ``adjustments``, ``gradebook``), the grade books an LMS imports (``lms_csv``,
``autograders``), a feedback page per student (``feedback``, ``feedback_html``, ``feedback_md``,
``hints``) and pseudonyms for graders (``anonymise``).
"""

from ..grade.classroom_choices import LAYOUTS
from .model import ClassInput, Student, Submission, SubmittedFile
from ..grade.starter import Starter, load_starter, starter_free_text

__all__ = ["LAYOUTS", "ClassInput", "Starter", "Student", "SubmittedFile", "Submission", "load_starter",
           "starter_free_text"]
