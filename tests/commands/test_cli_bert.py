"""`refscore score` with CodeBERTScore: JSON tokens, model options, heat view, bad input (real model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "examples/python/reference.py"
CANDIDATE = REPO / "examples/python/candidate_builtin.py"


def refscore(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "refscore", "score", *args, "--no-daemon"], capture_output=True,
                          text=True, timeout=timeout, env=env)


def test_json_has_scores_model_and_tokens_with_ranges() -> None:
    result = refscore(str(REFERENCE), str(CANDIDATE), "--json", "--layer", "5")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    bert = data["codebertscore"]
    assert {"precision", "recall", "f1", "f3", "model", "layer", "device"} <= set(bert)
    assert bert["layer"] == 5 and bert["device"] == "cpu"
    text = CANDIDATE.read_text()
    lines = text.split("\n")
    reference_lines = REFERENCE.read_text().split("\n")
    assert data["tokens"], "every candidate gets token records"
    for token in data["tokens"]:
        start, end = token["range"]["start"], token["range"]["end"]
        assert start["line"] == end["line"]
        assert lines[start["line"]][start["character"]:end["character"]] == token["text"]
        assert -1.0 <= token["similarity"] <= 1.0
        if token["match"] is not None:
            m = token["match"]["range"]
            line = reference_lines[m["start"]["line"]]
            assert line[m["start"]["character"]:m["end"]["character"]] == token["match"]["text"]
    words = {t["text"]: t for t in data["tokens"]}
    # a word the reference does not have is among the weakest
    weakest = sorted(data["tokens"], key=lambda t: t["similarity"])[:3]
    assert "accumulate" in {t["text"] for t in weakest}
    assert words["values"]["similarity"] > words["accumulate"]["similarity"]


def test_table_shows_heat_view_and_missing_words(tmp_path: Path) -> None:
    result = refscore(str(REFERENCE), str(CANDIDATE))
    assert result.returncode == 0, result.stderr
    assert "CodeBERTScore" in result.stdout and "F3" in result.stdout
    assert "heat view" in result.stdout
    assert "«accumulate»" in result.stdout  # weak word marked when not on a terminal
    assert "missing from the candidate" in result.stdout
    coloured = refscore(str(REFERENCE), str(CANDIDATE), "--color", "always")
    assert "\x1b[41" in coloured.stdout


def test_idf_file_and_bad_inputs(tmp_path: Path) -> None:
    missing = refscore(str(REFERENCE), str(CANDIDATE), "--idf", str(tmp_path / "none.json"))
    assert missing.returncode == 3 and "no such IDF file" in missing.stderr
    assert "Traceback" not in missing.stderr
    idf = tmp_path / "idf.json"
    idf.write_text(json.dumps({"default": 1.0, "num_docs": 2, "idf": {"1000": 0.5}}))
    weighted = refscore(str(REFERENCE), str(CANDIDATE), "--idf", str(idf), "--json")
    assert weighted.returncode == 0, weighted.stderr
    assert "idf:yes" in json.loads(weighted.stdout)["codebertscore"]["signature"]
    huge = tmp_path / "huge.py"
    huge.write_text("x = 1\n" * 60_000)  # 360 KB: over CodeBERTScore's size limit, within CodeBLEU's token budget
    big = refscore(str(REFERENCE), str(huge), "--json")
    assert big.returncode == 0, big.stderr
    data = json.loads(big.stdout)
    assert "codebleu_native" in data
    assert any("codebertscore" in e.lower() for e in data.get("errors", [])), data.get("errors")
    empty = tmp_path / "empty.py"
    empty.write_text("   \n")
    blank = refscore(str(REFERENCE), str(empty), "--json")
    assert blank.returncode == 0, blank.stderr
    assert json.loads(blank.stdout)["codebertscore"]["f3"] == pytest.approx(0.0)
