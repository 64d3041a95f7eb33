"""chrF (refscore.metrics.chrf) against sacrebleu itself, and as a metric users request:
ScoreRequest.metrics, LocalScorer, the JSON report, the terminal table and grade rows."""

from __future__ import annotations

import json

import pytest

from refscore.metrics.chrf import paper_normalise, score_chrf
from refscore.metrics.signature import parse_signature
from refscore.scoring.report import ScoreReport, ScoreRequest
from refscore.scoring.scorer import LocalScorer

sacrebleu = pytest.importorskip("sacrebleu")

PAIRS = [
    ("return a + b", ["return b + a"]),
    ("def f(x):\n    return x * 2\n", ["def f(y):\n  return 2*y\n", "def g(x): return x+x"]),
    ("print('hi')", ['print("hi")']),
    ("", ["x = 1"]),
    ("for (int i = 0; i < n; i++) { s += a[i]; }", ["for (int i = 0; i < n; ++i) s += a[i];"]),
]


@pytest.mark.parametrize("cand,refs", PAIRS)
@pytest.mark.parametrize("normalise", [True, False])
def test_same_number_as_sacrebleu_sentence_chrf(cand, refs, normalise):
    from sacrebleu.metrics import CHRF

    c = paper_normalise(cand) if normalise else cand
    r = [paper_normalise(x) for x in refs] if normalise else refs
    want = CHRF().sentence_score(c, r).score / 100
    assert score_chrf(cand, refs, normalise).score == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("cand,refs", PAIRS)
def test_chrf_plus_plus_is_sacrebleus_word_order_two(cand, refs):
    from sacrebleu.metrics import CHRF

    want = CHRF(word_order=2).sentence_score(paper_normalise(cand), [paper_normalise(x) for x in refs]).score / 100
    result = score_chrf(cand, refs, word_order=2)
    assert result.score == pytest.approx(want, abs=1e-12)
    assert parse_signature(result.signature)[1]["nw"] == "2"


def test_edits_scored_against_one_reference_count_its_ngrams_once(monkeypatch):
    """The editor's case: every edit of a candidate against the same reference. The reference's
    n-grams are counted once per word order, and each number is still sacrebleu's sentence chrF,
    bit for bit."""
    from sacrebleu.metrics import CHRF

    from refscore.metrics import chrf

    reference = ["def total(values):\n    return sum(values)\n", "def total(v): return sum(v)"]
    edits = ["def total(items):\n    return sum(items)\n"[:cut] for cut in range(8, 40, 4)]
    normalised = [paper_normalise(r) for r in reference]
    want = [[CHRF(word_order=order).sentence_score(paper_normalise(edit), normalised).score / 100
             for order in (0, 2)] for edit in edits]
    chrf._chrf_against.cache_clear()
    counted = []
    original = CHRF._cache_references
    monkeypatch.setattr(CHRF, "_cache_references", lambda self, refs: counted.append(refs) or original(self, refs))
    got = [[score_chrf(edit, reference, word_order=order).score for order in (0, 2)] for edit in edits]
    assert got == want
    assert len(counted) == 2


def test_normaliser_and_signature():
    assert paper_normalise("a\n  b\t'c'") == 'a b "c"'
    result = score_chrf("x", "x")
    assert result.score == pytest.approx(1.0)
    metric, fields = parse_signature(result.signature)
    assert metric == "chrf" and fields["nc"] == "6" and fields["nw"] == "0" and fields["beta"] == "2"
    assert fields["norm"] == "paper" and fields["sacrebleu"] == sacrebleu.__version__
    assert parse_signature(score_chrf("x", "x", normalise=False).signature)[1]["norm"] == "none"


def test_requested_chrf_and_tsed_come_back_typed_and_survive_json():
    request = ScoreRequest("def f(a):\n    return a + 1\n", ("def f(x):\n    return x + 2\n",), "python",
                           metrics=("chrf", "tsed"))
    report = LocalScorer().score(request)
    assert report.codebleu is None and report.codebertscore is None and not report.errors
    assert report.chrf.score == pytest.approx(score_chrf(request.candidate, request.references).score)
    assert report.tsed.score == 1.0  # the same tree shape
    data = json.loads(json.dumps(report.to_dict(explain=True)))
    assert data["chrf"]["signature"].startswith("chrf|") and data["tsed"]["exact"] is True
    back = ScoreReport.from_dict(data)
    assert back.chrf == report.chrf and back.tsed == report.tsed


def test_default_metrics_do_not_compute_chrf():
    report = LocalScorer().score(ScoreRequest("x = 1\n", ("x = 2\n",), "python", metrics=("codebleu",)))
    assert report.chrf is None and report.tsed is None and "chrf" not in report.to_dict()


def test_cli_metrics_option_accepts_chrf_and_tsed(tmp_path, capsys):
    from refscore.cli import main

    ref, cand = tmp_path / "ref.py", tmp_path / "cand.py"
    ref.write_text("def f(x):\n    return x + 2\n")
    cand.write_text("def f(a):\n    return a + 1\n")
    assert main(["score", str(ref), str(cand), "--metrics", "codebleu,chrf,tsed", "--no-daemon"]) == 0
    out = capsys.readouterr().out
    assert "chrF" in out and "TSED" in out and "chrf|nc:6" in out
    assert main(["score", str(ref), str(cand), "--metrics", "chrf", "--json", "--no-daemon"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[0])
    assert set(data) >= {"chrf"} and "codebleu" not in data
    assert main(["score", str(ref), str(cand), "--metrics", "chrf,bleu", "--no-daemon"]) == 2


def test_grade_rows_carry_the_requested_text_metrics():
    from refscore.grade.rows import COLUMNS, SCORE_COLUMNS, result_row
    from refscore.grade.items import GradeItem
    from refscore.grade.rows import GradeResult

    assert {"chrf", "tsed"} <= set(SCORE_COLUMNS) and "chrf_signature" in COLUMNS
    report = LocalScorer().score(ScoreRequest("x = 1\n", ("x = 2\n",), "python", metrics=("codebleu", "chrf")))
    item = GradeItem("a", "x = 1\n", ("x = 2\n",), "python", problem="p", source="s")
    result = GradeResult(item, report)
    row = result_row(result)
    assert row["chrf"] == pytest.approx(report.chrf.score) and row["tsed"] is None
    assert row["chrf_signature"].startswith("chrf|")
