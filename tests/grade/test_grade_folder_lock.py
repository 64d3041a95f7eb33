"""Two `refscore grade` runs on one output folder (issue 45 item 5): the second is refused in one
line before it reads or writes anything, the first finishes with its own reports, and the lock
is gone when a run ends (so the next run goes ahead)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from refscore.grade.folder_lock import LOCK_NAME, FolderBusyError, lock_folders
from tests.grade.test_grade_interrupt_class import STUDENTS, _class

pytestmark = pytest.mark.timeout(300)
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
REF = "def total(nums):\n    result = 0\n    for n in nums:\n        result += n\n    return result\n"


def _small(tmp: Path) -> list[str]:
    """A two-file grade into ``tmp/out``."""
    (tmp / "ref.py").write_text(REF)
    (tmp / "subs").mkdir()
    (tmp / "subs" / "a.py").write_text(REF.replace("result", "acc"))
    (tmp / "subs" / "b.py").write_text("def total(xs):\n    return sum(xs)\n")
    return [sys.executable, "-m", "refscore", "grade", "-r", str(tmp / "ref.py"), str(tmp / "subs"),
            "--metrics", "codebleu", "-o", str(tmp / "out"), "-q"]


def test_a_second_run_on_a_running_runs_folder_is_refused_and_the_first_finishes(tmp_path: Path) -> None:
    first = _class(tmp_path)
    out = tmp_path / "out"
    parts = out / "grade.parts" / "parts"
    other = tmp_path / "other"
    other.mkdir()
    second = _small(other)
    second[second.index("-o") + 1] = str(out)  # another class, the same folder
    proc = subprocess.Popen(first, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not any(parts.glob("b*.jsonl")):
            time.sleep(0.005)
        assert proc.poll() is None, "finished before the second run started"
        refused = subprocess.run(second, capture_output=True, text=True, timeout=120, env=ENV)
        _, stderr = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert refused.returncode == 3, refused.stderr
    assert refused.stderr.strip().splitlines() == [
        f"refscore: {out}: another `refscore grade` run is writing its reports or scored parts there; wait for it to "
        "finish, or write elsewhere (-o, --cache)"]
    assert proc.returncode == 0, stderr
    rows = json.loads((out / "grade.json").read_text())["submissions"]
    assert len(rows) == STUDENTS + 2 and all("subs" not in str(row["source"]) for row in rows)  # the first's only
    assert not list(out.rglob(LOCK_NAME))
    again = subprocess.run(second, capture_output=True, text=True, timeout=120, env=ENV)
    assert again.returncode == 0, again.stderr
    assert len(json.loads((out / "grade.json").read_text())["submissions"]) == 2


def test_a_held_cache_folder_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    """``--cache DIR`` shared by runs writing their reports to different folders is locked too."""
    cmd = _small(tmp_path) + ["--cache", str(tmp_path / "cache")]
    held = lock_folders([tmp_path / "cache"])
    try:
        with pytest.raises(FolderBusyError):
            lock_folders([tmp_path / "cache"])
        refused = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=ENV)
    finally:
        held.release()
    assert refused.returncode == 3 and "another `refscore grade` run is writing" in refused.stderr, refused.stderr
    assert not (tmp_path / "out").exists()  # the folder it made for its reports is removed again
    assert not (tmp_path / "cache" / LOCK_NAME).exists()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=ENV)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["grade.csv", "grade.html", "grade.json",
                                                                    "grade.jsonl"]


def test_a_link_where_the_lock_goes_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / LOCK_NAME).symlink_to(tmp_path / "victim")
    refused = subprocess.run(_small(tmp_path), capture_output=True, text=True, timeout=120, env=ENV)
    assert refused.returncode == 3 and "not a regular file" in refused.stderr, refused.stderr
    assert not (tmp_path / "victim").exists()


def test_a_held_feedback_folder_elsewhere_is_refused(tmp_path: Path) -> None:
    """Feedback pages written outside the reports' folder: that folder is locked too."""
    (tmp_path / "rubric.toml").write_text("points = 10\n")
    pages = tmp_path / "pages"
    cmd = _small(tmp_path) + ["--no-cache", "--rubric", str(tmp_path / "rubric.toml"), "--feedback", str(pages)]
    held = lock_folders([pages])
    try:
        refused = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=ENV)
    finally:
        held.release()
    assert refused.returncode == 3 and f"{pages}: another `refscore grade` run is writing" in refused.stderr, \
        refused.stderr
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=ENV)
    assert done.returncode == 0, done.stderr
    assert len(list(pages.glob("*.html"))) == 2 and not (pages / LOCK_NAME).exists()
