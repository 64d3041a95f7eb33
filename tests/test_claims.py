"""Every figure README.md and the docs state comes from a report a named command wrote
(``benchmarks/claims.py``): a hand-copied or stale figure fails here."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_claims_{name}", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


claims = _load("claims")


def test_every_figure_in_the_docs_matches_its_report() -> None:
    assert claims.problems() == []


def test_every_claim_is_used_and_every_report_names_its_command_and_machine() -> None:
    used = {m.group(1) for doc in claims.DOCUMENTS for m in claims.MARKER.finditer((ROOT / doc).read_text("utf-8"))}
    assert used <= set(claims.CLAIMS)
    assert "eval.headline" in used and "codebleu.grade_ratio" in used  # the README's two big claims
    for name in {claim.report for claim in claims.CLAIMS.values()}:
        report = json.loads((claims.REPORTS / name).read_text("utf-8"))
        assert report["command"] and ("refscore" in report["command"] or "benchmarks/" in report["command"])
        assert len(report["machine"]["load_average"]) == 3 and report["machine"]["cores"] >= 1


def _bare_figures(text: str) -> list[str]:
    """Figures outside claim markers, code spans and code blocks: 3-decimal scores, speed ratios,
    durations, percentages."""
    text = claims.MARKER.sub("", text)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]+`", "", text)
    return re.findall(r"\b0\.\d{3}\b|\b\d+(?:\.\d+)?x\b|\b\d+(?:\.\d+)? ?ms\b|\b\d+(?:\.\d+)?%", text)


def test_the_readme_states_no_figure_by_hand() -> None:
    assert _bare_figures((ROOT / "README.md").read_text("utf-8")) == []
    assert _bare_figures("RefScore is 5.5x faster, tau 0.426") == ["5.5x", "0.426"]  # the rule can fail


def test_a_figure_that_drifts_from_its_report_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "docs").mkdir()
    shutil.copytree(claims.REPORTS, tmp_path / "docs" / "reports")
    for doc in claims.DOCUMENTS:
        shutil.copy(ROOT / doc, tmp_path / doc)
    readme = tmp_path / "README.md"
    readme.write_text(re.sub(r"(<!--claim:codebleu\.speed\.python-->)[^<]*", r"\g<1>9.9x", readme.read_text("utf-8")),
                      encoding="utf-8")
    monkeypatch.setattr(claims, "REPO", tmp_path)
    monkeypatch.setattr(claims, "REPORTS", tmp_path / "docs" / "reports")
    found = claims.problems()
    assert len(found) == 1 and "codebleu.speed.python reads '9.9x'" in found[0]
    assert claims.write() == ["README.md"] and claims.problems() == []


def _values(meets: bool) -> dict:
    return {"meets_rule": meets, "combined_held_out": {"humaneval_tau": 0.427, "conala_tau": 0.51},
            "best_single": {"tau": 0.415, "tau_label": "chrF++"}, "gain_over_best_tau": [0.012, -0.007, 0.031],
            "bert_conala_label": "CodeBERTScore", "bert_conala_tau": 0.532, "without_humaneval_tau": 0.366}


def test_the_headline_claims_better_ranking_only_when_the_rerun_meets_its_rule() -> None:
    held = claims.headline_sentence({**_values(False), "checks": {"humaneval_tau": False, "conala_tau": True}})
    assert "does not meet the rule" in held and "not met: humaneval tau" in held
    assert "+0.012 [-0.007, +0.031]" in held
    assert "never saw HumanEval: 0.366" in held
    assert "gain is not established" in claims.headline_sentence(_values(True))  # its interval holds 0
    sure = {**_values(True), "gain_over_best_tau": [0.02, 0.005, 0.035]}
    assert claims.headline_sentence(sure).startswith("on held-out problems it ranks candidates better")


def test_the_generated_part_of_the_correlation_page_is_the_committed_eval_result() -> None:
    """docs/correlation.md from "## Settings" on is what `refscore eval` renders from the result it
    wrote (docs/reports/eval-result.json): no table is edited by hand or left from an older run."""
    from refscore.eval.report import render

    result = json.loads((ROOT / "docs" / "reports" / "eval-result.json").read_text("utf-8"))
    rendered = render(result, result["command"])
    page = (ROOT / "docs" / "correlation.md").read_text("utf-8")
    assert page[page.index("## Settings"):] == rendered[rendered.index("## Settings"):]
    # and the claims report was derived from that same result
    values = claims.load_report("correlation.json")["values"]
    assert values["combined_held_out"]["humaneval_tau"] == pytest.approx(
        sum(result["cross_validation"]["combined_held_out"][lang]["tau"] for lang in ("python", "java", "js", "cpp")) / 4)
