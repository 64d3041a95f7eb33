"""``refscore eval`` outputs a run cannot make are said, not skipped: a ``--save-combined`` the
scored metrics cannot fit, a ``--from-scores`` file of a run that was interrupted."""

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


def _interrupted_run(scores: Path, metrics: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scoring run stopped (Ctrl-C) after its first task: the scores file is a checkpoint."""
    import refscore.eval.execute as execute

    real, calls = execute.run_task, []

    def stop_after_one(task, config):
        calls.append(task)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(task, config)

    monkeypatch.setattr(execute, "run_task", stop_after_one)
    assert main(["eval", *TINY, "--metrics", metrics, "--save-scores", str(scores)]) == 130
    monkeypatch.setattr(execute, "run_task", real)


@pytest.mark.parametrize("first_run", [False, True])
def test_from_scores_of_an_interrupted_run_says_to_finish_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        first_run: bool) -> None:
    """A checkpoint holds cached values but no finished tables: ``--from-scores`` on the first
    run's checkpoint wrote an empty report and exited 0; on a later run's it said "not a scores
    file written by --save-scores (it has no conala/target)". Now: one line saying the run did
    not finish and how to finish it; exit 3, nothing written."""
    scores, report = tmp_path / "s.npz", tmp_path / "r.md"
    if first_run:
        assert main(["eval", *TINY, "--metrics", "chrf", "--save-scores", str(scores)]) == 0
    _interrupted_run(scores, "chrf,codebleu,canon", monkeypatch)
    capsys.readouterr()
    assert main(["eval", "--from-scores", str(scores), "--report", str(report)]) == 3
    line = _one_line(capsys)
    assert "not a scores file" not in line, line
    assert line.startswith(f"refscore eval: {scores}: the scoring run that wrote it did not finish"), line
    assert "chrf,codebleu,canon" in line and "--save-scores" in line, line
    assert not report.exists()
    # the same command continues it, and then the file is read
    assert main(["eval", *TINY, "--metrics", "chrf,codebleu,canon", "--save-scores", str(scores)]) == 0
    assert main(["eval", "--from-scores", str(scores), "--report", str(report)]) == 0
    assert "CoNaLa" in report.read_text()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
