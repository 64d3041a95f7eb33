"""`refscore.score` / `refscore.score_corpus`: the CLI's numbers, several references, typed rows,
tables, bad input (real tree-sitter and the embedded model)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import refscore
from refscore.compat import calc_codebleu

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REFERENCE = "def total(values):\n    result = 0\n    for v in values:\n        result += v\n    return result\n"
OTHER_REFERENCE = "def total(values):\n    return sum(values)\n"
CANDIDATES = ["def total(xs):\n    return sum(xs)\n",
              "def total(values):\n    acc = 0\n    for x in values:\n        acc = acc + x\n    return acc\n"]
METRICS = ("codebleu", "codebertscore", "chrf")


def cli_json(tmp_path: Path, references: list[str], candidates: list[str], *extra: str) -> list[dict]:
    names = [f"ref{i}.py" for i in range(len(references))] + [f"cand{i}.py" for i in range(len(candidates))]
    paths = []
    for name, text in zip(names, references + candidates):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    refs, cands = paths[:len(references)], paths[len(references):]
    also = [arg for ref in refs[1:] for arg in ("--also-reference", ref)]
    result = subprocess.run([sys.executable, "-m", "refscore", "score", refs[0], *cands, *also, "--json",
                             "--no-daemon", "--metrics", ",".join(METRICS), *extra],
                            capture_output=True, text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def assert_same_as_cli(row: refscore.SampleScore, data: dict) -> None:
    name = "codebleu" if "codebleu" in data else "codebleu_native"  # the rule's name (issue 46)
    for key, value in data[name].items():
        assert getattr(row, key) == pytest.approx(value, abs=1e-12), key
    for key in ("precision", "recall", "f1", "f3"):
        assert getattr(row, f"codebertscore_{key}") == pytest.approx(data["codebertscore"][key], abs=1e-6), key
    assert row.chrf == pytest.approx(data["chrf"]["score"], abs=1e-12)
    assert dict(row.signatures)["codebertscore"] == data["codebertscore"]["signature"]
    if "refscore" not in data:  # the compat rule: no combined number, here neither
        assert row.refscore is None and "refscore" not in dict(row.signatures)
        return
    assert row.refscore == pytest.approx(data["refscore"]["score"], abs=1e-6)
    assert dict(row.signatures)["refscore"] == data["refscore"]["signature"]


def test_import_is_cheap() -> None:
    code = "import sys, refscore; refscore.AGGREGATIONS; print(sorted(m for m in ('torch', 'tree_sitter', 'numpy') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_numbers_equal_the_cli_one_and_two_references(tmp_path: Path) -> None:
    rows = refscore.score(CANDIDATES, [REFERENCE, REFERENCE], language="python", metrics=METRICS)
    for row, data in zip(rows, cli_json(tmp_path, [REFERENCE], CANDIDATES)):
        assert_same_as_cli(row, data)
        assert row.references == 1 and row.errors == () and row.refscore is not None
    both = [[REFERENCE, OTHER_REFERENCE]] * 2
    rows = refscore.score(CANDIDATES, both, language="python", metrics=METRICS)
    for row, data in zip(rows, cli_json(tmp_path, [REFERENCE, OTHER_REFERENCE], CANDIDATES)):
        assert_same_as_cli(row, data)
        assert row.references == 2
        assert dict(row.aggregation) == {"codebleu": "max", "codebertscore": "max", "chrf": "max",
                                         "refscore": "inputs"}
    compat = refscore.score(CANDIDATES, both, language="python", metrics=METRICS, codebleu_rule="compat")
    for row, data in zip(compat, cli_json(tmp_path, [REFERENCE, OTHER_REFERENCE], CANDIDATES,
                                          "--codebleu-rule", "compat")):
        assert_same_as_cli(row, data)


def test_aggregations_over_references() -> None:
    refs = [REFERENCE, OTHER_REFERENCE]
    singles = [refscore.score(CANDIDATES[:1], [ref], language="python", metrics=METRICS)[0] for ref in refs]
    default = refscore.score(CANDIDATES[:1], [refs], language="python", metrics=METRICS)[0]
    # the package's default for CodeBERTScore: the max per component
    for key in ("precision", "recall", "f1", "f3"):
        name = f"codebertscore_{key}"
        assert getattr(default, name) == pytest.approx(max(getattr(s, name) for s in singles), abs=1e-6)
    assert default.chrf == pytest.approx(max(s.chrf for s in singles))
    mean = refscore.score(CANDIDATES[:1], [refs], language="python", metrics=METRICS, aggregation="mean")[0]
    for name in ("codebleu_native", "syntax_match", "codebertscore_f1", "codebertscore_recall", "chrf"):
        assert getattr(mean, name) == pytest.approx(sum(getattr(s, name) for s in singles) / 2, abs=1e-6), name
    best = refscore.score(CANDIDATES[:1], [refs], language="python", metrics=("codebleu",),
                          aggregation={"codebleu": "max"})[0]
    winner = max(singles, key=lambda s: s.codebleu_native)
    assert (best.codebleu_native, best.ngram_match) == pytest.approx((winner.codebleu_native, winner.ngram_match))
    assert dict(best.aggregation) == {"codebleu": "max", "refscore": "inputs"}
    # the native rule's default is the best reference; the package's pooled statistics are the
    # compat rule's, and are not the best single reference's: the choice matters
    assert default.codebleu_native == pytest.approx(best.codebleu_native)
    pooled = refscore.score(CANDIDATES[:1], [refs], language="python", metrics=("codebleu",), codebleu_rule="compat")[0]
    compat_best = refscore.score(CANDIDATES[:1], [refs], language="python", metrics=("codebleu",),
                                 codebleu_rule="compat", aggregation={"codebleu": "max"})[0]
    assert dict(pooled.aggregation)["codebleu"] == "pooled" and pooled.codebleu != pytest.approx(compat_best.codebleu)
    with pytest.raises(refscore.ScoreInputError, match="compat"):
        refscore.score(CANDIDATES[:1], [refs], language="python", metrics=("codebleu",), aggregation="pooled")


def test_corpus_codebleu_is_the_package_corpus_number_and_means_are_named() -> None:
    refs = [REFERENCE, [REFERENCE, OTHER_REFERENCE]]
    corpus = refscore.score_corpus(CANDIDATES, refs, language="python", metrics=("codebleu", "codebertscore"))
    expected = calc_codebleu([[REFERENCE], [REFERENCE, OTHER_REFERENCE]], CANDIDATES, "python")
    for key, value in expected.items():
        assert getattr(corpus, key) == pytest.approx(value, abs=1e-12)
    assert corpus.codebertscore_f1 == pytest.approx(sum(s.codebertscore_f1 for s in corpus.samples) / 2)
    assert corpus.refscore == pytest.approx(sum(s.refscore for s in corpus.samples) / 2)
    how = dict(corpus.corpus_aggregation)
    assert how["codebleu"].startswith("corpus statistics") and how["codebertscore"] == "mean of per-sample"
    assert json.loads(json.dumps(corpus.to_dict()))["samples"][1]["references"] == 2


def test_rows_are_frozen_and_become_tables() -> None:
    rows = refscore.score(CANDIDATES, [REFERENCE] * 2, language="py", metrics=("codebleu", "tsed"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        rows[0].codebleu_native = 1.0  # type: ignore[misc]
    assert rows[0].language == "python" and rows[0].codebertscore_f1 is None and rows[0].tsed is not None
    dicts = refscore.to_dicts(rows)
    assert dicts[0]["codebleu_native"] == rows[0].codebleu_native and "report" not in dicts[0]
    json.dumps(dicts)
    frame = refscore.to_pandas(rows)
    assert list(frame["codebleu_native"]) == [r.codebleu_native for r in rows]
    assert frame["aggregation.codebleu"].tolist() == ["max", "max"]
    table = refscore.to_arrow(rows)
    assert table.num_rows == 2 and table.column("tsed").to_pylist() == [r.tsed for r in rows]
    assert rows[1].report is not None and rows[1].report.codebleu is not None


@pytest.mark.parametrize("call", [
    lambda: refscore.score(["x = 1"], ["x = 1", "y = 2"], language="python", metrics=("codebleu",)),
    lambda: refscore.score(["x = 1"], ["x = 1"], language="klingon", metrics=("codebleu",)),
    lambda: refscore.score(["x = 1"], ["x = 1"], language="python", metrics=("bleurt",)),
    lambda: refscore.score(["x = 1"], [[]], language="python", metrics=("codebleu",)),
    lambda: refscore.score("x = 1", "x = 1", language="python", metrics=("codebleu",)),
    lambda: refscore.score([b"x = 1"], ["x = 1"], language="python", metrics=("codebleu",)),
    lambda: refscore.score(["x = 1"], ["x = 1"], language="python", metrics=("codebleu",), weights=(1, 1)),
    lambda: refscore.score(["x = 1"], ["x = 1"], language="python", metrics=("codebleu",), aggregation="median"),
    lambda: refscore.score(["x = 1"], ["x = 1"], language="python", metrics=("codebleu",),
                           aggregation={"codebertscore": "pooled"}),
    lambda: refscore.score(["x = 1"], ["x = 1"], language="python", context=["a", "b"], metrics=("codebleu",)),
])
def test_bad_arguments_are_one_clear_error_of_every_expected_type(call) -> None:
    for kind in (ValueError, AssertionError, refscore.RefScoreError):
        with pytest.raises(kind) as caught:
            call()
        assert isinstance(caught.value, refscore.ScoreInputError) and str(caught.value)


def test_hostile_texts_get_defined_results() -> None:
    texts = ["", "\x00\x01binary", "def f(:\n  ((((", "(" * 3000]
    rows = refscore.score(texts, ["def f(x):\n    return x\n"] * len(texts), language="python", metrics=("codebleu",))
    assert [0.0 <= r.codebleu_native <= 1.0 for r in rows] == [True] * len(texts)


@pytest.mark.parametrize("where", ["candidate", "reference", "context"])
def test_a_lone_surrogate_is_a_score_input_error_not_a_logged_traceback(where: str, capfd) -> None:
    texts = {"candidate": "x = 1", "reference": "x = 1", "context": "add one"}
    texts[where] = "x = '\udc00'"
    with pytest.raises(refscore.ScoreInputError, match=r"lone surrogate \(U\+DC00 at character 5\)"):
        refscore.score([texts["candidate"]], [texts["reference"]], language="python", metrics=("codebleu",),
                       context=texts["context"])
    assert "Traceback" not in capfd.readouterr().err


def test_corpus_codebleu_reads_the_weights_as_the_rows_do() -> None:
    """Under the native rule the weights are normalised: the corpus number stays in 0..1, as each row."""
    weights = (1, 1, 1, 1)
    corpus = refscore.score_corpus(CANDIDATES, [REFERENCE] * 2, language="python", metrics=("codebleu",),
                                   weights=weights)
    default = refscore.score_corpus(CANDIDATES, [REFERENCE] * 2, language="python", metrics=("codebleu",))
    assert corpus.codebleu == pytest.approx(default.codebleu, abs=1e-12) and 0.0 <= corpus.codebleu <= 1.0
    compat = refscore.score_corpus(CANDIDATES, [REFERENCE] * 2, language="python", metrics=("codebleu",),
                                   weights=weights, codebleu_rule="compat")
    expected = calc_codebleu([REFERENCE] * 2, CANDIDATES, "python", weights=weights)["codebleu"]
    assert compat.codebleu == pytest.approx(expected, abs=1e-12)


def test_idf_from_a_single_reference_is_refused_not_a_recall_of_0() -> None:
    """IDF from the references weighs every token of a lone reference 0: recall was 0.0, silently."""
    with pytest.raises(refscore.ScoreInputError, match="idf='references'"):
        refscore.score(CANDIDATES, [REFERENCE] * 2, language="python", metrics=("codebertscore",), idf="references")
    rows = refscore.score(CANDIDATES, [REFERENCE, OTHER_REFERENCE], language="python", metrics=("codebertscore",),
                          idf="references")
    assert all(row.codebertscore_recall > 0.3 for row in rows)
    assert refscore.score(CANDIDATES[:1], [REFERENCE], language="python", metrics=("codebleu",),
                          idf="references")[0].codebleu_native is not None  # no CodeBERTScore: no IDF to weigh


def test_score_corpus_reads_metric_names_as_score_does() -> None:
    """``score`` takes ``"CodeBLEU"`` (names are trimmed and lower-cased); ``score_corpus`` then
    looked for ``"codebleu"`` in the names as given and returned every corpus number None."""
    refs = [REFERENCE] * 2
    plain = refscore.score_corpus(CANDIDATES, refs, language="python", metrics=("codebleu", "chrf"))
    spelled = refscore.score_corpus(CANDIDATES, refs, language="python", metrics=(" CodeBLEU", "chrF"))
    assert plain.codebleu is not None and plain.chrf is not None
    assert (spelled.codebleu, spelled.chrf) == (plain.codebleu, plain.chrf)
    assert dict(spelled.corpus_aggregation) == dict(plain.corpus_aggregation)


def _no_cuda() -> bool:
    import torch

    return not torch.cuda.is_available()


@pytest.mark.parametrize("setting, words", [
    (dict(model="/nonexistent/model"), "model '/nonexistent/model' is not"),
    (dict(layer=99), "layer 99: all-MiniLM-L6-v2 has hidden layers 0 to 6"),
    (dict(idf="/nonexistent/idf.json"), "idf '/nonexistent/idf.json': .*no such file"),
    pytest.param(dict(device="cuda"), "device 'cuda': CUDA is not available to this torch",
                 marks=pytest.mark.skipif("not _no_cuda()", reason="this machine has CUDA")),
], ids=["model", "layer", "idf", "device"])
def test_a_setting_that_cannot_be_had_is_refused_as_the_cli_refuses_it(setting: dict, words: str) -> None:
    """``refscore score --model /nonexistent`` (``--layer 99``, ``--idf /nonexistent``,
    ``--device cuda`` without CUDA) stops with one line; the API gave every row CodeBERTScore None
    (the reason only in ``errors``) and ``score_corpus`` a None mean."""
    for call in (refscore.score, refscore.score_corpus):
        with pytest.raises(refscore.ScoreInputError, match=words):
            call(CANDIDATES, [REFERENCE] * 2, language="python", metrics=("codebleu", "codebertscore"), **setting)
    row, = refscore.score(CANDIDATES[:1], [REFERENCE], language="python", metrics=("codebleu",), **setting)
    assert row.codebleu_native is not None  # no CodeBERTScore asked: no model to load, as on the command line


@pytest.mark.parametrize("setting", ["model", "idf"])
def test_a_path_under_a_home_that_does_not_exist_is_a_score_input_error(setting: str) -> None:
    """``~nosuchuser/...`` raised RuntimeError from ``Path.expanduser`` deep in the request checks."""
    with pytest.raises(refscore.ScoreInputError):
        refscore.score(["x = 1\n"], ["x = 2\n"], language="python", metrics=("codebertscore",),
                       **{setting: "~nosuchuser/m.json"})
