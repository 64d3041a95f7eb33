"""``refscore eval`` end to end on a tiny sample of ../shared/data (CodeBLEU + chrF everywhere,
one CodeBERTScore layer on JavaScript), and the multi-layer encoder against BertScorer."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.eval.data import default_data_dir
from refscore.settings_schema import EncoderChoice

DATA = Path(os.environ.get("REFSCORE_EVAL_DATA", default_data_dir()))
pytestmark = pytest.mark.skipif(not (DATA / "humaneval").is_dir(), reason="no ../shared/data")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_eval_tiny_sample_writes_json_and_markdown(tmp_path, capsys):
    out, report, scores = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "s.npz"
    code = main(["eval", "--data", str(DATA), "--languages", "python,java,js,cpp,conala",
                 "--sample", "2", "--conala-sample", "4", "--metrics", "codebleu,chrf,cbs",
                 "--cbs-languages", "js", "--layers", "6", "--contexts", "none",
                 "--out", str(out), "--report", str(report), "--save-scores", str(scores)])
    assert code == 0
    result = json.loads(out.read_text())
    assert set(result["agreement"]) == {"python", "java", "js", "cpp", "conala"}
    assert result["counts"]["python"]["problems"] == 2 and result["counts"]["conala"]["problems"] == 4
    py = result["agreement"]["python"]
    for metric in ("bleu", "syntax_match", "dataflow_match_native", "codebleu_compat",
                   "codebleu_native", "chrf"):
        assert set(py[metric]) == {"tau", "spearman", "pearson", "pairs", "items"}
        assert py[metric]["tau"] is None or -1 <= py[metric]["tau"] <= 1
    assert "cbs_f3_L6" in result["agreement"]["js"] and "cbs_f3_L6" not in py
    assert "chrf" in result["humaneval_mean"]
    text = report.read_text()
    assert "## HumanEval: Kendall tau" in text and "## CoNaLa" in text
    assert "CodeBLEU, native final-score rule" in text
    # the analysis can be redone from the saved scores, with the same numbers
    again = tmp_path / "again.json"
    assert main(["eval", "--from-scores", str(scores), "--out", str(again)]) == 0
    assert json.loads(again.read_text())["agreement"] == result["agreement"]


def test_eval_rejects_bad_options_and_missing_data(tmp_path, capsys):
    assert main(["eval", "--languages", "cobol"]) == 2
    capsys.readouterr()
    assert main(["eval", "--data", str(tmp_path / "nope"), "--metrics", "chrf"]) == 3
    said = capsys.readouterr().err  # where the data comes from, and how to point at it
    assert "data folder not found" in said and "--data DIR" in said and "$REFSCORE_DATA_DIR" in said


@pytest.mark.parametrize("args,says", [
    (("--layers", "9"), "--layers 9: all-MiniLM-L6-v2 has hidden layers 0 to 6"),
    (("--layers", "3-1"), "--layers (nothing)"),
    (("--sample", "0"), "--sample 0: must be at least 1"),
    (("--conala-sample", "-3"), "--conala-sample -3: must be at least 1"),
    (("--folds", "1"), "--folds 1: must be at least 2"),
    (("--jobs", "0"), "--jobs 0: must be at least 1"),
    (("--metrics", "foo"), "--metrics foo: choose from codebleu, chrf, tsed, crystalbleu, cbs"),
])
def test_each_bad_eval_option_is_one_line_before_any_work(tmp_path, capsys, args, says):
    assert main(["eval", *args, "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"refscore eval: {says}") and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("content", [None, b"not a scores file", "fifo"])
def test_from_scores_that_is_no_scores_file_is_one_line(tmp_path, capsys, content):
    import os

    path = tmp_path / "scores.npz"
    if content == "fifo":
        os.mkfifo(path)
    elif content is not None:
        path.write_bytes(content)
    assert main(["eval", "--from-scores", str(path)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    says = {None: f"--from-scores {path}: no such file", "fifo": f"--from-scores {path}: is a named pipe (FIFO)"}
    assert len(err) == 1 and says.get(content, "not a scores file written by --save-scores") in err[0], err


def test_layer_view_matches_a_scorer_cut_at_that_layer():
    from refscore.embed.layer_stack import LayerStack
    from refscore.embed.bertscorer import BertScorer, ScorePair

    pairs = [ScorePair("return a + b", ["return b + a"], "python", "add two numbers"),
             ScorePair("x = [i for i in y]", ["x = list(y)"], "python", None)]
    multi = LayerStack([2, 6])
    for layer in (2, 6):
        got = BertScorer(multi.view(layer)).score_batch(pairs)
        want = BertScorer(choice=EncoderChoice(layer=layer), language="python").score_batch(pairs)
        for g, w in zip(got, want):
            assert (g.precision, g.recall, g.f1, g.f3) == pytest.approx(
                (w.precision, w.recall, w.f1, w.f3), abs=1e-6)


def test_a_sample_without_differing_outcomes_prints_no_tau_not_an_internal_error(tmp_path, capsys):
    """HumanEval-JS problem 38 (seed 20 draws it alone) has completions that all share one
    outcome: no pair counts, every tau is None, and the closing summary's ``{None:.3f}`` was
    "internal error: TypeError" after the report was written. Now the summary says n/a and why."""
    report = tmp_path / "r.md"
    code = main(["eval", "--data", str(DATA), "--languages", "js", "--sample", "1", "--seed", "20",
                 "--metrics", "chrf", "--report", str(report)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "internal error" not in captured.err
    assert "HumanEval mean tau n/a (in a language, no sampled problem has completions with different outcomes)" \
        in captured.out
    assert report.exists()


def test_the_reports_codebertscore_line_says_what_was_scored(tmp_path):
    """The settings said "CodeBERTScore: embedded all-MiniLM-L6-v2, layers [1, 2, 3, 4, 5, 6], ...
    context = the intent where marked" for a run with ``--metrics chrf`` (no CodeBERTScore at all),
    and never said on which datasets ``--cbs-languages`` scored it."""
    plain = tmp_path / "plain.md"
    assert main(["eval", "--data", str(DATA), "--languages", "conala", "--conala-sample", "2",
                 "--metrics", "chrf", "--report", str(plain)]) == 0
    line = next(x for x in plain.read_text().splitlines() if x.startswith("* CodeBERTScore"))
    assert line == "* CodeBERTScore: not scored (--metrics without cbs)", line
    some = tmp_path / "some.md"
    assert main(["eval", "--data", str(DATA), "--languages", "js,conala", "--sample", "1", "--conala-sample", "2",
                 "--metrics", "chrf,cbs", "--cbs-languages", "conala", "--layers", "6", "--contexts", "none",
                 "--report", str(some)]) == 0
    line = next(x for x in some.read_text().splitlines() if x.startswith("* CodeBERTScore"))
    assert "layers [6]" in line and "on conala only" in line and "intent" not in line, line


def test_tables_carry_bootstrap_intervals_and_a_paper_ready_table(tmp_path, capsys):
    """A researcher needs intervals in the tables and a table to paste into a paper (LaTeX or
    Markdown); both come from the same result as the report."""
    out, report, tex, md = (tmp_path / name for name in ("r.json", "r.md", "t.tex", "t.md"))
    assert main(["eval", "--data", str(DATA), "--languages", "python,java,js,cpp,conala", "--sample", "3",
                 "--conala-sample", "6", "--metrics", "codebleu,chrf", "--out", str(out), "--report", str(report),
                 "--table", str(tex)]) == 0
    result = json.loads(out.read_text())
    low, high = result["intervals"]["chrf"]["humaneval_tau"]
    mean = result["humaneval_mean"]["chrf"]["tau"]
    assert -1 <= low <= high <= 1 and low <= mean + 1e-9 and mean - 1e-9 <= high or low == high
    assert "conala_tau" in result["intervals"]["chrf"]
    assert f"{mean:.3f} [{low:.3f}, {high:.3f}]" in report.read_text()
    latex = tex.read_text()
    assert "\\begin{tabular}" in latex and "\\toprule" in latex and "Mean [95\\% CI]" in latex
    assert f"{mean:.3f} {{\\scriptsize[{low:.3f}, {high:.3f}]}}" in latex
    from refscore.eval.report import render_table

    md.write_text(render_table(result, ".md"))
    assert "| Metric | Python | Java | JavaScript | C++ | Mean [95% CI] | CoNaLa [95% CI] |" in md.read_text()
