"""One rule for what a mapping file may name (issue 25, item 8).

Everything a mapping names (references, ``context_file``, starter code, submissions, class
archives and folders) must be, once symbolic links are resolved, under the mapping file's own
folder, or under a folder the command line allows with ``--allow-outside DIR``. A reference,
context or starter outside is the problem's error (every submission of it an error row); a
submission outside is an error row; neither is ever read, so nothing of it reaches a report.
``submissions = ["../../../../etc/passwd"]``, an absolute path, ``reference = "../secret/s.py"``
and a link out of the folder are all refused the same way.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence


class Containment:
    """The folders a mapping's paths may resolve into."""

    def __init__(self, mapping: Path, allowed: Iterable[str | Path] = ()) -> None:
        self.mapping = mapping
        self.roots = [_real(mapping.parent), *(_real(p) for p in allowed)]

    def outside(self, path: str | Path) -> str | None:
        """Why ``path`` may not be read (``... is outside the mapping's folder ...``), or None."""
        real = _real(path)
        if any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots):
            return None
        shown = os.path.relpath(path, self.mapping.parent) if not os.path.isabs(str(path)) else str(path)
        return (f"{shown} is outside the mapping's folder {self.mapping.parent or '.'} (links resolved): "
                "not read; allow a folder with --allow-outside DIR")

    def first_outside(self, paths: Sequence[str | Path]) -> str | None:
        """The reason for the first of ``paths`` that may not be read, or None."""
        return next((reason for reason in map(self.outside, paths) if reason), None)


def _real(path: str | Path) -> str:
    try:
        return os.path.realpath(str(path))
    except ValueError:  # a NUL character: names no file, and nothing outside either
        return str(path)
