"""``refscore eval`` outputs a run cannot make are said, not skipped: a ``--save-combined`` the
scored metrics cannot fit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.eval.data import default_data_dir

DATA = default_data_dir()
pytestmark = pytest.mark.skipif(not (DATA / "conala").is_dir(), reason="no ../shared/data")
TINY = ["--data", str(DATA), "--languages", "conala", "--conala-sample", "3", "--folds", "2"]


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = [line for line in capsys.readouterr().err.strip().splitlines() if line.startswith("refscore")]
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("option", ["--save-combined", "--save-combined-without-humaneval"])
def test_save_combined_the_metrics_cannot_fit_is_a_usage_error_before_scoring(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str) -> None:
    """``--metrics chrf,codebleu --save-combined F`` exited 0 and wrote no F, without a word: the
    fit needs CodeBERTScore; now one line names what it needs, before anything is scored."""
    combined = tmp_path / "combined.json"
    assert main(["eval", *TINY, "--metrics", "chrf,codebleu", option, str(combined)]) == 2
    line = _one_line(capsys)
    assert line.startswith(f"refscore eval: {option} {combined}: the combined fit needs"), line
    assert "cbs" in line and not combined.exists()


def test_save_combined_from_scores_that_cannot_fit_says_so(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The same with ``--from-scores``: the file's metrics decide, and it said nothing."""
    scores, combined = tmp_path / "s.npz", tmp_path / "combined.json"
    assert main(["eval", *TINY, "--metrics", "chrf", "--save-scores", str(scores)]) == 0
    capsys.readouterr()
    assert main(["eval", "--from-scores", str(scores), "--save-combined", str(combined)]) == 2
    line = _one_line(capsys)
    assert "--save-combined" in line and "the combined fit needs" in line and str(scores) in line, line
    assert not combined.exists()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
