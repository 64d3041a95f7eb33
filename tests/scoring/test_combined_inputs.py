"""The combined RefScore number's inputs are the same whether the eval computes them for its fit
(score-table columns: ``eval.tasks.run_task`` -> ``eval.features.column``) or a user's ``score``
computes them for serving (``LocalScorer`` -> ``scoring.headline.components``)."""

from __future__ import annotations

import math

import pytest

from refscore.combined import DEFAULT_PATH, FORMAT_VERSION
from refscore.combined.inputs import (CALIBRATION, RANKING_POOL, TOKEN_STATS, extra_errors, interaction_base,
                                     token_stats)
from refscore.combined.labels import INPUT_LABELS, input_families
from refscore.combined.model import check_model, load_model, save_model
from refscore.scoring import headline as headline_module
from refscore.scoring.report import ScoreRequest
from refscore.scoring.scorer import LocalScorer

pytest.importorskip("sacrebleu")
pytest.importorskip("apted")
pytest.importorskip("torch")

LAYER = 6
ALL_INPUTS = [*RANKING_POOL, "canon_ngram_match", *CALIBRATION]  # a reported signal too
#: Every input the fit may choose, weighted so that the served report carries all of them.
EVERY_INPUT = {"version": FORMAT_VERSION, "headline": True, "digest": "test000000", "features": ALL_INPUTS,
               "mean": [0.0] * len(ALL_INPUTS), "scale": [1.0] * len(ALL_INPUTS), "coef": [0.1] * len(ALL_INPUTS),
               "intercept": 0.0,
               "bert": {"model": "all-MiniLM-L6-v2", "layer": LAYER, "context": False, "default_part": "f3"}}
REF = "def running_max(xs):\n    out, best = [], None\n    for x in xs:\n        best = x if best is None else max(best, x)\n        out.append(best)\n    return out\n"
SAMPLES = [  # (dataset, candidate, references): a close one, a broken one, a short one, two references, Java
    ("python", "def running_max(xs):\n    result = []\n    for i, x in enumerate(xs):\n        result.append(max(xs[:i + 1]))\n    return result\n", (REF,)),
    ("python", "def running_max(xs):\n    out = [\n    for x in xs:\n        out.append(x\n    return out\n", (REF,)),
    ("python", "return sorted(xs)", ("def f(xs):\n    return sorted(xs)\n", "sorted(xs)")),
    ("java", "int add(int a, int b) { return a + b; }",
     ("int add(int x, int y) {\n    int s = x + y;\n    return s;\n}",)),
]


def _eval_inputs() -> list[dict[str, float]]:
    from refscore.eval.data import Item
    from refscore.eval.features import column
    from refscore.eval.metrics import BertColumns, length_features
    from refscore.eval.runner import EvalConfig, build_table
    from refscore.eval.tasks import run_task, Task

    items = [Item(dataset, index, cand, refs, "", 1.0) for index, (dataset, cand, refs) in enumerate(SAMPLES)]
    config = EvalConfig(data_dir="", layers=[LAYER], contexts=[False], threads=None)
    by_dataset: dict[str, list[dict[str, float]]] = {}
    for dataset in dict.fromkeys(item.dataset for item in items):
        chosen = [item for item in items if item.dataset == dataset]
        columns = dict(length_features(chosen))
        for group in ("codebleu", "chrf", "tsed", "cbs", "canon"):
            units, _ = run_task(Task(group, dataset, [str(i.problem) for i in chosen], chosen), config)
            for values in units.values():
                columns.update(values)
        columns = _table_names(columns)
        table = build_table(dataset, chosen, columns)
        by_dataset[dataset] = [{name: float(column(table, name, BertColumns(LAYER))[row]) for name in ALL_INPUTS}
                               for row in range(len(chosen))]
    return [row for dataset in dict.fromkeys(i.dataset for i in items) for row in by_dataset[dataset]]


def _table_names(columns: dict[str, list[float]]) -> dict[str, list[float]]:
    """The stored unit columns under their score-table names (as ``eval.runner.columns_for``)."""
    from refscore.eval.metrics import BERT_PARTS, BERT_STATS, BertColumns

    out = dict(columns)
    for part in (*BERT_PARTS, *BERT_STATS):
        if part in out:
            out[BertColumns(LAYER).name(part)] = out.pop(part)
    return out


def _served_inputs(monkeypatch) -> list[dict[str, float]]:
    monkeypatch.setattr(headline_module, "headline_model", lambda: EVERY_INPUT)
    scorer = LocalScorer()
    out = []
    for dataset, cand, refs in SAMPLES:
        report = scorer.score(ScoreRequest(cand, refs, dataset))
        assert report.refscore is not None, report.errors
        out.append(dict(report.refscore.components))
    return out


def test_the_eval_and_the_served_report_compute_the_same_inputs(monkeypatch):
    evaluated, served = _eval_inputs(), _served_inputs(monkeypatch)
    assert any(row["extra_errors"] > 0 for row in served) and any(row["len_ratio"] < 0 for row in served)
    for sample, fit_row, serve_row in zip(SAMPLES, evaluated, served):
        assert list(serve_row) == ALL_INPUTS
        for name in ALL_INPUTS:
            # CodeBERTScore: one forward pass for several layers (the eval) and one for one layer
            # (serving) agree to float rounding; every other input is the same arithmetic
            tolerance = 1e-6 if name.startswith("cbs_") else 1e-12
            assert serve_row[name] == pytest.approx(fit_row[name], abs=tolerance), (sample[0], name)


def test_token_statistics_and_parse_errors():
    stats = token_stats([0.9, 0.2, 0.5, 0.7], [])
    assert stats == {"pmin": 0.2, "rmin": 0.0, "pq25": 0.5, "rq25": 0.0} and set(stats) == set(TOKEN_STATS)
    assert extra_errors(1, 3) == 0.0 and extra_errors(4, 1) == pytest.approx(math.log(4))
    assert extra_errors(float("nan"), 0.0) == 0.0  # a missing count is no extra error


def test_every_input_has_a_label_and_the_shipped_file_is_valid(tmp_path):
    assert {interaction_base(name) or name for name in ALL_INPUTS} <= set(INPUT_LABELS)
    shipped = load_model()
    check_model(shipped)
    assert input_families(shipped["features"])
    written = save_model(shipped, tmp_path / "combined.json")  # as `refscore eval --save-combined` writes it
    assert written.read_bytes() == DEFAULT_PATH.read_bytes()
    with pytest.raises(ValueError, match="one value per input"):
        save_model(dict(shipped, coef=shipped["coef"][:-1]), tmp_path / "bad.json")
