"""`refscore eval --protocol paper`: the paper's fold arrays read (never run) from its constants.py,
its "test" folds (``pairs[~subset]`` on an integer array: problem 160 - i), fold-mean tau, and the
command's rows and errors (real CodeBLEU and chrF on a few HumanEval problems)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from refscore.eval.correlation import grouped_kendall_tau
from refscore.eval.data import default_data_dir
from refscore.eval.paper import FoldsError, codexglue_rule, held_out_problems, load_folds, paper_tau

CONSTANTS = '''import numpy as np
import os
os.system("echo this file is never run")
CONALA_CV_SUBSETS = np.array([[1, 2]])
HUMANEVAL_CV_SUBSETS = np.array(
       [[  0,   1, 2],
        [ 10,  20, 30]])
'''


def write_constants(tmp_path: Path) -> Path:
    path = tmp_path / "constants.py"
    path.write_text(CONSTANTS)
    return path


def test_folds_are_read_without_running_the_file(tmp_path: Path, capfd) -> None:
    assert load_folds(write_constants(tmp_path)) == [[0, 1, 2], [10, 20, 30]]
    assert "never run" not in capfd.readouterr().out
    bad = tmp_path / "other.py"
    bad.write_text("X = 1\n")
    with pytest.raises(FoldsError, match="no HUMANEVAL_CV_SUBSETS"):
        load_folds(bad)


def test_the_papers_test_fold_counts_from_the_end() -> None:
    # ~i == -(i + 1): numpy picks position 161 - (i + 1)
    positions = np.arange(161)
    fold = [0, 1, 28]
    assert held_out_problems(fold) == sorted(positions[~np.array(fold)].tolist()) == [132, 159, 160]


def test_the_papers_files_text_only_turns_newlines_into_spaces() -> None:
    from refscore.eval.data import paper_normalise
    from refscore.eval.paper import paper_files_text

    code = "    if x == 'a':\n        return  1\n"
    # the paper's process_data.py `clean`: newlines to spaces and nothing else, so a reference's
    # indentation stays (the paper's humaneval_refs.txt lines start with it); a strip here changed
    # every Python and JavaScript reference and moved the table's CodeBLEU rows
    assert paper_files_text(code) == "    if x == 'a':         return  1 "
    assert paper_normalise(code) == 'if x == "a": return 1'


def test_codebleu_scores_score_the_prepared_text() -> None:
    from refscore.eval.data import Item
    from refscore.eval.metrics import codebleu_scores
    from refscore.eval.paper import paper_files_text

    item = Item("python", 0, "x = 'a'\ny = x\n", ('x = "a"\ny = x\n',), "", 1.0)
    normalised, _ = codebleu_scores([item], True)
    files, _ = codebleu_scores([item], False, paper_files_text)
    assert normalised["bleu"][0] == pytest.approx(1.0) and files["bleu"][0] < 0.9


def test_fold_mean_tau_is_the_mean_of_each_folds_grouped_tau() -> None:
    rng = np.random.default_rng(3)
    problem = np.repeat(np.arange(161), 4)
    target = rng.integers(0, 2, problem.size).astype(float)
    metric = target * 0.3 + rng.random(problem.size)
    folds = [[0, 1, 2], [5, 6, 7]]
    mean, taus = paper_tau(target, metric, problem, folds)
    expected = []
    for fold in folds:
        keep = np.isin(problem, held_out_problems(fold))
        expected.append(grouped_kendall_tau(target[keep], metric[keep], problem[keep]).tau)
    assert taus == pytest.approx(expected) and mean == pytest.approx(np.mean(expected))


def test_codexglue_rule_counts_a_zero_dataflow_as_zero() -> None:
    columns = {"bleu": [0.4], "weighted_ngram_match": [0.4], "syntax_match": [0.4], "dataflow_match": [0.0]}
    assert codexglue_rule(columns) == pytest.approx([0.3])  # the package would give 0.55


def run_eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "refscore", "eval", "--protocol", "paper", *args],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def test_option_errors_are_one_line() -> None:
    result = run_eval("--languages", "js")
    assert result.returncode == 2 and "--paper-folds" in result.stderr and "Traceback" not in result.stderr
    result = run_eval("--languages", "conala", "--paper-folds", "x.py")
    assert result.returncode == 2 and "HumanEval" in result.stderr
    result = run_eval("--languages", "js", "--paper-folds", "/nonexistent/constants.py")
    assert result.returncode == 3 and result.stderr.count("\n") == 1


@pytest.mark.skipif(not (default_data_dir() / "humaneval" / "js.jsonl.gz").is_file(), reason="needs ../shared/data")
def test_rows_on_a_few_problems(tmp_path: Path) -> None:
    folds = tmp_path / "constants.py"
    # the fold holding the sampled problems: positions whose ~i lands on them
    out = tmp_path / "paper.json"
    folds.write_text("HUMANEVAL_CV_SUBSETS = [" + ", ".join(f"[{160 - p}]" for p in range(161)) + "]\n")
    result = run_eval("--languages", "js", "--sample", "6", "--paper-folds", str(folds), "--out", str(out))
    assert result.returncode == 0, result.stderr
    rows = json.loads(out.read_text())["rows"]
    assert "chrF, normalised" in rows and "CodeBLEU, package rule (codebleu 0.7.0), as given" in rows
    files_row = "CodeBLEU, CodeXGLUE rule (dataflow 0 counts 0), the paper's files (newlines to spaces)"
    assert files_row in rows
    assert "| chrF, normalised |" in result.stdout and "0.302 ; 0.387" in result.stdout
    # a run of many minutes says where it is (it printed nothing for 28 minutes)
    steps = [line for line in result.stderr.splitlines() if "paper protocol, step" in line]
    assert [line.split("step ")[1].split(":")[0] for line in steps] == [f"{n} of 5" for n in range(1, 6)]
    for per in rows.values():
        fold_mean, pooled = per["js"]
        assert pooled is not None and -1 <= pooled <= 1


def fake_paper_model_cache(root: Path, model_id: str, layers: int) -> Path:
    """A Hugging Face cache holding ``model_id``: a small real BERT (random weights, seeded, the
    embedded model's tokenizer) in the hub's own layout, so the registry finds it as cached."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from refscore.embed.registry import embedded_model_path

    repo = root / ("models--" + model_id.replace("/", "--"))
    snapshot = repo / "snapshots" / "0123456789abcdef"
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123456789abcdef")
    tokenizer = AutoTokenizer.from_pretrained(embedded_model_path(), local_files_only=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=layers,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=512)
    BertModel(config).save_pretrained(snapshot)
    tokenizer.save_pretrained(snapshot)
    return root


@pytest.mark.skipif(not (default_data_dir() / "humaneval" / "js.jsonl.gz").is_file(), reason="needs ../shared/data")
def test_codebertscore_rows_run_the_papers_model_when_cached_and_say_so_when_not(tmp_path: Path) -> None:
    folds = tmp_path / "constants.py"
    folds.write_text("HUMANEVAL_CV_SUBSETS = [" + ", ".join(f"[{160 - p}]" for p in range(161)) + "]\n")
    args = ("--languages", "js", "--sample", "3", "--paper-folds", str(folds))
    empty = tmp_path / "empty-hub"
    empty.mkdir()
    plain = subprocess.run([sys.executable, "-m", "refscore", "eval", "--protocol", "paper", *args,
                            "--out", str(tmp_path / "none.json")], capture_output=True, text=True, timeout=600,
                           env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(empty)})
    assert plain.returncode == 0, plain.stderr
    assert "neulab/codebert-javascript (layer 10) is not in the local Hugging Face cache" in plain.stderr
    assert not any(n.startswith("CodeBERTScore") for n in json.loads((tmp_path / "none.json").read_text())["rows"])
    hub = fake_paper_model_cache(tmp_path / "hub", "neulab/codebert-javascript", layers=10)
    out = tmp_path / "cached.json"
    cached = subprocess.run([sys.executable, "-m", "refscore", "eval", "--protocol", "paper", *args, "--out", str(out)],
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(hub)})
    assert cached.returncode == 0, cached.stderr
    assert "not in the local Hugging Face cache" not in cached.stderr
    rows = json.loads(out.read_text())["rows"]
    name = "CodeBERTScore F3 (neulab/codebert-javascript, layer 10, context, no idf), normalised"
    assert name in rows and f"| {name} |" in cached.stdout and "0.319 ; 0.405" in cached.stdout
    fold_mean, pooled = rows[name]["js"]
    assert pooled is not None and -1 <= pooled <= 1
