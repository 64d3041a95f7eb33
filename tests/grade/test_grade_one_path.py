"""One grader: the same HumanEval rows graded in one block and in blocks of 50 lines write the
same report files, columns and values (per-function scores and CrystalBLEU included)."""

from __future__ import annotations

import csv
import gzip
import io
import importlib.util
import json
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.eval.data import default_data_dir

#: the shared HumanEval data (``$REFSCORE_DATA_DIR``, beside the checkout, or /work/shared/data)
DATA = default_data_dir() / "humaneval" / "python.jsonl.gz"
#: the Parquet rows file is written when asked for (and pyarrow is there)
PARQUET = ["--parquet"] if importlib.util.find_spec("pyarrow") else []
ITEMS = 150
TOLERANCE = 1e-9
pytestmark = pytest.mark.timeout(300)


def humaneval_rows(count: int = ITEMS) -> list[dict]:
    """HumanEval-Python completions as whole functions (the body under one ``def``), with their
    task description as context on every third row."""
    if not DATA.exists():
        pytest.skip(f"{DATA} not here")
    rows = []
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for number, line in enumerate(fh):
            if len(rows) >= count:
                break
            pair = json.loads(line)
            row = {"id": f"{pair['task_id']}#{pair['completion_idx']}", "language": "python",
                   "candidate": "def solution(x):\n    " + pair["hyp"] + "\n\n\ndef helper(y):\n    return y\n",
                   "reference": "def solution(x):\n" + pair["ref"] + "\n"}
            if number % 3 == 0:
                row["context"] = pair["nl"]
            rows.append(row)
    rows[7]["id"] = rows[8]["id"]  # a repeated id gets #2 in both
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def grade(source: Path, out: Path, *extra: str) -> None:
    assert main(["grade", "--jsonl", str(source), "--metrics", "codebleu,chrf,crystalbleu", "--per-function",
                 "-o", str(out), "-q", "--no-cache", *PARQUET, *extra]) == 0


def same(expected, got, where: str = "") -> None:
    """Equal, floats to TOLERANCE, recursively."""
    if isinstance(expected, float) or isinstance(got, float):
        assert isinstance(expected, float) and isinstance(got, float), where
        assert abs(expected - got) <= TOLERANCE, (where, expected, got)
    elif isinstance(expected, dict):
        assert list(expected) == list(got), where
        for key in expected:
            same(expected[key], got[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(expected) == len(got), where
        for index, (a, b) in enumerate(zip(expected, got)):
            same(a, b, f"{where}[{index}]")
    else:
        assert expected == got, where


@pytest.fixture(scope="module")
def one_block(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("one-block")
    grade(write_jsonl(root / "he.jsonl", humaneval_rows()), root / "out")
    return root


def test_block_size_changes_no_report(one_block, tmp_path):
    source = one_block / "he.jsonl"
    grade(source, tmp_path, "--block-lines", "50")
    first, blocks = one_block / "out", tmp_path
    assert sorted(p.name for p in blocks.iterdir()) == sorted(p.name for p in first.iterdir())
    want, got = (json.loads((d / "grade.json").read_text(encoding="utf-8")) for d in (first, blocks))
    same(want["summary"], got["summary"], "summary")
    same(want["submissions"], got["submissions"], "submissions")
    assert {k: v for k, v in want["settings"].items() if k not in ("elapsed_s", "block_lines")} == \
        {k: v for k, v in got["settings"].items() if k not in ("elapsed_s", "block_lines")}
    rows = want["submissions"]
    assert len(rows) == ITEMS and len({r["id"] for r in rows}) == ITEMS
    assert all(isinstance(r["crystalbleu"], float) for r in rows)
    assert all(r["functions"] and r["functions"][0]["function"] == "solution" for r in rows)
    assert any(r["crystalbleu"] > 0 for r in rows) and any(r["codebleu_native"] > 0.2 for r in rows)
    for name in ("grade.csv", "grade.jsonl"):
        assert (first / name).read_bytes() == (blocks / name).read_bytes(), name
    header = next(csv.reader(io.StringIO((first / "grade.csv").read_text(encoding="utf-8"))))
    assert "crystalbleu" in header and "chrf" in header
    pq = pytest.importorskip("pyarrow.parquet")
    assert pq.read_table(first / "grade.parquet").equals(pq.read_table(blocks / "grade.parquet"))
    html = [(d / "grade.html").read_text(encoding="utf-8") for d in (first, blocks)]
    assert html[0] == html[1] and html[0].count("<details") == ITEMS


def test_files_and_mappings_are_blocks_too(tmp_path):
    """Submissions on the command line give the same rows in one block and in blocks of 7."""
    rows = humaneval_rows(40)
    ref = tmp_path / "ref.py"
    ref.write_text(rows[0]["reference"], encoding="utf-8")
    subs = tmp_path / "subs"
    subs.mkdir()
    for number, row in enumerate(rows):
        (subs / f"s{number:02d}.py").write_text(row["candidate"], encoding="utf-8")
    reports = []
    for extra in ((), ("--block-lines", "7")):
        out = tmp_path / f"out{len(reports)}"
        assert main(["grade", "-r", str(ref), str(subs), "--metrics", "codebleu,crystalbleu", "--per-function",
                     "-o", str(out), "-q", "--no-cache", "--fail-under", "0", "--allow-syntax-errors", *extra]) == 0
        reports.append(json.loads((out / "grade.json").read_text(encoding="utf-8")))
    same(reports[0]["submissions"], reports[1]["submissions"], "submissions")
    assert len(reports[0]["submissions"]) == 40 and all(r["functions"] for r in reports[0]["submissions"])
