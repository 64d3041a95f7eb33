"""A class of 30 students x 3 problems (Python, Java, a notebook) with starter code and a roster,
delivered as a Moodle zip and as a Canvas folder (tests/data/classroom/lms_class.py), graded by
the real `refscore grade --mapping ... --roster ...`: the same students, problems and scores come
out of both deliveries."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from refscore.cli import main

sys.path.insert(0, str(Path(__file__).parent.parent / "data" / "classroom"))
from lms_class import make_class, write_canvas_folder, write_moodle_zip, write_refs  # noqa: E402

pytestmark = pytest.mark.timeout(600)


def graded(root: Path, source: str) -> tuple[int, dict]:
    mapping = write_refs(SPEC, root, source)
    out = root / "out" / "grade.json"
    code = main(["grade", "--mapping", str(mapping), "--roster", str(root / "roster.csv"), "--metrics", "codebleu",
                 "--no-cache", "-q", "--json", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8"))


SPEC = make_class(30)


def test_moodle_zip_and_canvas_folder_give_the_same_class(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    write_moodle_zip(SPEC, tmp_path / "m" / "moodle.zip")
    write_canvas_folder(SPEC, tmp_path / "c" / "canvas")
    code_m, moodle = graded(tmp_path / "m", "moodle.zip")
    code_c, canvas = graded(tmp_path / "c", "canvas")
    assert code_m == code_c == 0
    for report, layout in ((moodle, "moodle"), (canvas, "canvas")):
        info = report["settings"]["classes"]
        assert len(info) == 1 and info[0]["layout"] == layout and info[0]["students"] == 30
        assert info[0]["unmatched_files"] == [] and info[0]["not_on_roster"] == []
        assert info[0]["missing_students"] == [f"{s.name} ({s.id})" for s in SPEC.absent]
        assert len(report["submissions"]) == 32 * 3
    key = {(r["student_id"], r["problem"]): r for r in moodle["submissions"]}
    other = {(r["student_id"], r["problem"]): r for r in canvas["submissions"]}
    assert set(key) == set(other) and len(key) == 96
    for k, row in key.items():
        assert row["codebleu_native"] == pytest.approx(other[k]["codebleu_native"], abs=1e-12), k
        assert (row["errors"] == []) == (other[k]["errors"] == []), k
    present = [r for r in moodle["submissions"] if r["student_id"] not in {s.id for s in SPEC.absent}]
    assert all(r["errors"] == [] and r["codebleu_native"] is not None for r in present)
    assert all(r["cells"] for r in present if r["problem"] == "word_count")  # the notebook problem
    late = {s.id for s in SPEC.students if s.late}
    assert {r["student_id"] for r in canvas["submissions"] if r["late"]} == late and late
    assert not any(r["late"] for r in moodle["submissions"])
    assert {r["student"] for r in moodle["submissions"]} >= {SPEC.students[0].name}
    assert {r["student"] for r in canvas["submissions"]} >= {SPEC.students[0].canvas_name}
