"""The HTML page of a large run lists every submission without its code (the page stays small)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refscore.cli import main


def _grade(tmp_path: Path, items: int) -> str:
    rows = [{"id": f"c{i}", "candidate": f"def f(x):\n    return x + {i}\n", "reference": "def f(y):\n    return y + 1\n",
             "language": "python"} for i in range(items)]
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code = main(["grade", "--jsonl", str(tmp_path / "runs.jsonl"), "--metrics", "codebleu", "-q", "--no-cache",
                 "-o", str(tmp_path / "out")])
    assert code == 0
    return (tmp_path / "out" / "grade.html").read_text(encoding="utf-8")


def test_a_small_run_shows_each_submissions_code(tmp_path: Path) -> None:
    page = _grade(tmp_path, 4)
    assert page.count('<pre class="code">') == 8  # submission and reference, four times
    assert page.count('class="pane"') == 8


def test_beyond_the_panes_limit_every_submission_is_listed_without_code(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("refscore.grade.steps.PANES_LIMIT", 3)
    monkeypatch.setattr("refscore.grade.html_report.PANES_LIMIT", 3)
    page = _grade(tmp_path, 4)
    assert '<pre class="code">' not in page and 'class="pane"' not in page
    assert page.count("<details") == 4  # each submission keeps its scores and notes
    assert "A run of more than 3 submissions is listed without each one&#x27;s code" in page or \
        "A run of more than 3 submissions is listed without each one's code" in page
    assert "grade.csv has every submission" in page
