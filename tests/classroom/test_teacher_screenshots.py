"""Issue 42's screenshots: the teacher's grade.html, a student's feedback page and the similarity
page of a small Canvas class (late marks, two problems, behaviour in the real sandbox, a renamed
copy), as headless Chromium renders them. ``REFSCORE_UPDATE_SCREENSHOT=1`` copies them into
docs/img/ (docs/grade.md shows them)."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from refscore.cli import main
from tests.merge_intervals_ref import ANA, BOB, CID, CLAMP, DEE, write_canvas_class
from tests.grade.test_grade_html import _png_size_and_colours

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]
FILES = {
    "okaforada_late_1001_11_merge.py": ANA,
    "okaforada_1001_12_clamp.py": "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    return x\n",
    "bakerbob_1002_13_merge.py": BOB,
    "bakerbob_1002_14_clamp.py": re.sub(r"\bx\b", "value", CLAMP),
    "chencid_1003_15_merge.py": CID,
    "chencid_1003_16_clamp.py": "def clamp(x, lo, hi):\n    return sorted([lo, x, hi])[1]\n",
    "dialodee_late_1004_17_merge.py": DEE,
}
SHOTS = {"teacher-grade.png": ("grade.html", "1400,900"), "teacher-feedback.png": ("feedback/okaforada_1001.html", "1200,1250"),
         "teacher-similarity.png": ("similarity.html", "1400,1250")}
pytestmark = [pytest.mark.timeout(400),
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed")]


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("shots")
    write_canvas_class(root, FILES)
    (root / "rubric.toml").write_text('title = "Week 7"\npoints = 10\n')
    here = os.getcwd()
    os.chdir(root)  # the pages name the class by the path given: "canvas", as a teacher would type it
    try:
        assert main(["grade", "--mapping", "class.toml", "--metrics", "codebleu,behaviour", "-o", "out",
                     "--rubric", "rubric.toml", "--similarity", "0.8", "-q"]) == 0
    finally:
        os.chdir(here)
    return root / "out"


def _chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            "--hide-scrollbars"]
    return subprocess.run(base + args, capture_output=True, text=True, timeout=120)


def test_the_three_pages_as_chromium_renders_them(out, tmp_path):
    seen = {}
    for name, (page, _) in SHOTS.items():
        dom = _chromium(["--dump-dom", (out / page).resolve().as_uri()], tmp_path / f"dom-{name}")
        assert dom.returncode == 0, dom.stderr[-2000:]
        seen[name] = html.unescape(re.sub(r"<[^>]+>", " ", dom.stdout))
    grade = seen["teacher-grade.png"]
    assert "Students" in grade and "okaforada" in grade and "late" in grade and "feedback" in grade
    feedback = seen["teacher-feedback.png"]
    assert "What your code does" in feedback and "your function returns" in feedback
    assert "points for a score" in feedback or "points" in feedback
    similarity = seen["teacher-similarity.png"]
    assert "Score of every pair" in similarity and "threshold 0.80" in similarity


def test_the_screenshots(out, tmp_path):
    for name, (page, size) in SHOTS.items():
        shot = tmp_path / name
        done = _chromium([f"--screenshot={shot}", f"--window-size={size}", (out / page).resolve().as_uri()],
                         tmp_path / f"profile-{Path(name).stem}")
        assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
        width, height, colours = _png_size_and_colours(shot)
        assert f"{width},{height}" == size and colours > 50, name  # the page, not a blank one
        if os.environ.get("REFSCORE_UPDATE_SCREENSHOT") == "1":
            (REPO / "docs" / "img").mkdir(exist_ok=True)
            shutil.copyfile(shot, REPO / "docs" / "img" / name)
