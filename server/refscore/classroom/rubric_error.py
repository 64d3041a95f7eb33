"""The error of a rubric that cannot be used (its own module: the rubric's parts read it too)."""

from __future__ import annotations

from ..errors import InputFileError


class RubricError(InputFileError):
    """A rubric file that cannot be used (exit 3, one line naming the file and the key)."""
