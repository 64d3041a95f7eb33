"""CodeBLEU weights: the native rule normalises them to sum to 1 (a copy of the reference scores
1.0 whatever the weights); the compat API keeps the package's meaning; weights that are not four
finite non-negative numbers are refused: exit 2 in the CLI, a settings message in the editor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.compat import calc_codebleu
from refscore.lsp.settings import Settings, parse_settings
from refscore.metrics.weights import WeightsError, check_weights, normalise
from refscore.scoring.codebleu import score_codebleu
from tests.lsp import samples
from tests.lsp.harness import session

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "examples/python/reference.py"
CANDIDATE = REPO / "examples/python/candidate_close.py"


def grade(tmp_path: Path, weights: str, *files: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "refscore", "grade", "-r", str(REFERENCE), *map(str, files),
                           "--metrics", "codebleu", "--weights", weights, "--no-cache", "-q",
                           "--json", str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=300, env=env)


def codebleu_of(tmp_path: Path) -> dict[str, float]:
    rows = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["submissions"]
    return {Path(row["source"]).name if row.get("source") else row["id"]: row["codebleu_native"] for row in rows}


def test_grade_normalises_weights(tmp_path: Path) -> None:
    copy = tmp_path / "copy.py"
    copy.write_text(REFERENCE.read_text(encoding="utf-8"), encoding="utf-8")
    assert grade(tmp_path, "1,1,1,1", copy, CANDIDATE).returncode == 0
    ones = codebleu_of(tmp_path)
    assert grade(tmp_path, "0.1,0.1,0.1,0.1", copy, CANDIDATE).returncode == 0
    tenths = codebleu_of(tmp_path)
    assert grade(tmp_path, "0.25,0.25,0.25,0.25", copy, CANDIDATE).returncode == 0
    default = codebleu_of(tmp_path)
    assert ones["copy.py"] == pytest.approx(1.0) and tenths["copy.py"] == pytest.approx(1.0)
    assert ones == pytest.approx(default) and tenths == pytest.approx(default)


@pytest.mark.parametrize("weights, needle", [
    ("nan,0.25,0.25,0.25", "'nan' is not a non-negative finite number"),
    ("inf,0,0,0", "'inf' is not a non-negative finite number"),
    ("1e308,1e308,1e308,1e308", "too large to add up"),
    ("0,0,0,0", "all 0"),
    ("1,1,1", "expected four"),
    ("a,b,c,d", "'a' is not a number"),
    ("-1,1,1,1", "'-1' is not a non-negative finite number"),  # was argparse's "expected one argument"
    ("-.5,1,1,1", "'-.5' is not a non-negative finite number"),
])
def test_grade_refuses_unusable_weights(tmp_path: Path, weights: str, needle: str) -> None:
    result = grade(tmp_path, weights, CANDIDATE)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "four non-negative finite numbers" in lines[0]


def test_native_api_normalises_and_signs_the_weights_used() -> None:
    ref, cand = REFERENCE.read_text(encoding="utf-8"), CANDIDATE.read_text(encoding="utf-8")
    scaled = score_codebleu([ref], cand, "python", (2, 2, 4, 0))
    unit = score_codebleu([ref], cand, "python", (0.25, 0.25, 0.5, 0.0))
    assert scaled.score == pytest.approx(unit.score) and scaled.signature == unit.signature
    assert score_codebleu([ref], ref, "python", (1, 1, 1, 1)).score == pytest.approx(1.0)
    with pytest.raises(WeightsError):
        score_codebleu([ref], cand, "python", (float("nan"), 1, 1, 1))


def test_compat_api_keeps_the_package_meaning() -> None:
    ref = REFERENCE.read_text(encoding="utf-8")
    assert calc_codebleu([ref], [ref], "python", weights=(1, 1, 1, 1))["codebleu"] == pytest.approx(4.0)


def test_check_and_normalise() -> None:
    assert normalise((1, 1, 1, 1)) == (0.25, 0.25, 0.25, 0.25)
    assert normalise((0.25, 0.25, 0.25, 0.25)) == (0.25, 0.25, 0.25, 0.25)  # the default is exact
    assert normalise((1e308, 0, 0, 0)) == (1.0, 0.0, 0.0, 0.0)
    for bad in ((float("inf"), 0, 0, 0), (-1, 1, 1, 1), (True, 1, 1, 1), "1111", (1, 1)):
        with pytest.raises(WeightsError):
            check_weights(bad)


def test_settings_refuse_unusable_weights_with_a_message() -> None:
    for bad in (["nan", 1, 1, 1], [1e308] * 4, "1,1,1,1", [1, 2], [-1, 1, 1, 1]):
        settings, problems = parse_settings({"codebleu": {"weights": bad}})
        assert settings.codebleu_weights == Settings().codebleu_weights
        assert len(problems) == 1 and problems[0].startswith("refscore.codebleu.weights:")
        assert "four non-negative finite numbers" in problems[0]
    settings, problems = parse_settings({"codebleu": {"weights": [1, 1, 1, 1]}})
    assert settings.codebleu_weights == (1, 1, 1, 1) and not problems


@pytest.mark.asyncio
async def test_editor_normalises_weights(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "w", candidate=samples.REFERENCE)  # a copy of the reference
    async with session(tmp_path, settings={"codebleu": {"weights": [1, 1, 1, 1]}}) as s:
        summary = await s.wait_summary(s.open(cand))
        assert summary.data["codebleu"]["score"] == pytest.approx(1.0)
        assert "w:0.25,0.25,0.25,0.25" in summary.data["codebleu"]["signature"]


def test_a_negative_zero_weight_is_zero() -> None:
    """``-0`` passes as a non-negative weight; it is 0, never shown as ``-0`` in a signature."""
    assert check_weights((1, 1, 1, -0.0)) == (1.0, 1.0, 1.0, 0.0)
    assert str(check_weights(("-0", 1, 1, 1))[0]) == "0.0"
    ref, cand = REFERENCE.read_text(encoding="utf-8"), CANDIDATE.read_text(encoding="utf-8")
    result = score_codebleu([ref], cand, "python", (1, 1, 1, -0.0))
    assert "-0" not in result.signature and result.signature == score_codebleu([ref], cand, "python", (1, 1, 1, 0)).signature


def test_docs_short_copy_claims_hold() -> None:
    """docs/codebleu.md, Weights: a copy scores 1.0 under the native rule however short and
    whatever the weights (the section said 0.764 for `x = 1` under both rules), 0.764 under the
    package's."""
    for weights in ((0.25, 0.25, 0.25, 0.25), (1, 1, 1, 1), (2, 2, 4, 0)):
        assert score_codebleu(["x = 1"], "x = 1", "python", weights).score == pytest.approx(1.0)
    assert calc_codebleu(["x = 1"], ["x = 1"], "python")["codebleu"] == pytest.approx(0.764, abs=5e-4)
