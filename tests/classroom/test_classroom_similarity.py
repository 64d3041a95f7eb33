"""`refscore grade --similarity` on a class delivered as an LMS would (a Moodle zip and a Canvas
folder, tests/data/classroom/lms_class.py's writers) with starter code and a roster: 30+ students
x 2 problems (Python, Java) written for similarity (tests/similarity_class.py: every student's own
program, plus planted copies with renamed variables and reordered functions, and with comments
added). The planted copies are flagged and no other pair, from both deliveries; with
``--anonymise`` the similarity files name pseudonyms only."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from refscore.cli import main
from tests.similarity_class import PYTHON_STARTER, expected_pairs
from tests.similarity_class import make_class as similarity_class

sys.path.insert(0, str(Path(__file__).parent.parent / "data" / "classroom"))
from lms_class import FIRST, LAST, ClassSpec, Student, write_canvas_folder, write_moodle_zip  # noqa: E402

pytestmark = pytest.mark.timeout(600)

JAVA_REF = "public class Stats {\n    static double mean(int[] v) {\n        double s = 0;\n        for (int x : v) s += x;\n" \
           "        return v.length == 0 ? 0 : s / v.length;\n    }\n}\n"
PY_REF = PYTHON_STARTER + "\n\ndef mean(values):\n    return sum(values) / len(values) if values else 0.0\n"


def _spec() -> tuple[ClassSpec, dict[str, set[frozenset[str]]]]:
    """The class (one student per generated submission, copies included) and, per problem, the
    pairs of student names to expect."""
    python, java = similarity_class("python", 30, seed=21), similarity_class("java", 30, seed=22)
    students = []
    for k, (py, jv) in enumerate(zip(python, java)):
        name = f"{FIRST[k % len(FIRST)]} {LAST[(k * 7 + k // len(FIRST)) % len(LAST)]}"
        students.append(Student(name, str(30000 + k), {"grades.py": PYTHON_STARTER + "\n\n" + py.text,
                                                      "Stats.java": jv.text}))
    by_id = {s.id: st.name for s, st in zip(python, students)}
    expected = {"grades": {frozenset(by_id[i] for i in pair) for pair in expected_pairs(python)},
                "Stats": {frozenset(by_id[i] for i in pair) for pair in expected_pairs(java)}}
    return ClassSpec(students), expected


SPEC, EXPECTED = _spec()


def _mapping(root: Path, source: str) -> Path:
    (root / "ref.py").write_text(PY_REF)
    (root / "Stats.java").write_text(JAVA_REF)
    (root / "starter.py").write_text(PYTHON_STARTER)
    (root / "roster.csv").write_text("Name,ID\n" + "".join(f"{s.name},{s.id}\n" for s in SPEC.students))
    mapping = root / "mapping.toml"
    mapping.write_text(f'[[problem]]\nname = "grades"\nreference = "ref.py"\nsubmissions = ["{source}"]\n'
                       'starter = "starter.py"\n\n'
                       f'[[problem]]\nname = "Stats"\nreference = "Stats.java"\nsubmissions = ["{source}"]\n')
    return mapping


def _flagged(out: Path, names: dict[str, str]) -> dict[str, set[frozenset[str]]]:
    """Per problem, the flagged pairs as student names (``names``: report id -> student)."""
    data = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    return {p["problem"]: {frozenset(names[x[k]] for k in ("first", "second")) for x in p["pairs"]}
            for p in data["problems"]}


@pytest.mark.parametrize("delivery", ["moodle", "canvas"])
def test_lms_deliveries_flag_the_planted_copies(tmp_path: Path, delivery: str) -> None:
    if delivery == "moodle":
        source = write_moodle_zip(SPEC, tmp_path / "moodle.zip").name
    else:
        source = write_canvas_folder(SPEC, tmp_path / "canvas").name
    mapping = _mapping(tmp_path, source)
    out = tmp_path / "out"
    assert main(["grade", "--mapping", str(mapping), "--roster", str(tmp_path / "roster.csv"), "--metrics", "codebleu",
                 "--no-cache", "-q", "-o", str(out), "--similarity"]) == 0
    report = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    by_id = {s.id: s.name for s in SPEC.students}
    names = {r["id"]: by_id[r["student_id"]] for r in report["submissions"]}
    assert _flagged(out, names) == EXPECTED
    flagged_rows = {(r["student_id"], r["problem"]) for r in report["submissions"] if r["similar_to"]}
    want = {(next(s.id for s in SPEC.students if s.name == n), p) for p, pairs in EXPECTED.items()
            for pair in pairs for n in pair}
    assert flagged_rows == want


def test_anonymised_similarity_names_no_student(tmp_path: Path) -> None:
    source = write_moodle_zip(SPEC, tmp_path / "moodle.zip").name
    mapping = _mapping(tmp_path, source)
    out = tmp_path / "out"
    assert main(["grade", "--mapping", str(mapping), "--roster", str(tmp_path / "roster.csv"), "--metrics", "codebleu",
                 "--no-cache", "-q", "-o", str(out), "--similarity", "--anonymise"]) == 0
    texts = "".join((out / f"similarity.{kind}").read_text(encoding="utf-8") for kind in ("html", "json", "csv"))
    for student in SPEC.students:
        assert student.name not in texts and student.id not in texts
    report = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    pseudonyms = {r["id"]: r["student"] for r in report["submissions"]}
    flagged = _flagged(out, pseudonyms)
    assert {k: len(v) for k, v in flagged.items()} == {k: len(v) for k, v in EXPECTED.items()}
