"""One bad row or file name never ends a run (issue 25, items 4 and 5).

A JSONL row nested 2,000 levels deep was `internal error: RecursionError`, exit 5, no reports (both
engines); an escaped lone surrogate (`"\\udc00"`) in a candidate was exit 5 in memory and a
traceback block by block; a file in a class folder whose name is not UTF-8 (`\\xff\\xfe.py`) made
`-o`, `--csv` and `--json` fail with exit 5 after scoring the whole class. Now each is an error row
(or, for a name, a row under a readable name) and the reports are written. Real CLI runs.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_refscore as refscore

REF = "def add(a, b):\n    total = a + b\n    return total\n"
CAND = "def add(x, y):\n    s = x + y\n    return s\n"

pytestmark = pytest.mark.timeout(300)


def _row(**fields: object) -> str:
    return json.dumps({"candidate": CAND, "reference": REF, "language": "python", **fields})


HOSTILE = [
    _row(id="good-1"),
    '{"id": "deep", "candidate": ' + "[" * 2000 + "]" * 2000 + ', "reference": "x", "language": "python"}',
    '{"id": "deep-id", "id2": 1, "candidate": "x", "reference": "x", "language": "python", "extra": '
    + '{"a": ' * 2000 + "1" + "}" * 2000 + "}",
    '{"id": "sur-cand", "candidate": "def f():\\n    return \\"\\udc00\\"\\n", "reference": "def f():\\n    return 1\\n",'
    ' "language": "python"}',
    '{"id": "sur-ref", "candidate": "x = 1\\n", "reference": ["x = 1\\n", "y = \\"\\ud800\\"\\n"], "language": "python"}',
    '{"id": "sur-ctx", "candidate": "x = 1\\n", "reference": "x = 1\\n", "context": "\\udfff", "language": "python"}',
    '{"id": "\\udc00 id", "candidate": "x = 1\\n", "reference": "x = 1\\n", "language": "python"}',
    '{"id": {"nested": [1, 2]}, "problem": [[3]], "candidate": "x = 1\\n", "reference": "x = 1\\n",'
    ' "language": "python"}',
    _row(id="good-2"),
]


def _grade(tmp_path: Path, *engine: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    out = tmp_path / ("out" + "".join(engine).replace("-", ""))
    result = refscore("grade", "--jsonl", "runs.jsonl", "--metrics", "codebleu", "-q", *engine, "-o", str(out),
                      cwd=tmp_path)
    rows = json.loads((out / "grade.json").read_text())["submissions"] if (out / "grade.json").exists() else []
    return result, rows


def test_deep_nesting_and_lone_surrogates_are_error_rows_in_both_engines(tmp_path: Path) -> None:
    (tmp_path / "runs.jsonl").write_text("\n".join(HOSTILE) + "\n")
    runs = {name: _grade(tmp_path, *args) for name, args in
            {"in-memory": (), "block-wise": ("--block-lines", "2")}.items()}
    for name, (result, rows) in runs.items():
        assert result.returncode == 0, (name, result.stderr)
        assert "Traceback" not in result.stderr and "internal error" not in result.stderr, name
        by_id = {row["id"]: row for row in rows}
        assert len(rows) == len(HOSTILE), name
        for good in ("good-1", "good-2"):
            assert by_id[good]["codebleu_native"] is not None and not by_id[good]["errors"], (name, good)
        for line in (2, 3):  # nested in the candidate or in a key nobody reads
            assert by_id[f"runs.jsonl:{line}"]["errors"] == [f"runs.jsonl:{line}: JSON nested too deeply to read"]
        for bad, key, point in (("sur-cand", "candidate", "U+DC00"), ("sur-ref", "reference", "U+D800"),
                                ("sur-ctx", "context", "U+DFFF")):
            assert by_id[bad]["codebleu_native"] is None, (name, bad)
            assert f"'{key}' holds a lone surrogate ({point}" in by_id[bad]["errors"][0], (name, bad)
        assert by_id["\\udc00 id"]["codebleu_native"] == 1.0  # an id is spelled out, never the end of the reports
        assert by_id['{"nested": [1, 2]}']["problem"] == "[[3]]"  # JSON, never a Python repr
    (_, memory), (_, blocks) = runs["in-memory"], runs["block-wise"]
    strip = [{k: v for k, v in row.items() if k not in ("cached",)} for row in memory]
    assert strip == [{k: v for k, v in row.items() if k not in ("cached",)} for row in blocks]


@pytest.mark.parametrize("outputs", [("-o", "out"), ("--csv", "out/r.csv"), ("--json", "out/r.json")])
def test_a_file_name_that_is_not_utf8_never_stops_the_reports(tmp_path: Path, outputs: tuple[str, str]) -> None:
    """`subs/\\xff\\xfe.py` is graded and shown as `subs/\\\\xff\\\\xfe.py` in every report."""
    (tmp_path / "ref.py").write_text(REF)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.py").write_text(CAND)
    with open(os.path.join(os.fsencode(subs), b"\xff\xfe.py"), "w") as fh:
        fh.write(CAND)
    result = refscore("grade", "-r", "ref.py", "subs", "--metrics", "codebleu", "-q", *outputs, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stderr
    report = tmp_path / (outputs[1] if outputs[0] != "-o" else "out/grade.json")
    if report.suffix == ".csv":
        text = report.read_text(encoding="utf-8")
        assert "subs/\\xff\\xfe.py" in text
        rows = [json.loads(line) for line in report.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines()]
    else:
        rows = json.loads(report.read_text(encoding="utf-8"))["submissions"]
    scores = {row["id"]: row["codebleu_native"] for row in rows}
    assert scores["subs/\\xff\\xfe.py"] == scores["subs/a.py"] is not None


def test_a_folder_name_that_is_not_utf8_is_one_submission_per_folder(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    folder = os.path.join(os.fsencode(tmp_path), b"class", b"\xe9l\xe8ve")
    os.makedirs(folder)
    with open(os.path.join(folder, b"main.py"), "w") as fh:
        fh.write(CAND)
    result = refscore("grade", "-r", "ref.py", "class", "--per-folder", "--metrics", "codebleu", "-q", "-o", "out",
                      cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = json.loads((tmp_path / "out" / "grade.json").read_text(encoding="utf-8"))["submissions"]
    assert [row["id"] for row in rows] == ["class/\\xe9l\\xe8ve"] and rows[0]["codebleu_native"] is not None
    assert "\\xe9l\\xe8ve" in (tmp_path / "out" / "grade.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("depth", [500, 900])
def test_a_field_nested_hundreds_deep_is_an_error_row_not_an_internal_error(tmp_path: Path, depth: int) -> None:
    """JSON's reader takes ~990 levels, but storing the row recursed 3 frames a level: a passed-
    through field 500 deep was 'internal error: RecursionError', exit 5, no reports. A row nested
    deeper than any real data is an error row saying so; the other rows are scored."""
    deep = '{"id": "deep", "candidate": "x = 1\\n", "reference": "x = 1\\n", "language": "python", "extra": ' \
        + "[" * depth + "]" * depth + "}"
    (tmp_path / "runs.jsonl").write_text("\n".join([_row(id="good"), deep]) + "\n")
    for engine in ((), ("--block-lines", "1")):
        result, rows = _grade(tmp_path, *engine)
        assert result.returncode == 0 and "internal error" not in result.stderr, result.stderr
        assert rows[0]["codebleu_native"] is not None
        assert rows[1]["codebleu_native"] is None and "nested too deeply" in rows[1]["errors"][0]


def test_lone_surrogates_in_passed_through_fields_are_spelled_out(tmp_path: Path) -> None:
    """A lone surrogate in a field nobody scores (its value, a nested value, its name) stopped every
    report: 'internal error: UnicodeEncodeError', exit 5. It is spelled ``\\udc00`` as in an id,
    the row scored, in memory and block by block alike."""
    rows = ['{"id": "v", "candidate": "x = 1\\n", "reference": "x = 1\\n", "language": "python", "note": "\\udc00"}',
            '{"id": "k", "candidate": "x = 1\\n", "reference": "x = 1\\n", "language": "python", "\\ud800k": 1}',
            ('{"id": "n", "candidate": "x = 1\\n", "reference": "x = 1\\n", "language": "python",'
             ' "meta": {"\\udfff": ["\\udc01"]}}')]
    (tmp_path / "runs.jsonl").write_text("\n".join(rows) + "\n")
    runs = [_grade(tmp_path, *engine) for engine in ((), ("--block-lines", "1"))]
    for result, got in runs:
        assert result.returncode == 0 and "internal error" not in result.stderr, result.stderr
        by_id = {row["id"]: row for row in got}
        assert all(row["codebleu_native"] == 1.0 for row in got)
        assert by_id["v"]["note"] == "\\udc00" and by_id["k"]["\\ud800k"] == 1
        assert by_id["n"]["meta"] == {"\\udfff": ["\\udc01"]}
    strip = [[{k: v for k, v in r.items() if k != "cached"} for r in got] for _, got in runs]
    assert strip[0] == strip[1]
