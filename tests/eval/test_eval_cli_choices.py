"""``refscore eval`` options a user types as the help spells them, and options that name files:
the help's ``--contexts both`` works, a ``--cache-from`` that is not there is refused before any
scoring (it was silently taken as empty), and ``--paper-folds`` alone is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from refscore.cli import main
from refscore.eval.data import default_data_dir

DATA = default_data_dir()
pytestmark = pytest.mark.skipif(not (DATA / "conala").is_dir(), reason="no ../shared/data")
TINY = ("--data", str(DATA), "--languages", "conala", "--conala-sample", "2", "--metrics", "chrf", "--folds", "2")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_contexts_both_as_the_help_says_means_none_and_nl(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["eval", *TINY, "--contexts", "both", "--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["settings"]["contexts"] == [False, True]


def test_a_cache_from_that_is_not_there_is_refused_before_scoring(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out, missing = tmp_path / "r.json", tmp_path / "typo.npz"
    assert main(["eval", *TINY, "--cache-from", str(missing), "--out", str(out)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"refscore eval: --cache-from {missing}: no such file"]
    assert not out.exists()


def test_paper_folds_without_the_paper_protocol_is_a_usage_error(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folds = tmp_path / "constants.py"
    folds.write_text("FOLDS = []\n", encoding="utf-8")
    assert main(["eval", *TINY, "--paper-folds", str(folds), "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--paper-folds" in err[0] and "--protocol paper" in err[0]
    assert not (tmp_path / "r.json").exists()


def test_options_of_what_the_run_does_not_score_are_named_once(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`--layers 4` with `--metrics chrf`, or `--sample 3` with only CoNaLa, changed nothing in silence."""
    out = tmp_path / "r.json"
    assert main(["eval", *TINY, "--layers", "4", "--contexts", "nl", "--sample", "3", "--out", str(out)]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [
        "refscore: warning: --layers, --contexts only change CodeBERTScore, which --metrics does not score: ignored",
        "refscore: warning: --sample only changes the HumanEval sample, which --languages leaves out: ignored"]
    assert json.loads(out.read_text(encoding="utf-8"))["settings"]["contexts"] == [False, True]  # the default


def test_options_of_what_the_run_scores_give_no_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", *TINY, "--conala-sample", "2", "--out", str(tmp_path / "r.json")]) == 0
    assert "warning" not in capsys.readouterr().err
