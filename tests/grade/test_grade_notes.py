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
        from refscore.grade import steps

        monkeypatch.setattr(steps, "DETAIL_LIMIT", 1)
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


def test_code_that_does_not_parse_is_flagged_beside_its_refscore(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A missing colon or an unfinished ``return a +`` keeps a high combined number (the fit reads
    parse errors as one small input among many): every report says the number is for code that
    does not parse, where the number is shown."""
    import csv
    import json

    reference, subs = _class(tmp_path)
    (subs / "other.js").unlink()
    (subs / "unfinished.py").write_text("def add(a, b):\n    return a +\n")
    out = tmp_path / "out"
    main(["grade", "-r", str(reference), str(subs), "-o", str(out)])
    said = capsys.readouterr()
    data = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    rows = {Path(r["source"]).name: r for r in data["submissions"]}
    if rows["ok.py"]["refscore"] is None:
        pytest.skip(f"no combined number here: {rows['ok.py']['warnings'] or rows['ok.py']['errors']}")
    broken = ("nocolon.py", "unfinished.py")
    for name in broken:
        row = rows[name]
        assert row["refscore"] is not None and row["parse_error"].startswith("syntax error near line")
        warning = next(w for w in row["warnings"] if "does not parse" in w)
        assert "RefScore" in warning and "recovered" in warning
    assert not any("does not parse" in w for w in rows["ok.py"]["warnings"])
    with (out / "grade.csv").open(newline="", encoding="utf-8") as fh:
        assert sum("does not parse" in r["warnings"] for r in csv.DictReader(fh)) == 2
    # the terminal: the summary says how many do not parse, and what that means for their numbers
    assert "2 submissions do not parse" in said.out and "RefScore" in said.out.split("do not parse", 1)[1]
    # the page: the headline count, and a mark in the RefScore cell itself (a symbol and words)
    html = (out / "grade.html").read_text(encoding="utf-8")
    assert "2 submissions do not parse" in html
    for name in broken:
        body = html[html.index('id="results"'):]
        row = re.search(rf'<tr[^>]*data-id="[^"]*{name}"[^>]*>(.*?)</tr>', body, re.S).group(1)
        cell = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[3]  # Submission, Problem, Language, RefScore
        assert "does not parse" in cell and "&#9888;" in cell
    ok = re.search(r'<tr[^>]*data-id="[^"]*ok.py"[^>]*>(.*?)</tr>', html[html.index('id="results"'):], re.S).group(1)
    assert "does not parse" not in ok
    # the terminal line of each submission (no report file written)
    main(["grade", "-r", str(reference), str(subs), "--no-cache"])
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.startswith(str(subs))}
    assert all("does not parse" in lines[str(subs / n)] for n in broken)
    assert "does not parse" not in lines[str(subs / "ok.py")]


def test_without_the_combined_number_the_notes_do_not_name_it(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    import json

    reference, subs = _class(tmp_path)
    out = tmp_path / "out"
    main(["grade", "-r", str(reference), str(subs), "--metrics", "codebleu", "-o", str(out)])
    said = capsys.readouterr().out
    rows = {Path(r["source"]).name: r for r in json.loads((out / "grade.json").read_text())["submissions"]}
    warning = next(w for w in rows["nocolon.py"]["warnings"] if w.startswith("does not parse: "))
    assert "RefScore" not in warning
    line = next(line for line in said.splitlines() if "do not parse" in line or "does not parse" in line)
    assert line.startswith("1 submission does not parse") and "RefScore" not in line
    html = (out / "grade.html").read_text(encoding="utf-8")
    assert "1 submission does not parse" in html and "RefScore too" not in html


def test_the_json_summary_counts_the_submissions_that_do_not_parse(tmp_path: Path) -> None:
    """Each row's ``parse_error`` says it; the summary counts them, as the headlines do."""
    import json

    reference, subs = _class(tmp_path)
    (subs / "unfinished.py").write_text("def add(a, b):\n    return a +\n")
    out = tmp_path / "out"
    main(["grade", "-r", str(reference), str(subs), "--metrics", "codebleu", "-o", str(out), "-q"])
    data = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    assert sum(bool(r["parse_error"]) for r in data["submissions"]) == 2
    assert data["summary"]["not_parsing"] == 2 and data["summary"]["with_errors"] == 1  # other.js
