"""One vocabulary (issue 21 part 4, issue 28 item 7): ``score --json``'s ``scores`` object and
the grade report's columns use the same names and numbers; only the package's rule keeps the
``codebleu`` package's keys (``--codebleu-rule compat``'s ``codebleu`` object); explanations carry line/character ranges like tokens
and differences; the heat buckets are the client's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.vocabulary import PACKAGE_KEYS, SCORE_NAMES, heat_bucket

REPO = Path(__file__).resolve().parents[1]
REF, CAND = REPO / "examples/python/reference.py", REPO / "examples/python/candidate_close.py"


def _score_json(*extra: str) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-m", "refscore", "score", str(REF), str(CAND), "--json",
                          "--metrics", "codebleu,chrf", *extra], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_score_json_and_grade_share_names_and_numbers(tmp_path, capsys) -> None:
    data = _score_json()
    scores = data["scores"]
    assert set(scores) <= set(SCORE_NAMES) and {"codebleu_native", "ngram_match", "chrf"} <= set(scores)
    # the package's keys hold the package's rule only: the native rule's dict has names of its own
    assert not set(data["codebleu_native"]) & set(PACKAGE_KEYS.values())
    assert data["codebleu_native"]["ngram_match"] == scores["ngram_match"]
    out = tmp_path / "out"
    assert main(["grade", "-r", str(REF), str(CAND), "--metrics", "codebleu,chrf", "--json", str(out / "g.json"),
                 "-q", "--no-cache"]) == 0, capsys.readouterr().err
    row = json.loads((out / "g.json").read_text(encoding="utf-8"))["submissions"][0]
    assert {k: row[k] for k in scores} == scores


def test_explanations_use_line_character_ranges() -> None:
    explanations = _score_json("--explain")["codebleu_details"]["explanations"]
    assert explanations
    reference_lines = REF.read_text(encoding="utf-8").splitlines()
    for item in explanations:
        assert not {"start", "end", "candidate_start", "candidate_end"} & set(item)
        where = item["reference_range"]
        assert set(where) == {"start", "end"} and set(where["start"]) == {"line", "character"}
        assert where["start"]["line"] < len(reference_lines)
        assert item["candidate_range"] is None or set(item["candidate_range"]) == {"start", "end"}
    first = explanations[0]
    line = reference_lines[first["reference_range"]["start"]["line"]]
    assert line[first["reference_range"]["start"]["character"]:].startswith(first["text"].split()[0])


@pytest.mark.parametrize("similarity, bucket", [(0.10, "weak"), (0.2999, "weak"), (0.30, "low"), (0.4499, "low"),
                                                (0.45, "fair"), (0.5999, "fair"), (0.60, None),
                                                (float("nan"), None)])
def test_heat_buckets_are_the_clients(similarity, bucket) -> None:
    """The same edges as client-vscode/test/heat.test.ts (the client reads them generated)."""
    assert heat_bucket(similarity, 0.45) == bucket
    assert heat_bucket(0.60, 0.8) == "weak"


def test_the_eval_reports_labels_are_the_vocabularys(monkeypatch) -> None:
    """eval/report.py (docs/correlation.md's tables) names the scores in the vocabulary's words:
    relabel a component and a score there, and the report's labels follow."""
    import importlib

    from refscore import vocabulary
    from refscore.eval import report

    assert report.LABELS["bleu"] == "BLEU (CodeBLEU n-gram component)"  # today's texts unchanged
    assert report._label("cbs_f1_l4_ctx") == "CodeBERTScore F1 MiniLM l4 + intent"
    monkeypatch.setitem(vocabulary.COMPONENT_LABELS, "syntax_match", "AST shape")
    monkeypatch.setitem(vocabulary.METRIC_LABELS, "codebertscore", "CBS")
    monkeypatch.setitem(vocabulary.SCORE_LABELS, "chrf", "CHRF")
    monkeypatch.setitem(vocabulary.SCORE_LABELS, "codebleu", "Code-BLEU")
    try:
        relabelled = importlib.reload(report)
        assert relabelled.LABELS["syntax_match_native"] == "Code-BLEU AST shape (native)"
        assert relabelled.LABELS["chrf"].startswith("CHRF ") and relabelled.LABELS["chrfpp"].startswith("CHRF++ ")
        assert relabelled.LABELS["codebleu_compat"].startswith("Code-BLEU,")
        assert relabelled._label("cbs_f1_l4") == "CBS F1 MiniLM l4"
    finally:
        monkeypatch.undo()
        importlib.reload(report)
    for component, label in vocabulary.COMPONENT_LABELS.items():
        assert report.LABELS[f"{component}_native"].startswith(f"{vocabulary.SCORE_LABELS['codebleu']} {label} (")

