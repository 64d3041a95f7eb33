"""Issue 42 item 9: the teacher's page. grade.html of a class with a rubric has one row per STUDENT
(not per submission) with the total, each problem's points, behaviour and the late mark, and one
click to the student's feedback page and to their similarity pairs, through the real ``refscore
grade`` on a Canvas download (late marks from its file names)."""

from __future__ import annotations

import csv
import html
import re
from pathlib import Path

import pytest

from refscore.cli import main
from tests.merge_intervals_ref import CLAMP, MERGE, write_canvas_class

ADA_MERGE = MERGE.replace("result", "merged")
FILES = {
    "lovelaceada_late_1001_555_merge.py": ADA_MERGE,
    "lovelaceada_1001_556_clamp.py": "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    return x\n",
    "turingalan_1002_557_merge.py": "def merge_intervals(intervals):\n    return intervals\n",
    "turingalan_1002_558_clamp.py": re.sub(r"\bx\b", "value", CLAMP),
    "hoppergrace_1003_559_merge.py": ADA_MERGE.replace("merged", "out"),  # Ada's, renamed
}
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("teacher")
    write_canvas_class(root, FILES)
    (root / "rubric.toml").write_text('title = "Week 7"\nmetric = "codebleu"\nlinear = { floor = 0.1, ceiling = 0.9 }\n'
                                      'late = { per_day = 1 }\n')
    code = main(["grade", "--mapping", str(root / "class.toml"), "--metrics", "codebleu,behaviour", "-o", str(root / "out"),
                 "--rubric", str(root / "rubric.toml"), "--similarity", "0.7", "-q"])
    assert code == 0
    return root / "out"


def _rows(page: str) -> dict[str, list[str]]:
    """Student -> the cells of their row in the students table (each cell's HTML)."""
    table = page[page.index('<table class="sortable students"'):]
    table = table[:table.index("</table>")]
    out = {}
    for row in re.findall(r'<tr data-student="[^"]*">(.*?)</tr>', table):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        out[html.unescape(re.sub(r"<small>.*?</small>|<[^>]+>", "", cells[0]))] = cells
    return out


def test_one_row_per_student_with_points_totals_late_and_behaviour(run):
    page = (run / "grade.html").read_text(encoding="utf-8")
    rows = _rows(page)
    assert sorted(rows) == ["hoppergrace", "lovelaceada", "turingalan"]  # students, not the 5 submissions
    with open(run / "points.csv", encoding="utf-8", newline="") as handle:
        points = {r["student"]: r for r in csv.DictReader(handle)}
    head = re.findall(r"<th>(.*?)</th>", page[page.index('id="students"'):page.index("</thead>", page.index('id="students"'))])
    assert head[:4] == ["Student", "Total (of 20)", "merge (of 10)", "clamp (of 10)"]
    for name, cells in rows.items():
        number = [float(re.match(r"[\d.]+", c)[0]) for c in cells[1:4]]
        assert number == [float(points[name]["total"]), float(points[name]["merge"]), float(points[name]["clamp"])]
        assert number[0] == pytest.approx(number[1] + number[2])
    assert "late" in rows["lovelaceada"][4] and "late" not in rows["turingalan"][4]
    assert "late, -1" in rows["lovelaceada"][2]  # the rubric's late policy took a point off
    assert re.search(r"behaviour \d+/\d+", rows["turingalan"][2])


def test_one_click_to_the_feedback_page_and_to_the_similarity_pairs(run):
    page = (run / "grade.html").read_text(encoding="utf-8")
    rows = _rows(page)
    similarity = (run / "similarity.html").read_text(encoding="utf-8")
    for name, cells in rows.items():
        feedback = re.search(r'<a href="([^"]+)">feedback</a>', cells[5])
        target = run / html.unescape(feedback[1])
        assert target.is_file() and f"feedback for {name}" in target.read_text(encoding="utf-8")
    for name in ("lovelaceada", "hoppergrace"):  # the renamed copy: each links to the pair
        link = re.search(r'<a class="similar" href="similarity\.html#([^"]+)">', rows[name][5])
        assert link, name
        entry = re.search(rf'<tr id="{link[1]}"><td>(.*?)</td><td>(.*?)</td></tr>', similarity)
        assert entry and name in entry[1]
        other = "hoppergrace" if name == "lovelaceada" else "lovelaceada"
        assert re.search(rf'<a href="#p0-\d+">[^<]*{other}', entry[2])
    assert 'class="similar"' not in rows["turingalan"][5]


def test_no_points_where_a_problem_had_nothing_to_grade(tmp_path):
    """As the grade books: a problem whose reference is missing makes the rows no grades."""
    write_canvas_class(tmp_path, FILES)
    (tmp_path / "refs" / "clamp.py").unlink()
    (tmp_path / "rubric.toml").write_text('metric = "codebleu"\n')
    main(["grade", "--mapping", str(tmp_path / "class.toml"), "--metrics", "codebleu", "-o", str(tmp_path / "out"),
          "--rubric", str(tmp_path / "rubric.toml"), "-q"])
    page = (tmp_path / "out" / "grade.html").read_text(encoding="utf-8")
    assert "No points are shown" in page and "nothing could be scored for clamp" in page
    assert 'id="students"' not in page and not (tmp_path / "out" / "points.csv").exists()
