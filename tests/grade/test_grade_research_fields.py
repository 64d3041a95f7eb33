"""What a researcher's `refscore grade --jsonl` keeps and adds: integer ids stay integers, the row
says which reference CodeBERTScore matched best, and grade.json summarises each language apart."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ADD = "def add(a, b):\n    return a + b\n"
ADD_OTHER = "def add(a, b):\n    total = 0\n    for value in (a, b):\n        total += value\n    return total\n"
JS_DOUBLE = "function double(x) {\n  return x * 2;\n}\n"


def test_ids_the_winning_reference_and_a_summary_per_language(tmp_path: Path) -> None:
    rows = [
        {"id": 7, "references": [ADD_OTHER, ADD], "candidate": ADD, "language": "python"},
        {"id": 8, "references": [ADD, ADD_OTHER], "candidate": ADD, "language": "python"},
        {"id": 9, "reference": JS_DOUBLE, "candidate": "function double(y) {\n  return 2 * y;\n}\n",
         "language": "javascript"},
    ]
    source = tmp_path / "runs.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "refscore", "grade", "--jsonl", str(source), "-o", str(out),
                           "--metrics", "codebleu,codebertscore", "--no-daemon", "--no-cache"],
                          capture_output=True, text=True, timeout=600, env={**__import__("os").environ,
                                                                           "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (out / "grade.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in lines] == [7, 8, 9]  # integers, not "7"
    assert [row["codebertscore_reference"] for row in lines] == [1, 0, 0]  # the exact copy wins
    with (out / "grade.csv").open(newline="", encoding="utf-8") as handle:
        assert [row["codebertscore_reference"] for row in csv.DictReader(handle)] == ["1", "0", "0"]
    summary = json.loads((out / "grade.json").read_text(encoding="utf-8"))["summary"]
    by_language = summary["by_language"]
    assert set(by_language) == {"python", "javascript"}
    assert by_language["python"]["submissions"] == 2 and by_language["javascript"]["submissions"] == 1
    assert by_language["python"]["metrics"]["codebleu_native"]["n"] == 2
