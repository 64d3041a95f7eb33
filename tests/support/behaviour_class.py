"""A small Python class for behaviour in ``refscore grade``: the reference, a correct submission in
another style, a partial one (``<`` for ``<=``), a wrong one, one that does not parse and one
that never returns; as files (``write_files``) and as JSONL rows (``write_jsonl``), so every
engine grades the same pairs (tests/grade/test_grade_behaviour.py, tests/scale/test_ray_grade.py)."""

from __future__ import annotations

import json
from pathlib import Path

REFERENCE = '''def count_small(values, limit):
    """count_small([1, 5, 3], 3) ==> 2
    count_small([], 0) ==> 0"""
    return len([v for v in values if v <= limit])
'''

SUBMISSIONS = {
    "correct": "def count_small(values, limit):\n    total = 0\n    for value in values:\n"
               "        if not value > limit:\n            total += 1\n    return total\n",
    "partial": "def count_small(values, limit):\n    return len([v for v in values if v < limit])\n",
    "wrong": "def count_small(values, limit):\n    return len(values)\n",
    "syntax": "def count_small(values, limit)\n    return 0\n",
    "loop": "def count_small(values, limit):\n    while True:\n        pass\n",
}

#: A teacher's inputs file: the partial submission differs on its one call (the first tried).
INPUTS = "# values equal to the limit\ncount_small([7, 7, 7], 7)\n"
#: The partial submission's note with ``INPUTS``.
PARTIAL_ON_INPUTS = "differs on count_small([7, 7, 7], 7): expected 3, got 0"

#: The columns every engine must fill alike.
BEHAVIOUR_KEYS = ("behaviour", "behaviour_inputs", "behaviour_agreed", "behaviour_note", "behaviour_signature")


def write_files(folder: Path, names: tuple[str, ...] = tuple(SUBMISSIONS)) -> tuple[Path, Path]:
    """(reference file, submissions folder) under ``folder``: ``subs/<name>.py`` per submission."""
    folder.mkdir(parents=True, exist_ok=True)
    reference = folder / "ref.py"
    reference.write_text(REFERENCE, encoding="utf-8")
    subs = folder / "subs"
    subs.mkdir(exist_ok=True)
    for name in names:
        (subs / f"{name}.py").write_text(SUBMISSIONS[name], encoding="utf-8")
    return reference, subs


def write_jsonl(path: Path, names: tuple[str, ...] = tuple(SUBMISSIONS), **extra: object) -> Path:
    """The same pairs as JSONL rows (``id`` = the submission's name; ``extra``: more fields)."""
    rows = [{"id": name, "candidate": SUBMISSIONS[name], "reference": REFERENCE, "language": "python", **extra}
            for name in names]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def behaviour_by_name(rows: list[dict]) -> dict[str, tuple]:
    """Submission name (a file's stem, or a JSONL row's id) -> its behaviour columns."""
    return {Path(str(row["id"])).stem: tuple(row.get(key) for key in BEHAVIOUR_KEYS) for row in rows}
