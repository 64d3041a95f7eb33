"""The class of ``tests/data/class_hidden`` (its README): hidden-test pass rates as the ground
truth, and the class as each LMS delivers it (Canvas zip, Moodle zip, Gradescope export, plain
folders) with a Canvas gradebook export as its roster."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "data" / "class_hidden"
PROBLEMS = ("dedupe", "to_roman", "balanced")


@dataclass(frozen=True)
class Person:
    key: str  # the folder name of their files
    first: str
    last: str
    canvas_id: str
    sis_id: str
    login: str
    section: str
    moodle_id: str
    gradescope_sid: str

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def sortable(self) -> str:
        """Canvas's gradebook name, ``Adams, Amy``."""
        return f"{self.last}, {self.first}"

    @property
    def canvas_prefix(self) -> str:
        """Canvas's download file prefix, ``adamsamy``."""
        return (self.last + self.first).lower()


_NAMES = (("amy", "Amy", "Adams"), ("bo", "Bo", "Brown"), ("cy", "Cy", "Chen"), ("di", "Di", "Diaz"),
          ("ed", "Ed", "Evans"), ("fi", "Fi", "Fox"), ("gu", "Gu", "Green"), ("hal", "Hal", "Hill"))
PEOPLE = tuple(Person(key, first, last, str(1001 + i), f"S{2001 + i}", f"{key}@uni.example",
                      "Lab A" if i % 2 else "Lab B", str(3001 + i), f"9{i:03d}")
               for i, (key, first, last) in enumerate(_NAMES))


#: On the Moodle roster, handed nothing in: (name, participant id).
ABSENT = ("Ivy Ingram", "3009")


def files_of(person: Person) -> dict[str, str]:
    """Problem -> the student's file text (a problem they handed nothing in for is absent)."""
    out = {}
    for problem in PROBLEMS:
        path = ROOT / problem / "submissions" / f"{person.key}.py"
        if path.exists():
            out[problem] = path.read_text(encoding="utf-8")
    return out


def hidden_tests(problem: str) -> list[tuple[str, object]]:
    return [(text, value) for text, value in json.loads((ROOT / problem / "hidden.json").read_text())]


def canvas_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for i, person in enumerate(PEOPLE):
            for problem, text in files_of(person).items():
                late = "_late" if person.key == "ed" else ""
                zf.writestr(f"{person.canvas_prefix}{late}_{person.canvas_id}_{7000 + i}_{problem}.py", text)
    return path


def canvas_roster(path: Path) -> Path:
    """Canvas's gradebook export: the ``Points Possible`` row and a test student are no students."""
    lines = ["Student,ID,SIS User ID,SIS Login ID,Section,Week 7 (555)",
             "    Points Possible,,,,,30.00",
             *(f'"{p.sortable}",{p.canvas_id},{p.sis_id},{p.login},{p.section},' for p in PEOPLE),
             '"Student, Test",9999,,,Lab A,']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def moodle_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for person in PEOPLE:
            for problem, text in files_of(person).items():
                zf.writestr(f"{person.full}_{person.moodle_id}_assignsubmission_file_/{problem}.py", text)
    return path


def moodle_roster(path: Path) -> Path:
    """Moodle's grading worksheet as downloaded: ``Participant N`` identifiers (and ``ABSENT``)."""
    lines = ["Identifier,Full name,Email address,Status,Grade,Maximum Grade",
             *(f"Participant {p.moodle_id},{p.full},{p.login},Submitted for grading,,30.00" for p in PEOPLE),
             f"Participant {ABSENT[1]},{ABSENT[0]},ivy@uni.example,No submission,,30.00"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def gradescope_export(folder: Path) -> Path:
    meta = []
    for i, person in enumerate(PEOPLE):
        sub = folder / f"submission_{50001 + i}"
        sub.mkdir(parents=True)
        for problem, text in files_of(person).items():
            (sub / f"{problem}.py").write_text(text, encoding="utf-8")
        meta.append(f"submission_{50001 + i}:\n  :submitters:\n  - :name: {person.full}\n"
                    f"    :sid: '{person.gradescope_sid}'\n    :email: {person.login}\n")
    (folder / "submission_metadata.yml").write_text("".join(meta), encoding="utf-8")
    return folder


def plain_folders(folder: Path) -> Path:
    for person in PEOPLE:
        for problem, text in files_of(person).items():
            (folder / person.key).mkdir(parents=True, exist_ok=True)
            (folder / person.key / f"{problem}.py").write_text(text, encoding="utf-8")
    return folder


def mapping(path: Path, submissions: Path, layout: str) -> Path:
    """A mapping of the three problems over one delivery of the class (the references copied
    beside it: a mapping reads only files in its folder)."""
    for problem in PROBLEMS:
        (path.parent / "refs").mkdir(exist_ok=True)
        (path.parent / "refs" / f"{problem}.py").write_text((ROOT / problem / "reference.py").read_text())
        (path.parent / "refs" / f"{problem}.txt").write_text((ROOT / problem / "inputs.txt").read_text())
    blocks = [f'[[problem]]\nname = "{p}"\nreference = "refs/{p}.py"\ninputs = "refs/{p}.txt"\n'
              f'submissions = ["{submissions.name}"]\nlayout = "{layout}"\n' for p in PROBLEMS]
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path
