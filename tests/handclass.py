"""The hand-written class of ``tests/data/handclass`` (see its README): problems, references and
each student's submission, read from the files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "data" / "handclass"
STUDENTS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")


@dataclass(frozen=True)
class Problem:
    name: str
    language: str
    reference: Path
    alternative: Path

    def submission(self, student: str) -> Path:
        """The student's file (any extension: heidi wrote the wrong language)."""
        folder = ROOT / self.name / "submissions"
        return next(p for p in folder.iterdir() if p.stem.lower() == student)

    def text(self, student: str) -> str:
        return self.submission(student).read_text(encoding="utf-8")


PROBLEMS = (
    Problem("second_largest", "python", ROOT / "second_largest" / "reference.py",
            ROOT / "second_largest" / "alternative.py"),
    Problem("palindrome", "java", ROOT / "palindrome" / "Reference.java", ROOT / "palindrome" / "Alternative.java"),
)
