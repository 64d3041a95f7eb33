"""Ctrl-C and SIGTERM on a real `refscore grade` of a class with a rubric (issue 42 item 7, issue 45
item 13): the run stops in one line that counts only the rows that have a score and says how to
resume, writes no grade book or feedback page (they held zeros for everyone not reached), keeps
its scored parts, and the rerun of the same command finishes and writes them."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.data.grade.classgen import PY_NAMES, PY_REFERENCE, PY_STYLES
from tests.grade.test_grade_signal import interrupt_when

pytestmark = pytest.mark.timeout(300)
STUDENTS = 1200
ABSENT = ("Absent Student", "Another Absentee")  # on the roster, nothing handed in: error rows


def _class(tmp: Path) -> list[str]:
    """A Canvas download of ``STUDENTS`` students (every file different), the reference, a roster
    and a rubric; the grade command with a Canvas grade book and feedback pages."""
    styles = list(PY_STYLES.values())
    with zipfile.ZipFile(tmp / "class.zip", "w") as archive:
        for i in range(STUDENTS):
            names = dict(PY_NAMES[i % len(PY_NAMES)], xs=f"{PY_NAMES[i % len(PY_NAMES)]['xs']}{i}")
            archive.writestr(f"student{i}_{1000 + i}_{5000 + i}_running_max.py", styles[i % len(styles)].format(**names))
    (tmp / "running_max.py").write_text(PY_REFERENCE)
    (tmp / "roster.txt").write_text("".join(f"student{i}\n" for i in range(STUDENTS)) + "\n".join(ABSENT) + "\n")
    (tmp / "rubric.toml").write_text('metric = "codebleu"\npoints = 10\nbands = { ">= 0.8" = 10, ">= 0.4" = 5 }\n')
    out = tmp / "out"
    return [sys.executable, "-m", "refscore", "grade", "-r", str(tmp / "running_max.py"), str(tmp / "class.zip"),
            "--roster", str(tmp / "roster.txt"), "--metrics", "codebleu", "-o", str(out),
            "--rubric", str(tmp / "rubric.toml"), "--canvas", str(out / "canvas.csv"), "--points", str(out / "points.csv"),
            "--feedback", str(out / "feedback"), "--progress", "lines", "--batch-size", "8"]


def _stop_once_a_part_is_written(cmd: list[str], parts: Path, signum: int) -> tuple[int, str]:
    """Run ``cmd``, send ``signum`` as soon as its first scored part is on disk; (exit, stderr)."""

    def a_part_is_written(proc: subprocess.Popen) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not any(parts.glob("b*.jsonl")):
            time.sleep(0.005)

    return interrupt_when(cmd, {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}, a_part_is_written, signum)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stopped_class_run_writes_no_grade_book_and_says_how_to_resume(tmp_path: Path, signum: int) -> None:
    cmd = _class(tmp_path)
    out = tmp_path / "out"
    parts = out / "grade.parts" / "parts"
    code, stderr = _stop_once_a_part_is_written(cmd, parts, signum)
    assert code == 130, stderr
    assert "Traceback" not in stderr
    last = [line for line in stderr.splitlines() if line.startswith("refscore:") and "note:" not in line]
    assert len(last) == 1, stderr
    # no grade book, no feedback page: they would give everyone not reached zero points
    for name in ("canvas.csv", "points.csv", "moodle.csv", "feedback"):
        assert not (out / name).exists(), name
    # the partial reports count honestly: the line's number is the rows that have a score
    rows = json.loads((out / "grade.json").read_text())["submissions"]
    scored = sum(1 for row in rows if row["codebleu_native"] is not None)
    assert 0 < scored < len(rows) == STUDENTS + len(ABSENT)
    assert f"interrupted: {scored:,} of {len(rows):,} submissions scored" in last[0], last[0]
    assert "no grade book or feedback written" in last[0]
    assert f"rerun the same command to finish from the scored parts kept in {out / 'grade.parts'}" in last[0]
    kept = sum(len(p.read_text().splitlines()) for p in parts.glob("b*.jsonl"))
    assert kept >= scored

    if signum == signal.SIGTERM:  # the rerun resumes from the parts and writes the grade book
        rerun = subprocess.run(cmd + ["-q"], capture_output=True, text=True, timeout=240,
                               env={**os.environ, "HF_HUB_OFFLINE": "1"})
        assert rerun.returncode == 0, rerun.stderr
        settings = json.loads((out / "grade.json").read_text())["settings"]
        assert settings["from_cache"] >= scored and settings["interrupted"] is False
        with open(out / "canvas.csv", newline="", encoding="utf-8") as fh:
            book = [row for row in csv.DictReader(fh) if row["Student"].strip() != "Points Possible"]
        assert len(book) == STUDENTS + len(ABSENT)
        assert len(list((out / "feedback").glob("*.html"))) == STUDENTS + len(ABSENT)


def test_sigterm_as_scoring_starts_is_one_line_too(tmp_path: Path) -> None:
    """SIGTERM as soon as the class is read: exit 130 and one line saying how to resume, never silent."""
    cmd = _class(tmp_path)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        seen = ""
        while not seen.startswith("grade: "):  # the first progress line: the class is read, scoring starts
            seen = proc.stderr.readline()
            assert seen, "ended before its first progress line"
        proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, rest
    assert "refscore: interrupted" in rest and "rerun the same command to finish" in rest and "Traceback" not in rest
    assert not (tmp_path / "out" / "canvas.csv").exists()


def test_ctrl_c_while_the_feedback_pages_are_written_writes_them_whole(tmp_path: Path) -> None:
    """Every submission is scored and the pages are being written: they are written again whole
    (a folder never holds some of this run's pages beside an earlier run's), exit 130."""
    cmd = _class(tmp_path)
    pages = tmp_path / "out" / "feedback"

    def pages_are_written(proc: subprocess.Popen) -> None:
        deadline = time.monotonic() + 200
        while time.monotonic() < deadline and proc.poll() is None and not any(pages.glob("*.html")):
            time.sleep(0.002)

    code, stderr = interrupt_when(cmd, {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"},
                                  pages_are_written)
    assert code == 130, stderr
    assert "interrupted while writing the grade books and feedback pages: writing them whole" in stderr, stderr
    assert "every submission is scored" in stderr and "Traceback" not in stderr
    assert len(list(pages.glob("*.html"))) == len(list(pages.glob("*.md"))) == STUDENTS + len(ABSENT)
    assert (tmp_path / "out" / "canvas.csv").is_file()
