"""How many items one scorer call of `refscore grade` carries: `--batch-size`, else by device."""

from __future__ import annotations

import pytest

from refscore.cli import main
from refscore.grade.settings import CPU_BATCH, GPU_BATCH, GradeSettings

BOTH = ("codebleu", "codebertscore")


def test_an_explicit_batch_size_always_wins() -> None:
    assert GradeSettings(metrics=BOTH, batch_size=7, device="cuda").scoring_batch() == 7
    assert GradeSettings(metrics=("codebleu",), batch_size=500).scoring_batch(encoder_here=False) == 500


def test_codebertscore_on_a_gpu_gets_large_calls() -> None:
    # device "cuda" is taken as asked: no GPU (nor a torch import) is needed to decide
    assert GradeSettings(metrics=BOTH, device="cuda").scoring_batch() == GPU_BATCH
    assert GradeSettings(metrics=BOTH, device="cuda:1").scoring_batch() == GPU_BATCH


def test_cpu_runs_and_processes_without_the_encoder_keep_small_calls() -> None:
    assert GradeSettings(metrics=BOTH, device="cpu").scoring_batch() == CPU_BATCH
    assert GradeSettings(metrics=("codebleu",), device="cuda").scoring_batch() == CPU_BATCH  # no model in the run
    # a daemon's client or Ray's CPU stage: the encoder (and its device) is elsewhere
    assert GradeSettings(metrics=BOTH, device="cuda").scoring_batch(encoder_here=False) == CPU_BATCH


def test_the_device_variable_decides_when_no_device_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFSCORE_DEVICE", "cuda")
    assert GradeSettings(metrics=BOTH).scoring_batch() == GPU_BATCH
    monkeypatch.setenv("REFSCORE_DEVICE", "cpu")
    assert GradeSettings(metrics=BOTH).scoring_batch() == CPU_BATCH


def test_a_batch_size_below_one_is_one_usage_line(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    sub = tmp_path / "a.py"
    sub.write_text("x = 1\n", encoding="utf-8")
    assert main(["grade", str(sub), "-r", str(sub), "--batch-size", "0", "--metrics", "codebleu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [line for line in err if "--batch-size must be at least 1" in line] and err
