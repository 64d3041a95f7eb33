"""The notes a report gives a teacher about each submission: errors told apart from warnings (by
colour and in words), code that does not parse flagged wherever its scores are shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from refscore.cli import main

pytestmark = pytest.mark.timeout(120)

REFERENCE = "def add(a, b):\n    return a + b\n"


def _class(root: Path) -> tuple[Path, Path]:
    (root / "ref.py").write_text(REFERENCE)
    subs = root / "subs"
    subs.mkdir()
    (subs / "ok.py").write_text("def add(x, y):\n    return x + y\n")
    (subs / "nocolon.py").write_text("def add(a, b)\n    return a + b\n")  # a warning: scored anyway
    (subs / "other.js").write_text("function add(a, b) { return a + b; }\n")  # an error: wrong language
    return root / "ref.py", subs


def _notes(html: str, table: str, name: str) -> str:
    """The Notes cell (the last) of ``name``'s row in the table ``table``."""
    body = html[html.index(f'id="{table}"'):]
    row = re.search(rf'<tr[^>]*data-id="[^"]*{re.escape(name)}"[^>]*>(.*?)</tr>', body, re.S)
    assert row, name
    return re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)[-1]


def _css_colour(html: str, selector: str) -> str:
    found = re.search(rf"{re.escape(selector)}\{{[^}}]*color:(#[0-9a-f]+)", html)
    assert found, selector
    return found.group(1)


@pytest.mark.parametrize("large", [False, True])
def test_warnings_are_not_shown_as_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, large: bool) -> None:
    if large:  # the page of a run too large for details: the lowest/highest and error tables
        from refscore.grade import run

        monkeypatch.setattr(run, "DETAIL_LIMIT", 1)
    reference, subs = _class(tmp_path)
    out = tmp_path / "out"
    assert main(["grade", "-r", str(reference), str(subs), "--metrics", "codebleu", "-o", str(out), "-q"]) == 0
    html = (out / "grade.html").read_text(encoding="utf-8")
    table = "lowest" if large else "results"
    warned = _notes(html, table, "nocolon.py")
    assert "syntax error near line 1" in warned and "Warning:" in warned and "Error:" not in warned
    assert 'class="note-warning"' in warned and 'class="note-error"' not in warned
    failed = _notes(html, "error-rows" if large else "results", "other.js")
    assert "Error:" in failed and 'class="note-error"' in failed and "Warning:" not in failed
    assert _css_colour(html, ".note-warning") != _css_colour(html, ".note-error")
