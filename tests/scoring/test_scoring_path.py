"""The one typed scoring path: typed results, one scorer factory, pragma lines as metadata,
special tokens never shown, per-function scores, one signature format (real model, real parsers)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests import bert_fixtures  # noqa: F401  (offline env, import path)
from refscore.metrics.signature import parse_signature
from refscore.engines import open_scorer
from refscore.scoring.pragma import read_pragma, without_pragmas
from refscore.scoring.report import ScoreReport, ScoreRequest
from refscore.scoring.parts import with_defaults
from refscore.scoring.scorer import LocalScorer
from refscore.settings_schema import EncoderChoice

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "server" / "refscore"
REFERENCE = (REPO / "examples/python/reference.py").read_text(encoding="utf-8")
CANDIDATE = (REPO / "examples/python/candidate_close.py").read_text(encoding="utf-8")
PRAGMAS = {
    "python": ("# refscore: reference=../key/answer.py\n# refscore: context=Running maximum of a list\n", "#"),
    "java": ("// refscore: reference=Key.java\n", "//"),
}
JAVA_REF = "class A {\n  int f(int x) {\n    int y = x + 1;\n    return y;\n  }\n}\n"
JAVA_CAND = "class A {\n  int f(int v) {\n    return v + 1;\n  }\n}\n"


def _has_torch() -> bool:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


needs_model = pytest.mark.skipif(not _has_torch(), reason="torch/transformers not installed")


# -- pragma lines are metadata --------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["native", "compat"])
@pytest.mark.parametrize("language,reference,candidate", [("python", REFERENCE, CANDIDATE),
                                                          ("java", JAVA_REF, JAVA_CAND)])
def test_pragma_lines_change_no_codebleu_number(language, reference, candidate, rule):
    pragma = PRAGMAS[language][0]
    plain = LocalScorer().score(ScoreRequest(candidate, (reference,), language, metrics=("codebleu",),
                                             codebleu_rule=rule))
    tagged = LocalScorer().score(ScoreRequest(pragma + candidate, (reference,), language, metrics=("codebleu",),
                                              codebleu_rule=rule))
    assert plain.codebleu is not None and tagged.codebleu is not None
    assert tagged.codebleu.score == pytest.approx(plain.codebleu.score, abs=1e-9)
    for a, b in zip(tagged.codebleu.components, plain.codebleu.components):
        assert a.score == pytest.approx(b.score, abs=1e-9) and (a.matched, a.total) == (b.matched, b.total)


def test_pragma_after_code_loses_only_its_comment():
    text = "x = 1  # refscore: context=add one\ny = 2\n"
    stripped = without_pragmas(text, "python")
    assert stripped.text == "x = 1\ny = 2\n"
    assert read_pragma(text, None).context == "add one"
    assert all(stripped.text[k] == text[stripped.to_original(k)] for k in range(len(stripped.text)))
    assert without_pragmas('x = "refscore: reference=key.py"\n', "python").removed == ()  # a string, not a pragma


@needs_model
def test_pragma_line_changes_no_codebertscore_number_and_lists_no_token():
    pragma = PRAGMAS["python"][0]
    text = pragma + CANDIDATE
    plain, tagged = LocalScorer().score_many([
        ScoreRequest(CANDIDATE, (REFERENCE,), "python", metrics=("codebertscore",)),
        ScoreRequest(text, (REFERENCE,), "python", metrics=("codebertscore",))])
    a, b = plain.codebertscore, tagged.codebertscore
    assert a is not None and b is not None
    for name in ("precision", "recall", "f1", "f3"):
        assert getattr(b, name) == pytest.approx(getattr(a, name), abs=1e-4)
    assert b.candidate_tokens and all(t.start >= len(pragma) for t in b.candidate_tokens)
    assert all(text[t.start:t.end] == t.text for t in b.candidate_tokens)  # spans in the original text
    assert [t.text for t in b.candidate_tokens] == [t.text for t in a.candidate_tokens]
    for token in b.reference_tokens:
        if token.match_start is not None:
            assert token.match_start >= len(pragma) and text[token.match_start:token.match_end] == token.match_text


def test_pragma_file_scores_like_plain_file_from_the_cli(tmp_path):
    ref, plain, tagged = tmp_path / "ref.py", tmp_path / "plain.py", tmp_path / "tagged.py"
    ref.write_text(REFERENCE, encoding="utf-8")
    plain.write_text(CANDIDATE, encoding="utf-8")
    tagged.write_text(PRAGMAS["python"][0] + CANDIDATE, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "refscore", "score", str(ref), str(plain), str(tagged),
                          "--metrics", "codebleu", "--json", "--no-daemon"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    first, second = (json.loads(line)["codebleu_native"] for line in out.stdout.splitlines())
    assert first == pytest.approx(second, abs=1e-9)


# -- special tokens -------------------------------------------------------------------------------


@needs_model
def test_special_tokens_are_never_a_token_or_a_match():
    """A one-word candidate: the model's [CLS]/[SEP] are the nearest rows for most reference
    tokens; the alignment names the nearest text token instead, and lists no special token."""
    from refscore.embed.bertscorer import match_pair, prepare_texts
    from refscore.embed.models import scorer_for

    scorer = scorer_for("python")
    candidate, reference = "x", "def f(a, b):\n    return a + b\n"
    prepared = prepare_texts(scorer.encoder, [(candidate, None), (reference, None)])
    raw = match_pair(prepared[(candidate, None)], prepared[(reference, None)], None, scorer._zero_ids)
    assert any(prepared[(candidate, None)].is_special(j) for j in raw.ref_arg.tolist())  # the case this guards
    result = scorer.score(candidate, reference)
    special = set(scorer.encoder.tokenizer.all_special_tokens)
    for token in (*result.candidate_tokens, *result.reference_tokens):
        assert token.text not in special and token.match_text not in special
    for token in result.reference_tokens:
        assert token.match_text == candidate[token.match_start:token.match_end] == "x"


# -- typed results and the factory ----------------------------------------------------------------


@needs_model
def test_report_round_trips_through_its_wire_form_unchanged():
    report = LocalScorer().score(ScoreRequest(CANDIDATE, (REFERENCE,), "python"))
    assert report.codebertscore is not None and report.codebleu is not None
    again = ScoreReport.from_dict(json.loads(json.dumps(report.to_dict(explain=True))))
    assert again == report  # the same typed object in-process and rebuilt from the daemon's JSON


def test_the_report_is_frozen_and_made_only_by_the_finish_stage():
    """``ScoreReport`` cannot be changed after ``finish``, and no module of the product builds one
    except the pipeline's finish stage and the report's own JSON reader."""
    import dataclasses

    report = LocalScorer().score(ScoreRequest(CANDIDATE, (REFERENCE,), "python", metrics=("codebleu", "chrf")))
    assert report.codebleu is not None and report.chrf is not None and isinstance(report.errors, tuple)
    for name, value in (("codebleu", None), ("refscore", None), ("errors", ["x"])):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(report, name, value)
    builders = []
    for path in SERVER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("ScoreReport", "replace") \
                    and (ast.unparse(node.func) == "ScoreReport" or "report" in ast.unparse(node.args[:1])):
                builders.append(f"{path.relative_to(SERVER)}: {ast.unparse(node)[:60]}")
    allowed = ("scoring/pipeline.py", "scoring/report.py", "scoring/parts.py")  # finish; from_dict; CpuScores' JSON
    assert [b for b in builders if not b.startswith(allowed)] == []


def test_open_scorer_policies(monkeypatch):
    from refscore.service import NO_DAEMON_ENV, DaemonUnavailable

    monkeypatch.setenv(NO_DAEMON_ENV, "1")
    assert open_scorer("local").kind == "local"
    with pytest.raises(DaemonUnavailable):
        open_scorer("daemon")
    quiet = open_scorer("daemon_or_local", autostart=False)  # no daemon wanted: no note
    assert quiet.kind == "local" and quiet.notes == []
    fallback = open_scorer("daemon_or_local")
    assert fallback.kind == "local" and "disabled" in fallback.notes[0]
    request = ScoreRequest(CANDIDATE, (REFERENCE,), "python", metrics=("codebleu",))
    assert fallback.score(request) == LocalScorer().score(request)
    assert fallback.submit(request).result().codebleu == LocalScorer().score(request).codebleu
    with pytest.raises(ValueError):
        open_scorer("ray")  # type: ignore[arg-type]


def test_request_carries_every_setting_that_changes_a_number():
    from refscore.scoring.report import request_to_dict
    from refscore.scoring.requests import request_from_dict

    request = ScoreRequest("a", ("b",), "python", context="c", model="m", layer=3, device="cpu",
                           idf="/tmp/idf.json", codebleu_rule="compat", weights=(0.1, 0.2, 0.3, 0.4))
    assert request_from_dict(json.loads(json.dumps(request_to_dict(request)))) == request
    defaults = LocalScorer(EncoderChoice(model="x", layer=2, device="cpu", idf="references")).defaults
    filled = with_defaults(replace(request, model=None), defaults).encoder
    assert (filled.model, filled.layer, filled.device, filled.idf) == ("x", 3, "cpu", "/tmp/idf.json")


def test_no_untyped_results_or_scorer_type_checks_in_the_package():
    """The report types carry no ``Any`` field, and nothing picks a scorer by its type name or by
    probing attributes."""
    for module in ("scoring/report.py", "metrics/codebertscore_result.py", "metrics/codebleu.py"):
        tree = ast.parse((SERVER / module).read_text(encoding="utf-8"))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for field in (n for n in cls.body if isinstance(n, ast.AnnAssign)):
                assert "Any" not in ast.unparse(field.annotation), f"{module}: {ast.unparse(field)}"
    for path in SERVER.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "type(scorer).__name__" not in text and 'hasattr(scorer, "submit")' not in text, path
        assert "isinstance(report.codebertscore, dict)" not in text, path


def test_one_signature_format_for_both_metrics():
    import refscore
    from refscore.metrics.signature import build_signature

    bleu = LocalScorer().score(ScoreRequest(CANDIDATE, (REFERENCE,), "python", metrics=("codebleu",)))
    assert bleu.codebleu is not None
    metric, fields = parse_signature(bleu.codebleu.signature)
    assert metric == "codebleu" and fields["version"] == refscore.__version__ and fields["lang"] == "python"
    bert_metric, bert_fields = parse_signature(build_signature("cbs", (("model", "m"),)))
    assert bert_metric == "cbs" and bert_fields == {"model": "m", "version": refscore.__version__}


# -- per-function scores --------------------------------------------------------------------------


def test_score_per_function_json_and_table(tmp_path):
    ref = tmp_path / "ref.py"
    cand = tmp_path / "cand.py"
    ref.write_text("def add(a, b):\n    return a + b\n\n\ndef neg(x):\n    return -x\n", encoding="utf-8")
    cand.write_text("def neg(y):\n    return 0 - y\n\n\ndef plus(p, q):\n    s = p + q\n    return s\n",
                    encoding="utf-8")
    base = [sys.executable, "-m", "refscore", "score", str(ref), str(cand), "--metrics", "codebleu",
            "--per-function", "--no-daemon"]
    out = subprocess.run([*base, "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    functions = {f["function"]: f for f in json.loads(out.stdout)["functions"]}
    assert functions["neg"]["matched_by"] == "name" and functions["neg"]["reference_function"] == "neg"
    assert functions["plus"]["matched_by"] == "alignment" and functions["plus"]["reference_function"] == "add"
    assert all(0 <= f["codebleu_native"] <= 1 for f in functions.values())
    table = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert table.returncode == 0 and "per function:" in table.stdout
    assert "plus (line 5) vs add (line 1, alignment)" in table.stdout and "neg (line 1) vs neg (line 5, name)" in table.stdout


def test_grade_per_function_field(tmp_path):
    from refscore.cli import main

    ref = tmp_path / "ref.py"
    ref.write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    sub = tmp_path / "s1.py"
    sub.write_text("def add(x, y):\n    return x + y\n", encoding="utf-8")
    report = tmp_path / "out.json"
    assert main(["grade", "-r", str(ref), str(sub), "--metrics", "codebleu", "--per-function",
                 "--json", str(report), "--no-cache", "-q"]) == 0
    row = json.loads(report.read_text())["submissions"][0]
    assert [f["function"] for f in row["functions"]] == ["add"] and row["functions"][0]["codebleu_native"] > 0.3
    csv_out = tmp_path / "out.csv"
    assert main(["grade", "-r", str(ref), str(sub), "--metrics", "codebleu", "--per-function",
                 "--csv", str(csv_out), "--no-cache", "-q"]) == 0
    assert "functions" not in csv_out.read_text().splitlines()[0]


@needs_model
def test_per_function_codebertscore_uses_the_request_model_settings():
    from refscore.scoring.per_function import score_functions

    request = ScoreRequest("def add(x, y):\n    return x + y\n", ("def add(a, b):\n    return a + b\n",),
                           "python", layer=3)
    pairs = score_functions(request, LocalScorer())
    assert len(pairs) == 1 and pairs[0].f3 is not None
    direct = LocalScorer().score(replace(request, metrics=("codebertscore",)))
    assert direct.codebertscore is not None and pairs[0].f3 == pytest.approx(direct.codebertscore.f3, abs=1e-6)
    assert os.environ.get("HF_HUB_OFFLINE") == "1"


@needs_model
def test_daemon_honours_layer_idf_and_device_like_this_process(tmp_path):
    """``score --layer/--idf/--device`` go through the daemon (no silent switch to in-process
    scoring) and give this process's numbers."""
    ref, cand, idf = tmp_path / "ref.py", tmp_path / "cand.py", tmp_path / "idf.json"
    ref.write_text(REFERENCE, encoding="utf-8")
    cand.write_text(CANDIDATE, encoding="utf-8")
    idf.write_text(json.dumps({"default": 1.0, "num_docs": 2, "idf": {"1000": 0.5, "2000": 3.0}}))
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    args = [sys.executable, "-m", "refscore", "score", "ref.py", "cand.py", "--json", "--layer", "5",
            "--idf", "idf.json", "--device", "cpu"]
    remote = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    local = subprocess.run([*args, "--no-daemon"], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert remote.returncode == 0 and local.returncode == 0, remote.stderr + local.stderr
    fallback = [line for line in remote.stderr.splitlines() if "note:" in line and "combined RefScore" not in line]
    assert not fallback, remote.stderr  # the only note may be why the combined number is not shown
    status = subprocess.run([sys.executable, "-m", "refscore", "daemon", "status"], capture_output=True, text=True,
                            timeout=60, env=env)
    assert "not running" not in status.stdout + status.stderr
    got, want = json.loads(remote.stdout)["codebertscore"], json.loads(local.stdout)["codebertscore"]
    assert got["layer"] == want["layer"] == 5
    assert got["signature"] == want["signature"] and "idf:yes" in got["signature"]
    for name in ("precision", "recall", "f1", "f3"):
        assert got[name] == pytest.approx(want[name], abs=1e-6)


def test_idf_option_refuses_special_files_with_one_line(tmp_path):
    fifo = tmp_path / "idf.fifo"
    os.mkfifo(fifo)
    ref = tmp_path / "ref.py"
    ref.write_text(REFERENCE, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "refscore", "score", str(ref), str(ref), "--idf", str(fifo),
                          "--no-daemon"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 3 and "named pipe" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_grade_prints_bidi_names_visibly(tmp_path):
    ref = tmp_path / "ref.py"
    ref.write_text("def f():\n    return 1\n", encoding="utf-8")
    sub = tmp_path / "bidi_\u202eyp.py"
    sub.write_text("def f():\n    return 1\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "refscore", "grade", "-r", str(ref), str(sub), "--metrics",
                          "codebleu", "--no-cache", "-q"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "\u202e" not in out.stdout and "<U+202E>" in out.stdout
