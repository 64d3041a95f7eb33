"""`refscore score` shows the ranked differences: a `differences` list in `--json`, CodeBLEU's
explanations with candidate ranges, a section in `--explain`'s text (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "client-vscode" / "e2e" / "workspace"


def score(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO / "server")}
    return subprocess.run([sys.executable, "-m", "refscore", "score", *args, "--metrics", "codebleu", "--no-daemon"],
                          capture_output=True, text=True, timeout=120, env=env)


def test_json_lists_differences_most_significant_first_with_both_ranges() -> None:
    result = score(str(SAMPLE / "totals.ref.py"), str(SAMPLE / "totals.py"), "--json", "--explain")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    differences = data["differences"]
    assert differences and all({"range", "reference_range", "reason", "weight"} <= set(d) for d in differences)
    weights = [d["weight"] for d in differences]
    assert weights == sorted(weights, reverse=True)
    first = differences[0]
    assert first["range"]["start"]["line"] == 8 and "`+=`" in first["reason"]  # `total = value`
    assert first["reference_range"]["start"]["line"] == 5  # `total += value`
    explanations = data["codebleu_details"]["explanations"]
    assert explanations and all("candidate_range" in e and "placed" in e for e in explanations)
    plus = next(e for e in explanations if e["component"] == "ngram_match" and e["text"] == "+=")
    assert plus["candidate_range"]["start"]["line"] == 8


def test_identical_files_have_an_empty_list_and_explain_says_none(tmp_path: Path) -> None:
    same = tmp_path / "same.py"
    same.write_text((SAMPLE / "totals.ref.py").read_text(encoding="utf-8"), encoding="utf-8")
    data = json.loads(score(str(SAMPLE / "totals.ref.py"), str(same), "--json").stdout)
    assert data["differences"] == []
    text = score(str(SAMPLE / "totals.ref.py"), str(same), "--explain").stdout
    assert "differences from the reference: none" in text


def test_explain_text_names_the_line_and_the_reference_line() -> None:
    text = score(str(SAMPLE / "totals.ref.py"), str(SAMPLE / "totals.py"), "--explain").stdout
    section = text.split("differences from the reference", 1)[1]
    assert "line 9 " in section and "`+=`" in section and "[reference line 6]" in section
