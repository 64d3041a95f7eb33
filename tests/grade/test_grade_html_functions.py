"""``--per-function`` on the HTML page: each submission's detail has a small table of its
functions, the reference function each was paired with and their scores; bounded and escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.grade.html_detail import MAX_FUNCTION_ROWS
from refscore.grade.html_report import build_html
from refscore.grade.items import GradeItem
from refscore.grade.rows import GradeResult
from refscore.grade.stream_stats import RowStats

pytestmark = pytest.mark.timeout(120)

REFERENCE = ("def total(nums):\n    return sum(nums)\n\n\n"
             "def largest(nums):\n    best = nums[0]\n    for n in nums:\n        best = max(best, n)\n    return best\n")
SUBMISSION = ("def largest(values):\n    return max(values)\n\n\n"
              "def total(values):\n    acc = 0\n    for v in values:\n        acc += v\n    return acc\n\n\n"
              "def helper():\n    return 1\n")


def _detail(page: str, index: int = 0) -> str:
    return re.search(rf'<details id="s{index}".*?</details>', page, re.S).group(0)


def test_the_detail_shows_each_functions_scores(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REFERENCE)
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "a.py").write_text(SUBMISSION)
    out = tmp_path / "out"
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "subs"), "--metrics", "codebleu",
                 "--per-function", "--no-cache", "-q", "-o", str(out)]) == 0
    functions = json.loads((out / "grade.json").read_text(encoding="utf-8"))["submissions"][0]["functions"]
    detail = _detail((out / "grade.html").read_text(encoding="utf-8"))
    table = re.search(r'<table class="functions".*?</table>', detail, re.S).group(0)
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S)
    assert len(rows) == len(functions) == 3
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in rows]
    assert cells[0][0] == "largest (line 1)" and cells[0][1] == "largest"
    assert cells[1][0] == "total (line 5)" and cells[1][1] == "total"
    assert cells[1][2] == f"{functions[1]['codebleu_native']:.3f}"
    assert cells[2][0] == "helper (line 12)" and "no reference function" in cells[2][1]


def test_the_function_table_is_bounded_and_escaped() -> None:
    many = [{"function": f"f{i}", "line": i + 1, "reference_function": "<script>x</script>", "reference_index": 1,
             "matched_by": "alignment", "codebleu": 0.5, "codebertscore_f1": None, "codebertscore_f3": None}
            for i in range(MAX_FUNCTION_ROWS + 5)]
    row = {"id": "a.py", "problem": None, "language": "python", "source": "a.py", "codebleu": 0.5, "warnings": [],
           "errors": [], "functions": many}
    stats = RowStats("codebleu")
    stats.add(row)
    item = GradeItem("a.py", "x = 1\n", ("x = 2\n", "x = 3\n"), "python", reference_names=("ref.py", "alt <b>.py"))
    page = build_html(stats, {"metrics": ["codebleu"], "engine": "local"}, "t", ["grade.json"],
                      [(GradeResult(item), row)])
    detail = _detail(page)
    assert detail.count("<tr><td>f") == MAX_FUNCTION_ROWS and "5 more functions in grade.json" in detail
    assert "<script>x" not in detail and "&lt;script&gt;x&lt;/script&gt;" in detail
    assert "alt &lt;b&gt;.py" in detail and "by alignment" in detail
    assert "CodeBERTScore" not in detail.split('<table class="functions"', 1)[1].split("</table>")[0]
    without = {**row, "functions": None}
    plain = build_html(stats, {"metrics": ["codebleu"], "engine": "local"}, "t", ["grade.json"],
                       [(GradeResult(item), without)])
    assert 'class="functions"' not in plain
