"""The headline "RefScore" number (scoring.headline): computed only when the shipped combination
earned it, from the same inputs as ``refscore eval``, shown first by score, grade and the editor."""

from __future__ import annotations

import json
import math

import pytest

from refscore.combined import FORMAT_VERSION, combined_score
from refscore.combined.inputs import REF_LEN_CENTRE, length_inputs
from refscore.metrics.chrf import score_chrf
from refscore.metrics.tsed import score_tsed
from refscore.scoring import headline as headline_module
from refscore.scoring.report import ScoreReport, ScoreRequest
from refscore.scoring.scorer import LocalScorer

pytest.importorskip("sacrebleu")
pytest.importorskip("apted")

REF = "def running_max(xs):\n    out, best = [], None\n    for x in xs:\n        best = x if best is None else max(best, x)\n        out.append(best)\n    return out\n"
CAND = "def running_max(xs):\n    result = []\n    for i, x in enumerate(xs):\n        result.append(max(xs[:i + 1]))\n    return result\n"
FEATURES = ["cbs_f3", "cbs_rq25", "chrf", "tsed", "extra_errors", "abs_len_ratio", "syntax_match",
            "cbs_p_by_ref_len", "chrf_by_ref_len", "ref_len"]
MODEL = {"version": FORMAT_VERSION, "headline": True, "digest": "test000000", "features": FEATURES,
         "mean": [0.6, 0.4, 0.3, 0.5, 0.0, 0.3, 0.3, 0.5, 0.2, 3.0],
         "scale": [0.2, 0.2, 0.2, 0.2, 0.5, 0.3, 0.2, 0.6, 0.4, 1.0],
         "coef": [0.8, 0.2, 0.5, 0.1, -0.3, -0.2, 0.1, -0.3, 0.1, -0.2], "intercept": -0.5,
         "bert": {"model": "all-MiniLM-L6-v2", "layer": 6, "context": False, "default_part": "f3"}}


@pytest.fixture
def shipped(monkeypatch):
    monkeypatch.setattr(headline_module, "headline_model", lambda: MODEL)
    return MODEL


def test_headline_is_the_combination_of_the_reports_own_numbers(shipped):
    request = ScoreRequest(CAND, (REF,), "python")
    report = LocalScorer().score(request)
    assert report.refscore is not None and 0 < report.refscore.score < 1
    values = dict(report.refscore.components)
    assert list(values) == FEATURES
    bert = report.codebertscore
    assert values["cbs_f3"] == bert.f3
    sims = sorted(t.similarity for t in bert.reference_tokens)
    assert values["cbs_rq25"] == sims[int(0.25 * len(sims))]
    assert values["chrf"] == score_chrf(CAND, [REF]).score
    tsed = score_tsed(CAND, [REF], "python")
    assert values["tsed"] == tsed.score and values["extra_errors"] == 0.0
    assert values["abs_len_ratio"] == abs(length_inputs(CAND, [REF])["len_ratio"])
    assert values["syntax_match"] == next(c.score for c in report.codebleu.components if c.name == "syntax_match")
    ref_len = length_inputs(CAND, [REF])["ref_len"]
    assert values["cbs_p_by_ref_len"] == pytest.approx(bert.precision * (ref_len - REF_LEN_CENTRE))
    assert values["chrf_by_ref_len"] == pytest.approx(values["chrf"] * (ref_len - REF_LEN_CENTRE))
    assert report.refscore.score == pytest.approx(combined_score(values, MODEL))
    assert report.refscore.signature.startswith("refscore|fit:test000000|cbs:all-MiniLM-L6-v2@6|inputs:10|")
    assert report.chrf is None and report.tsed is None  # components live in the headline, not as extra metrics
    back = ScoreReport.from_dict(json.loads(json.dumps(report.to_dict(explain=True))))
    assert back.refscore == report.refscore
    shares = dict(report.refscore.contributions)
    assert list(shares) == FEATURES
    logit = MODEL["intercept"] + sum(shares.values())
    assert report.refscore.score == pytest.approx(1 / (1 + math.exp(-logit)))
    strongest = report.refscore.strongest(3)
    assert [abs(c) for _, _, c in strongest] == sorted((abs(c) for c in shares.values()), reverse=True)[:3]


def test_parse_errors_without_tsed_skip_the_tree_edit_distance(monkeypatch):
    from refscore.metrics import tsed as tsed_module

    features = [f for f in FEATURES if f != "tsed"]
    keep = [FEATURES.index(f) for f in features]
    model = dict(MODEL, features=features, **{k: [MODEL[k][i] for i in keep] for k in ("mean", "scale", "coef")})
    monkeypatch.setattr(headline_module, "headline_model", lambda: model)
    broken = CAND.replace("    return result\n", "    return (result\n")
    expected = score_tsed(broken, [REF], "python")
    assert expected.candidate_errors > expected.reference_errors

    def no_apted(*args):
        raise AssertionError("APTED should not run")

    monkeypatch.setattr(tsed_module, "edit_distance", no_apted)
    report = LocalScorer().score(ScoreRequest(broken, (REF,), "python"))
    values = dict(report.refscore.components)
    assert values["extra_errors"] == pytest.approx(math.log1p(expected.candidate_errors - expected.reference_errors))


def test_no_headline_without_the_flag_or_the_right_inputs(monkeypatch, shipped):
    scorer = LocalScorer()
    assert scorer.score(ScoreRequest(CAND, (REF,), "python", metrics=("codebleu",))).refscore is None
    assert scorer.score(ScoreRequest(CAND, (REF,), "python", codebleu_rule="compat")).refscore is None
    assert scorer.score(ScoreRequest(CAND, (REF,), "python", context="running maximum")).refscore is None
    monkeypatch.setattr(headline_module, "headline_model", lambda: None)
    assert scorer.score(ScoreRequest(CAND, (REF,), "python")).refscore is None


def test_the_shipped_file_decides(monkeypatch):
    from refscore.combined import load_model

    headline_module.headline_model.cache_clear()
    model = headline_module.headline_model()
    assert (model is not None) == bool(load_model().get("headline"))


def test_score_table_and_grade_row_show_it_first(shipped, tmp_path, capsys):
    from refscore.cli import main

    ref, cand = tmp_path / "ref.py", tmp_path / "cand.py"
    ref.write_text(REF)
    cand.write_text(CAND)
    # the similarity fit's number (behaviour's stacked fit: tests/scoring/test_headline_behaviour.py)
    similarity = ["--metrics", "codebleu,codebertscore"]
    assert main(["score", str(ref), str(cand), "--no-daemon", *similarity]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].strip().startswith("RefScore") and "combined" in lines[1]
    assert lines[2].strip().startswith("moved most by") and lines[2].count("), ") == 3 and "CodeBERTScore F3 " in lines[2]
    assert main(["score", str(ref), str(cand), "--no-daemon", "--json", *similarity]) == 0
    data = json.loads(capsys.readouterr().out.splitlines()[0])
    assert math.isfinite(data["refscore"]["score"]) and set(data["refscore"]["components"]) == set(FEATURES)
    out = tmp_path / "out"
    assert main(["grade", "-r", str(ref), str(cand), "-o", str(out), "--no-daemon", "--quiet", *similarity]) == 0
    row = json.loads((out / "grade.json").read_text())["submissions"][0]
    assert row["refscore"] == pytest.approx(data["refscore"]["score"]) and row["refscore_signature"].startswith("refscore|")
    page = (out / "grade.html").read_text()
    assert "RefScore combines signals from CodeBERTScore, chrF, TSED, parse errors, length and CodeBLEU into one" in page
    header = (out / "grade.csv").read_text().splitlines()[0].split(",")
    assert header.index("refscore") < header.index("codebleu_native")


def test_editor_summary_leads_with_the_combined_number(shipped):
    from pathlib import Path

    from refscore import languages
    from refscore.lsp.diagnostics import summary_message
    from refscore.lsp.references import ReferenceChoice
    from refscore.lsp.results import Result

    request = ScoreRequest(CAND, (REF,), "python")
    report = LocalScorer().score(request)  # finished by the pipeline: the editor only renders it
    codebleu_only = ScoreReport(report.language, codebleu=report.codebleu)
    result = Result("file:///c.py", 3, CAND, languages.get("python"), ReferenceChoice((Path("/r/ref.py"),), "settings"),
                    (REF,), ("file:///r/ref.py",), report, bert_state="done")
    combined = result.refscore
    assert combined is not None and combined is report.refscore and combined.score == pytest.approx(combined_score(dict(combined.components), MODEL))
    message = summary_message(result)
    assert message.startswith(f"RefScore vs ref.py (settings): RefScore {combined.score:.2f}: how likely the code "
                              "is correct, judging by its similarity to the reference")
    from refscore.lsp.hover import summary_hover

    from refscore.lsp.diagnostics import _summary

    data = _summary(result, None).data["refscore"]
    assert data["score"] == combined.score and data["signature"] == combined.signature
    assert [s["input"] for s in data["strongest"]] == [n for n, _, _ in combined.strongest()]
    assert all(s["text"].split()[-1].replace(".", "").isdigit() for s in data["strongest"])
    hover = summary_hover(result, 0.45)
    first = hover.splitlines()[2]
    assert first.startswith(f"- RefScore {combined.score:.2f}") and combined.signature not in hover  # plain words
    pending = Result("file:///c.py", 4, CAND, languages.get("python"), ReferenceChoice((Path("/r/ref.py"),), "settings"),
                     (REF,), ("file:///r/ref.py",), codebleu_only, bert_state="pending")
    assert pending.refscore is None and "combined" not in summary_message(pending)


def test_an_interaction_input_is_shown_by_its_base_value():
    from refscore.combined.inputs import REF_LEN_CENTRE
    from refscore.combined.labels import describe_input

    values = {"cbs_p_by_ref_len": 0.6 * (3.5 - REF_LEN_CENTRE), "ref_len": 3.5}
    assert describe_input("cbs_p_by_ref_len", values) == "CodeBERTScore precision (weighed by reference length) 0.600"
    assert describe_input("chrfpp", {"chrfpp": 0.25}) == "chrF++ 0.250"


def test_score_and_grade_say_why_the_combined_number_is_missing(shipped, tmp_path, capsys):
    from refscore.cli import main

    ref, cand = tmp_path / "ref.py", tmp_path / "cand.py"
    ref.write_text(REF)
    cand.write_text(CAND)
    assert main(["score", str(ref), str(cand), "--no-daemon", "--context", "running maximum"]) == 0
    captured = capsys.readouterr()
    assert "RefScore" not in captured.out.splitlines()[1]
    note = [line for line in captured.err.splitlines() if "combined RefScore" in line]
    assert note == ["refscore: note: no combined RefScore number for 1 of 1 pair(s): it was fitted on CodeBERTScore "
                    "from all-MiniLM-L6-v2 layer 6 without context, IDF or rescaling, not with a context "
                    "(--context or a mapping's context)"]
    out = tmp_path / "out"
    assert main(["grade", "-r", str(ref), str(cand), "-o", str(out), "--no-daemon", "--quiet", "--layer", "5"]) == 0
    assert "not with --layer 5" in capsys.readouterr().err
    assert main(["score", str(ref), str(cand), "--no-daemon"]) == 0
    assert "combined RefScore" not in capsys.readouterr().err  # nothing to say when it is there
