"""Options that cannot work are usage errors (exit 2) with one line saying what is allowed, found
before any scoring: real `refscore score` / `refscore grade` subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "examples/python/reference.py"
CANDIDATE = REPO / "examples/python/candidate_close.py"


def refscore(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "refscore", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def usage_error(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2, one line on stderr (no traceback) holding every needle; the line."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def score(*extra: str) -> subprocess.CompletedProcess[str]:
    return refscore("score", str(REFERENCE), str(CANDIDATE), "--no-daemon", *extra)


def grade(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return refscore("grade", "-r", str(REFERENCE), str(CANDIDATE), "--no-cache", "-q", *extra)


@pytest.mark.parametrize("metrics", ["", ",", " , "])
def test_metrics_naming_nothing(metrics: str) -> None:
    usage_error(score("--metrics", metrics), "names no metric", "codebleu, codebertscore")


def test_unknown_metric_still_says_the_choices() -> None:
    usage_error(score("--metrics", "bleu"), "unknown metric 'bleu'", "codebleu, codebertscore")


@pytest.mark.parametrize("device", ["potato", "cuda:x", "gpu", ""])
def test_device_that_is_no_device(device: str) -> None:
    usage_error(score("--device", device), f"--device {device!r}", "cpu, cuda, cuda:N or mps")


def test_cuda_on_a_torch_without_cuda() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this torch has CUDA: --device cuda is valid here")
    usage_error(score("--device", "cuda"), "--device cuda", "CUDA is not available", "--device cpu")


def test_cuda_is_not_checked_when_codebertscore_is_not_wanted() -> None:
    result = score("--device", "cuda", "--metrics", "codebleu", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["codebleu_native"]["codebleu_native"] > 0


@pytest.mark.parametrize("layer", ["99", "-1"])
def test_layer_outside_the_model(layer: str) -> None:
    line = usage_error(score("--layer", layer), f"--layer {layer}", "has hidden layers 0 to ")
    assert "corrupt" not in line and "download" not in line


@pytest.mark.parametrize("value", ["nan", "2", "-1", "inf"])
def test_fail_under_outside_zero_to_one(tmp_path: Path, value: str) -> None:
    usage_error(grade(tmp_path, "--metrics", "codebleu", "--fail-under", value), "--fail-under", "from 0 to 1")


def test_fail_metric_that_is_not_computed(tmp_path: Path) -> None:
    usage_error(grade(tmp_path, "--metrics", "codebleu", "--fail-metric", "codebertscore_f1", "--fail-under", "0.5"),
                "--fail-metric codebertscore_f1 is not computed", "codebleu")


@pytest.mark.parametrize("column, metrics", [("chrf", "codebleu"), ("tsed", "codebleu,chrf"),
                                             ("crystalbleu", "codebleu")])
def test_fail_metric_of_a_text_metric_that_is_not_computed(tmp_path: Path, column: str, metrics: str) -> None:
    """chrF/TSED/CrystalBLEU columns were taken for CodeBLEU ones: every submission failed as
    `not scored`, exit 1."""
    usage_error(grade(tmp_path, "--metrics", metrics, "--fail-metric", column, "--fail-under", "0.5"),
                f"--fail-metric {column} is not computed", f"add {column} to --metrics")


def test_fail_metric_refscore_without_a_shipped_combination(tmp_path: Path) -> None:
    """With no headline number shipped (combined.json says so), or without the metrics it is made
    of, the column is never filled: every submission failed as `not scored`, exit 1."""
    from refscore.scoring.headline import headline_model

    if headline_model() is None:
        usage_error(grade(tmp_path, "--fail-metric", "refscore", "--fail-under", "0.1"),
                    "--fail-metric refscore", "ships no combined RefScore number")
    else:
        usage_error(grade(tmp_path, "--metrics", "codebleu", "--fail-metric", "refscore", "--fail-under", "0.1"),
                    "--fail-metric refscore needs codebertscore in --metrics")


def test_fail_under_reads_the_first_text_metric_when_neither_codebleu_nor_bert_is_computed(tmp_path: Path) -> None:
    """`--metrics chrf,tsed --fail-under X` read CodeBERTScore F1 (never computed): all failed."""
    result = grade(tmp_path, "--metrics", "chrf,tsed", "--fail-under", "0")
    assert result.returncode == 0, result.stderr
    assert "all submissions reach chrF 0" in result.stdout
    assert "chrF 0." in result.stdout and "TSED" in result.stdout  # the terminal line shows the scores


@pytest.mark.parametrize("extra, says", [
    (("--jsonl", "runs.jsonl", "--context", "Add two numbers."), "--context applies to SUBMISSION files"),
    (("--mapping", "week.toml", "--pattern", "*.py"), "--pattern applies to SUBMISSION files"),
    (("--mapping", "week.toml", "--per-folder"), "--per-folder applies to SUBMISSION files"),
    (("--jsonl", "runs.jsonl", "--context-file", "task.txt"), "--context-file applies to SUBMISSION files"),
    (("-r", "ref.py", "cand.py", "--context", "a", "--context-file", "task.txt"), "give one"),
    (("--jsonl", "runs.jsonl", "--ray-address", "127.0.0.1:1"), "--ray-address is for --engine ray"),
    (("--jsonl", "runs.jsonl", "--fail-metric", "codebleu_native"), "--fail-metric codebleu_native needs --fail-under X"),
    (("--jsonl", "runs.jsonl", "--cache", "parts"), "--cache parts keeps the scored parts and --no-cache none"),
])
def test_options_that_would_be_ignored(tmp_path: Path, extra: tuple[str, ...], says: str) -> None:
    """Each of these was silently ignored (the mapping, the JSONL lines or --context-file won)."""
    (tmp_path / "ref.py").write_text(REFERENCE.read_text())
    (tmp_path / "cand.py").write_text(CANDIDATE.read_text())
    (tmp_path / "task.txt").write_text("Add two numbers.")
    (tmp_path / "week.toml").write_text('[[problem]]\nreference = "ref.py"\nsubmissions = ["cand.py"]\n')
    (tmp_path / "runs.jsonl").write_text(json.dumps({"candidate": "x = 1", "reference": "x = 2",
                                                     "language": "python"}) + "\n")
    result = subprocess.run([sys.executable, "-m", "refscore", "grade", *extra, "--metrics", "codebleu", "-q",
                             "--no-cache"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    usage_error(result, says)


@pytest.mark.parametrize("args, usage", [
    (("score", "a.py", "b.py", "--threshold", "0.5"), "refscore score"),
    (("grade", "--bogus"), "refscore grade"),
    (("daemon", "status", "--bogus"), "refscore daemon status"),
])
def test_an_unknown_option_shows_the_subcommands_usage(args: tuple[str, ...], usage: str) -> None:
    """The top level's `usage: refscore [-h] [--version] COMMAND ...` was shown instead."""
    result = refscore(*args)
    assert result.returncode == 2
    assert result.stderr.startswith(f"usage: {usage} [-h]"), result.stderr
    assert f"{usage}: error: unrecognized arguments: {args[-1] if args[0] != 'score' else '--threshold 0.5'}" \
        in result.stderr


@pytest.mark.parametrize("args", [("score", "--bogus", "a.py"), ("score", "--bogus"), ("score", "a.py", "--bogus=1"),
                                  ("score", "-Z", "a.py")])
def test_an_unknown_option_is_named_before_a_missing_argument(args: tuple[str, ...]) -> None:
    """``score --bogus a.py`` said "the following arguments are required: CANDIDATE": argparse
    checks the positionals before it reports unknown options, so the typo went unnamed."""
    result = refscore(*args)
    assert result.returncode == 2, result.stderr
    unknown = next(a for a in args[1:] if a.startswith("-"))
    assert result.stderr.splitlines()[-1] == f"refscore score: error: unrecognized arguments: {unknown}", result.stderr
    assert "required" not in result.stderr


@pytest.mark.parametrize("command", ["score", "grade", "grade-blocks"])
def test_a_model_this_machine_does_not_have_is_one_line(tmp_path: Path, command: str) -> None:
    """`--model` naming no local model was a note on every scored pair and exit 0."""
    empty = tmp_path / "empty-model"
    empty.mkdir()
    for model, says in (("no-such-org/no-such-model-xyz", "never downloads"), (str(empty), "holds no model")):
        if command == "score":
            result = score("--model", model)
        elif command == "grade":
            result = grade(tmp_path, "--model", model)
        else:
            runs = tmp_path / "runs.jsonl"
            runs.write_text(json.dumps({"candidate": "x = 1", "reference": "x = 2", "language": "python"}) + "\n")
            result = refscore("grade", "--jsonl", str(runs), "--block-lines", "1", "--no-cache", "-q", "--model", model)
        assert result.returncode == 3, (result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("refscore: --model: ") and says in lines[0], lines
    assert grade(tmp_path, "--model", "no-such-org/x", "--metrics", "codebleu").returncode == 0  # not used


def test_fail_under_in_range_still_works(tmp_path: Path) -> None:
    result = grade(tmp_path, "--metrics", "codebleu", "--fail-under", "0")
    assert result.returncode == 0, result.stderr
    assert "all submissions reach CodeBLEU 0" in result.stdout


def test_abbreviated_options_are_refused(tmp_path: Path) -> None:
    """``--out report.csv`` used to mean ``--out-dir report.csv``."""
    result = grade(tmp_path, "--metrics", "codebleu", "--out", str(tmp_path / "report.csv"))
    assert result.returncode == 2 and "unrecognized arguments: --out" in result.stderr
    assert not (tmp_path / "report.csv").exists()
    assert score("--metric", "codebleu").returncode == 2


def test_score_takes_weights_like_grade(tmp_path: Path) -> None:
    only_ngram = json.loads(score("--metrics", "codebleu", "--json", "--weights", "1,0,0,0").stdout)["codebleu_native"]
    assert only_ngram["codebleu_native"] == pytest.approx(only_ngram["ngram_match"])
    usage_error(score("--metrics", "codebleu", "--weights", "nan,1,1,1"), "--weights")
    graded = tmp_path / "g.json"
    assert refscore("grade", "-r", str(REFERENCE), str(CANDIDATE), "--no-cache", "-q", "--metrics", "codebleu",
                    "--weights", "1,0,0,0", "--json", str(graded)).returncode == 0
    row = json.loads(graded.read_text())["submissions"][0]
    assert row["codebleu_native"] == pytest.approx(only_ngram["codebleu_native"])


def test_score_takes_the_task_from_a_file_like_grade(tmp_path: Path) -> None:
    task = tmp_path / "task.txt"
    task.write_text("Return the running maximum of a list.", encoding="utf-8")
    from_file = score("--metrics", "codebertscore", "--json", "--context-file", str(task))
    inline = score("--metrics", "codebertscore", "--json", "--context", task.read_text(encoding="utf-8"))
    assert from_file.returncode == inline.returncode == 0, from_file.stderr + inline.stderr
    assert json.loads(from_file.stdout)["codebertscore"]["f3"] == json.loads(inline.stdout)["codebertscore"]["f3"]
    usage_error(score("--context", "x", "--context-file", str(task)), "--context and --context-file")
    missing = score("--context-file", str(tmp_path / "nope.txt"))
    assert missing.returncode == 3 and "Traceback" not in missing.stderr


def test_score_help_says_the_daemon_honours_backend() -> None:
    """``--backend`` travels in each request (README; the daemon test scores with it there), but
    ``score --help`` said it "scores in this process", which sent users to --no-daemon for nothing."""
    text = " ".join(refscore("score", "--help").stdout.split())
    start = text.rindex("--backend {")  # the option, past the usage line
    backend = text[start:text.index("--per-function", start)]
    assert "scores in this process" not in backend and "daemon" in backend, backend


def test_codebertscore_options_without_codebertscore_are_one_warning(tmp_path: Path) -> None:
    """``--model/--layer/--device`` (and the other CodeBERTScore-only options) with ``--metrics
    codebleu`` were silently ignored by ``score`` and ``grade``: one warning line names them, the
    run goes on with the same numbers, and grade's cache does not tell the runs apart (grade's
    ``--context`` is not one of them: the HTML report shows the task)."""
    bert_only = ("--model", "no-such-org/x", "--layer", "3", "--device", "cpu", "--backend", "onnx",
                 "--context", "Add two numbers.")
    plain, ignored = score("--metrics", "codebleu", "--json"), score("--metrics", "codebleu", "--json", *bert_only)
    assert ignored.returncode == 0, ignored.stderr
    lines = [line for line in ignored.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("refscore: warning: "), lines
    assert all(flag in lines[0] for flag in ("--model", "--layer", "--device", "--backend", "--context")), lines
    assert "ignored" in lines[0] and "--metrics codebleu" in lines[0], lines
    assert json.loads(ignored.stdout)["scores"] == json.loads(plain.stdout)["scores"]
    assert "warning" not in plain.stderr
    out, cache = tmp_path / "g.json", tmp_path / "g.parts"
    base = ("grade", "-r", str(REFERENCE), str(CANDIDATE), "-q", "--metrics", "codebleu", "--json", str(out),
            "--cache", str(cache))
    assert refscore(*base).returncode == 0
    rerun = refscore(*base, "--model", "no-such-org/x", "--device", "cpu", "--idf", "references")
    assert rerun.returncode == 0, rerun.stderr
    lines = [line for line in rerun.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "warning" in lines[0] and "--model, --device, --idf" in lines[0], lines
    assert json.loads(out.read_text())["settings"]["from_cache"] == 1


def test_codebleu_options_without_codebleu_are_one_warning(tmp_path: Path) -> None:
    """``--weights`` and ``--codebleu-rule`` with ``--metrics chrf`` were silently ignored (and
    gave grade another cache key): one warning line names them."""
    plain, ignored = score("--metrics", "chrf", "--json"), score("--metrics", "chrf", "--json", "--weights",
                                                                  "1,0,0,0", "--codebleu-rule", "compat")
    assert ignored.returncode == 0, ignored.stderr
    lines = [line for line in ignored.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("refscore: warning: --weights, --codebleu-rule "), lines
    assert "CodeBLEU" in lines[0] and "ignored" in lines[0], lines
    assert json.loads(ignored.stdout)["scores"] == json.loads(plain.stdout)["scores"]
    assert "warning" not in score("--metrics", "codebleu", "--weights", "1,0,0,0").stderr
    paired = score("--metrics", "chrf", "--per-function", "--weights", "1,0,0,0")  # pairs by CodeBLEU
    assert paired.returncode == 0 and "warning" not in paired.stderr, paired.stderr
    out, cache = tmp_path / "g.json", tmp_path / "g.parts"
    base = ("grade", "-r", str(REFERENCE), str(CANDIDATE), "-q", "--metrics", "chrf", "--json", str(out),
            "--cache", str(cache))
    assert refscore(*base).returncode == 0
    rerun = refscore(*base, "--weights", "1,0,0,0")
    assert rerun.returncode == 0 and "--weights" in rerun.stderr, rerun.stderr
    assert json.loads(out.read_text())["settings"]["from_cache"] == 1


def test_title_without_an_html_report_is_one_warning(tmp_path: Path) -> None:
    """``grade --title X`` without an HTML report was silently ignored (the title is the HTML page's only)."""
    out = tmp_path / "g.json"
    result = grade(tmp_path, "--metrics", "codebleu", "--json", str(out), "--title", "Week 3")
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("refscore: warning: --title "), lines
    assert "HTML report" in lines[0] and "ignored" in lines[0] and "--html" in lines[0], lines
    printed = grade(tmp_path, "--metrics", "codebleu", "--title", "Week 3")  # no report: a line per submission
    assert printed.returncode == 0 and "--title" in printed.stderr, printed.stderr
    for html in (("--html", str(tmp_path / "g.html")), ("-o", str(tmp_path / "out")), ("--html", "-")):
        written = grade(tmp_path, "--metrics", "codebleu", "--title", "Week 3", *html)
        assert written.returncode == 0 and "warning" not in written.stderr, written.stderr
    assert "Week 3" in (tmp_path / "g.html").read_text() and "Week 3" in written.stdout


def test_heat_options_without_a_heat_view_are_one_warning(tmp_path: Path) -> None:
    """``score --no-heat`` / ``--color`` were silently ignored where no heat view is printed: without
    CodeBERTScore (it draws the view) and with ``--json``."""
    plain = score("--metrics", "codebleu")
    ignored = score("--metrics", "codebleu", "--no-heat", "--color", "always")
    assert ignored.returncode == 0, ignored.stderr
    lines = [line for line in ignored.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("refscore: warning: --no-heat, --color "), lines
    assert "CodeBERTScore" in lines[0] and "--metrics codebleu" in lines[0] and "ignored" in lines[0], lines
    assert ignored.stdout == plain.stdout and "warning" not in plain.stderr
    assert "warning" not in score("--metrics", "codebleu", "--color", "auto").stderr  # the default, spelled out
    as_json = score("--metrics", "codebertscore", "--json", "--color", "always")
    assert as_json.returncode == 0, as_json.stderr
    lines = [line for line in as_json.stderr.splitlines() if line.startswith("refscore: warning")]
    assert len(lines) == 1 and "--color" in lines[0] and "--json" in lines[0] and "ignored" in lines[0], lines


@pytest.mark.parametrize("option,needle", [("--model", "is not a local folder"), ("--idf", "no such IDF file")])
def test_a_path_under_a_home_that_does_not_exist_is_a_missing_file(option: str, needle: str) -> None:
    """`~nosuchuser/...` made `Path.expanduser` raise: "internal error: RuntimeError: Could not
    determine home directory" (the CLI's --model and --idf, the API, `refscore setup --env`)."""
    result = score("--metrics", "codebertscore", option, "~nosuchuser/m.json")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 3 and len(lines) == 1 and needle in lines[0], result.stderr
    assert "internal error" not in result.stderr
    setup = refscore("setup", "--env", "~nosuchuser/env", "--plan")
    assert "internal error" not in setup.stderr and "Traceback" not in setup.stderr, setup.stderr
