"""Issue 28 item 13: the HTML report summarises each problem on its own (not one pooled set of
histograms), and its table fits a 1,400 px window with every score column (Notes not cut off)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from refscore.grade.html_report import HISTOGRAM_PROBLEMS, build_html
from refscore.grade.items import GradeItem
from refscore.grade.rows import SCORE_COLUMNS, GradeResult
from refscore.grade.stream_stats import RowStats

CHROMIUM = "/usr/bin/chromium"
SETTINGS = {"metrics": ["codebleu", "codebertscore", "chrf", "tsed", "crystalbleu"], "engine": "local"}


def _rows(problems: int, per_problem: int) -> list[dict]:
    rows = []
    for p in range(problems):
        for s in range(per_problem):
            value = (s + 1) / (per_problem + 1) * (1 if p % 2 else 0.5)
            rows.append({**{c: value for c in SCORE_COLUMNS}, "id": f"problem_{p}/class/a_rather_long_student_name_{s}.py",
                         "problem": f"problem_{p}", "language": "python", "source": "x.py", "warnings": [],
                         "errors": ["not scored: an error message long enough to need wrapping in the Notes column"]
                         if s == 0 else []})
    return rows


def _page(rows: list[dict], details: bool = True) -> str:
    stats = RowStats("codebleu", per_problem=True)
    for row in rows:
        stats.add(row)
    shown = None
    if details:
        shown = [(GradeResult(GradeItem(r["id"], "x = 1\n", ("x = 2\n",), "python", problem=r["problem"])), r)
                 for r in rows]
    return build_html(stats, SETTINGS, "layout", ["grade.csv"], shown)


def test_each_problem_has_its_own_summary_and_histograms():
    html = _page(_rows(3, 4))
    assert html.count('<section class="problem"') == 3
    assert "All 3 problems together" in html and 'id="summary-0"' in html and 'id="summary-2"' in html
    assert html.count("<svg") == 3 * len(SCORE_COLUMNS)
    section = html[html.index('id="problem-0"'):html.index('id="problem-1"')]
    assert "4 submissions, 1 with errors" in section
    one = _page(_rows(1, 4))  # one problem: one summary, as before
    assert '<section class="problem"' not in one and one.count("<svg") == len(SCORE_COLUMNS)


def test_many_problems_get_one_table_of_means():
    html = _page(_rows(HISTOGRAM_PROBLEMS + 1, 2), details=False)
    assert 'id="problems"' in html and "<svg" not in html
    assert len(re.findall(r"<tr><td data-v=\"problem_\d+\"", html)) == HISTOGRAM_PROBLEMS + 1


def _rendered(tmp_path: Path, page: Path, attribute: str) -> str:
    """The value the page's measuring script left in ``<body attribute=...>``, as headless
    Chromium renders the page in a 1,400 x 1,000 window."""
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
            f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000", "--dump-dom", page.as_uri()]
    dom = subprocess.run(args, capture_output=True, text=True, timeout=90)
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(f'{attribute}="([^"]*)"', dom.stdout)
    assert found is not None, dom.stdout[-500:]
    return found.group(1)


MEASURE = """<script>
var table = document.getElementById('results'), wrap = table.closest('.tablewrap');
var head = table.tHead.rows[0].cells, notes = head[head.length - 1].getBoundingClientRect();
document.body.setAttribute('data-fit', (table.scrollWidth <= wrap.clientWidth + 1 && notes.right <= window.innerWidth)
  ? 'yes' : 'no ' + table.scrollWidth + ' > ' + wrap.clientWidth + ', notes end at ' + notes.right);
</script></body>"""


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_the_table_fits_1400_px_with_every_column(tmp_path):
    page = tmp_path / "grade.html"
    page.write_text(_page(_rows(2, 5)).replace("</body>", MEASURE), encoding="utf-8")
    assert _rendered(tmp_path, page, "data-fit") == "yes"


def test_an_interrupted_run_says_so_at_the_top_of_the_page():
    """After Ctrl-C the rows not scored carry the interrupted note: the page's headline says the
    run was interrupted and how many are left, rather than only counting them as errors."""
    from refscore.grade.rows import INTERRUPTED

    rows = _rows(1, 4)
    for row in rows[2:]:
        row.update({c: None for c in SCORE_COLUMNS}, errors=[INTERRUPTED])
    stats = RowStats("codebleu")
    for row in rows:
        stats.add(row)
    html = build_html(stats, {**SETTINGS, "interrupted": True}, "layout", ["grade.csv"], None)
    header = html[html.index("<header>"):html.index("</header>")]
    assert "interrupted" in header and "2 of 4 submissions not scored" in header
    assert "rerun the same command" in header
    assert "interrupted" not in build_html(stats, SETTINGS, "layout", ["grade.csv"], None).split("</header>")[0]


PANES = """<script>
var panes = document.querySelectorAll('.panes .pane'), a = panes[0].getBoundingClientRect(),
    b = panes[1].getBoundingClientRect(), page = document.documentElement.scrollWidth;
document.body.setAttribute('data-fit', (page <= window.innerWidth && Math.abs(a.width - b.width) < 2)
  ? 'yes' : 'no: page ' + page + ' px wide, panes ' + a.width + ' and ' + b.width + ' px');
</script></body>"""


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_a_long_file_name_or_code_line_stays_in_the_window(tmp_path):
    """A 200-character file name pushed the page past the window (the details' summary did not
    wrap), and a long code line widened the submission's pane to 3,000 px, squeezing the
    reference beside it to a sliver: each pane now takes half and scrolls its own code."""
    name = "subs/" + "L" * 200 + ".py"
    row = {**{c: 0.5 for c in SCORE_COLUMNS}, "id": name, "problem": None, "language": "python", "source": name,
           "warnings": [], "errors": []}
    stats = RowStats("codebleu")
    stats.add(row)
    item = GradeItem(name, "def add(a, b):\n    return a + b  # " + "word " * 80 + "\n",
                     ("def add(a, b):\n    return a + b\n",), "python")
    page = tmp_path / "grade.html"
    page.write_text(build_html(stats, SETTINGS, "layout", ["grade.csv"], [(GradeResult(item), row)])
                    .replace("</body>", PANES), encoding="utf-8")
    assert _rendered(tmp_path, page, "data-fit") == "yes"


SORT = """<script>
function order(){ return Array.prototype.map.call(document.querySelectorAll('#results tbody tr'),
  function(r){ return r.getAttribute('data-id'); }).join(','); }
var heads = document.querySelectorAll('#results th'), seen = [];
heads[0].click(); seen.push(order());
heads[3].click(); seen.push(order()); heads[3].click(); seen.push(order());
document.body.setAttribute('data-sorted', seen.join(' | '));
</script></body>"""


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_sorting_puts_unscored_rows_last_and_orders_names_naturally(tmp_path):
    """Sorted high to low, the rows without a score came first (an empty cell counted as the
    highest); ids sharing a leading number (``2/bob.py``, ``2/alice.py``) were compared as the
    number 2 only, so they stayed unsorted, and ``10/`` came before ``9/`` nowhere consistently."""
    values = {"2/bob.py": 0.5, "2/alice.py": 0.9, "10/carl.py": 0.1, "9/dora.py": None}
    rows = []
    for name, value in values.items():
        rows.append({**{c: value for c in SCORE_COLUMNS}, "id": name, "problem": None, "language": "python",
                     "source": name, "warnings": [], "errors": [] if value is not None else ["empty submission"]})
    stats = RowStats("codebleu")
    for row in rows:
        stats.add(row)
    shown = [(GradeResult(GradeItem(r["id"], "x = 1\n", ("x = 2\n",), "python")), r) for r in rows]
    page = tmp_path / "grade.html"
    page.write_text(build_html(stats, {"metrics": ["codebleu"], "engine": "local"}, "sort", ["grade.csv"], shown)
                    .replace("</body>", SORT), encoding="utf-8")
    by_name, low_high, high_low = _rendered(tmp_path, page, "data-sorted").split(" | ")
    assert by_name == "2/alice.py,2/bob.py,9/dora.py,10/carl.py"
    assert low_high == "10/carl.py,2/bob.py,2/alice.py,9/dora.py"
    assert high_low == "2/alice.py,2/bob.py,10/carl.py,9/dora.py"


def test_one_submission_is_not_one_submissions():
    rows = _rows(1, 1)
    stats = RowStats("codebleu")
    for row in rows:
        stats.add(row)
    header = build_html(stats, SETTINGS, "one", ["grade.csv"], None).split("</header>")[0]
    assert "1 submission, 1 with errors" in header, header
    assert "2 submissions, 2 with errors" in _page(_rows(2, 1)).split("</header>")[0]
    assert "Problem problem_0: 1 submission, 1 with errors" in _page(_rows(2, 1))
