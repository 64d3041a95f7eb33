"""The combined score's protocol: pair statistics, forward selection and cross-validation by
problem, with no held-out problem ever reaching a fit (the fold split is by problem)."""

from __future__ import annotations

import numpy as np
import pytest

from refscore.eval import fit as fit_module
from refscore.eval import rankfit
from refscore.eval.cv import Table, problem_folds
from refscore.eval.fit import cross_validate, fit_final
from refscore.eval.metrics import BertColumns
from refscore.eval.rankfit import build_rows, problem_stats


def _table(dataset: str, problems: int = 16, per: int = 8, seed: int = 0, graded: bool = False) -> Table:
    rng = np.random.default_rng(seed)
    n = problems * per
    problem = np.repeat(np.arange(problems), per)
    quality = rng.normal(size=n)
    target = np.round(np.clip(quality + 2, 0, 4) * 2) / 2 if graded else (quality > 0).astype(float)
    cols = {"chrfpp": 0.5 + 0.2 * quality + rng.normal(0, 0.15, n),  # informative
            "bleu": rng.uniform(size=n),  # noise
            "len_ratio": rng.normal(0, 0.3, n), "ref_len": np.repeat(rng.uniform(1, 4, problems), per)}
    cols["ngram_match_native"] = cols["bleu"]  # the native n-gram input (noise too)
    for layer in (5, 6):
        for part in ("p", "r", "f1", "f3"):
            cols[f"cbs_{part}_L{layer}"] = 0.6 + 0.05 * quality * (layer - 4) + rng.normal(0, 0.2, n)
    return Table(dataset, target, problem, cols)


def _tables() -> list[Table]:
    return [_table("python", seed=1), _table("java", seed=2), _table("conala", problems=40, per=5,
                                                                    seed=3, graded=True)]


def _folds(tables, k=4):
    return problem_folds([(t.dataset, int(p)) for t in tables for p in t.problem], k, seed=7)


def test_pair_statistics_equal_the_listed_pairs():
    tables = _tables()
    rows = build_rows(tables, ["chrfpp", "ngram_match", "cbs_f3"], BertColumns(6))
    stats = problem_stats(rows)
    for index, key in enumerate(stats.keys[:20]):
        mask = np.array([k == key for k in rows.keys()])
        x, t = rows.x[mask], rows.raw_target[mask]
        diffs = [(x[i] - x[j]) * np.sign(t[i] - t[j]) for i in range(len(t)) for j in range(i + 1, len(t))
                 if abs(t[i] - t[j]) >= 1e-3]
        d = np.array(diffs)
        assert stats.pairs[index] == len(d)
        assert np.allclose(stats.gram[index], d.T @ d) and np.allclose(stats.vec[index], d.sum(axis=0))


def test_no_held_out_problem_reaches_any_fit(monkeypatch):
    tables = _tables()
    folds = _folds(tables)
    outer: dict[str, set] = {"test": set()}
    seen_fits = []
    real_select, real_fit = fit_module.select, rankfit.fit

    def spy_select(rows, stats, train, seed, *a, **kw):
        outer["test"] = {key for key, flag in zip(rows.keys(), train) if not flag}
        assert not outer["test"] & set(stats.keys)
        return real_select(rows, stats, train, seed, *a, **kw)

    def spy_fit(rows, stats, train, cols, lam):
        train_keys = {key for key, flag in zip(rows.keys(), train) if flag}
        assert not train_keys & outer["test"], "a held-out problem was fitted on"
        assert not set(stats.keys) & outer["test"], "a held-out problem's pairs were used"
        seen_fits.append(len(train_keys))
        return real_fit(rows, stats, train, cols, lam)

    monkeypatch.setattr(fit_module, "select", spy_select)
    monkeypatch.setattr(rankfit, "fit", spy_fit)
    monkeypatch.setattr(fit_module, "fit", spy_fit)
    result = cross_validate(tables, folds, 4, [5, 6], seed=3)
    assert len(result["folds"]) == 4 and len(seen_fits) > 4 * rankfit.INNER_FOLDS
    # each fold's test problems are exactly that fold's problems, whole
    for fold in range(4):
        held = {k for k, f in folds.items() if f == fold}
        assert held and all(folds[k] == fold for k in held)


def test_combination_finds_the_informative_input_and_ranks_held_out_problems():
    tables = _tables()
    result = cross_validate(tables, _folds(tables), 4, [5, 6], seed=3)
    for fold in result["folds"]:
        assert "chrfpp" in fold["inputs"] and fold["coef"]["chrfpp"] > 0
        assert set(fold["held_out"]) == {"bert", "single", "combined"}
    held = result["combined_held_out"]
    assert held["python"]["tau"] > 0.4 and held["conala"]["tau"] > 0.3
    assert set(result["single_held_out"]) == {"python", "java", "conala"}


def _length_dependent_table(dataset: str, seed: int) -> Table:
    """Short references rank by ``cbs_p``, long ones by ``chrf`` (each noise elsewhere)."""
    rng = np.random.default_rng(seed)
    problems, per = 30, 8
    n = problems * per
    problem = np.repeat(np.arange(problems), per)
    ref_len = np.repeat(np.where(np.arange(problems) % 2 == 0, 1.0, 4.0), per)
    quality = rng.normal(size=n)
    short = ref_len < 2.5
    cols = {"chrf": np.where(short, rng.normal(size=n), quality + rng.normal(0, 0.3, n)),
            "bleu": rng.uniform(size=n), "len_ratio": rng.normal(0, 0.3, n), "ref_len": ref_len}
    for part in ("p", "r", "f1", "f3"):
        signal = quality if part == "p" else rng.normal(size=n)
        cols[f"cbs_{part}_L6"] = np.where(short, signal + rng.normal(0, 0.3, n), rng.normal(size=n))
    return Table(dataset, (quality > 0).astype(float), problem, cols)


def test_an_input_whose_weight_depends_on_the_reference_length_is_found():
    tables = [_length_dependent_table("python", 1), _length_dependent_table("java", 2)]
    pool = ("chrf", "cbs_p", "cbs_r", "len_ratio", "chrf_by_ref_len", "cbs_p_by_ref_len")
    with_terms = cross_validate(tables, _folds(tables), 4, [6], seed=3, pool=pool)
    without = cross_validate(tables, _folds(tables), 4, [6], seed=3, pool=pool[:4])
    assert all(any(name.endswith("_by_ref_len") for name in fold["inputs"]) for fold in with_terms["folds"])
    for dataset in ("python", "java"):
        assert with_terms["combined_held_out"][dataset]["tau"] > without["combined_held_out"][dataset]["tau"] + 0.1


def test_final_model_is_what_combined_score_reads():
    from refscore.combined import FORMAT_VERSION, combined_score

    tables = _tables()
    model = fit_final(tables, [5, 6], {"note": "test"}, seed=3)
    assert model["version"] == FORMAT_VERSION and "chrfpp" in model["features"] and model["features"][-1] == "ref_len"
    rows = build_rows(tables, model["fitted"]["pool"], BertColumns(model["bert"]["layer"]))
    mean = dict(zip(model["features"], model["mean"]))
    good = dict(mean) | {"chrfpp": mean["chrfpp"] + 0.3}
    bad = dict(mean) | {"chrfpp": mean["chrfpp"] - 0.3}
    assert combined_score(bad, model) < combined_score(mean, model) < combined_score(good, model)
    assert len(rows.target) == sum(len(t.target) for t in tables)


def test_selection_stops_without_gain():
    tables = _tables()
    rows = build_rows(tables, ["chrfpp", "ngram_match"], BertColumns(6))
    stats = problem_stats(rows)
    cols, lam, log = rankfit.select(rows, stats, np.ones(len(rows.target), dtype=bool), seed=1,
                                    max_inputs=2)
    assert rows.pool[cols[0]] == "chrfpp" and lam in rankfit.LAMBDAS
    assert log[-1]["lambda"] == lam


@pytest.mark.parametrize("lam", [0.001, 10.0])
def test_calibration_keeps_each_problems_order(lam):
    tables = _tables()
    rows = build_rows(tables, ["chrfpp", "ngram_match"], BertColumns(6))
    stats = problem_stats(rows)
    every = np.ones(len(rows.target), dtype=bool)
    model = rankfit.fit(rows, stats, every, [0, 1], lam)
    ranking = ((rows.x - model.mean[:2]) / model.scale[:2]) @ model.ranking
    predicted = model.predict(rankfit.model_input(rows, every, [0, 1]))
    for key in set(rows.keys()):
        m = np.array([k == key for k in rows.keys()])
        order = np.argsort(ranking[m], kind="stable")
        assert np.all(np.diff(predicted[m][order]) >= -1e-12)


def test_paired_bootstrap_differences():
    from refscore.eval.bootstrap import paired_differences

    tables = _tables()
    good = {t.dataset: t.columns["chrfpp"] for t in tables}
    noise = {t.dataset: t.columns["ngram_match" if "ngram_match" in t.columns else "bleu"] for t in tables}
    same = paired_differences(tables, good, good, replicates=50)
    assert same["humaneval_tau"] == [0.0, 0.0, 0.0] and same["conala_tau"] == [0.0, 0.0, 0.0]
    better = paired_differences(tables, good, noise, replicates=200, seed=1)
    for key in ("humaneval_tau", "humaneval_spearman", "conala_tau"):
        estimate, low, high = better[key]
        assert 0 < low <= estimate <= high


def test_the_fit_without_humaneval_never_sees_it_and_is_scored_on_it(monkeypatch):
    from refscore.combined import combined_score
    from refscore.eval.fit import fit_leaving_out
    from refscore.scoring.headline import signature

    tables = _tables()
    seen = []
    real = fit_module.fit_final
    monkeypatch.setattr(fit_module, "fit_final", lambda t, *a, **k: seen.append([x.dataset for x in t]) or real(t, *a, **k))
    model = fit_leaving_out(tables, [5, 6], {"note": "test"}, seed=3)
    assert seen == [["conala"]] and list(model["fitted"]["datasets"]) == ["conala"]
    agree = model["fitted"]["left_out_agreement"]
    assert set(agree) == {"python", "java"} and agree["python"]["tau"] > 0.2  # chrF++ carries over
    row = {name: float(tables[0].columns.get(name, [0.0])[0]) for name in model["features"]}
    assert 0 < combined_score(row, model) < 1
    assert "|train:conala|" in signature(model)
    assert "|train:humaneval,conala|" in signature(fit_final(tables, [5, 6], {}, seed=3))


def test_bootstrap_resamples_a_humaneval_task_in_every_language_together():
    """The HumanEval mean's interval resampled each language's problems on its own, though the
    languages are one task set: with two languages whose differences move together per task the
    mean's interval came out about 1/sqrt(2) as wide as one language's (too sure). Resampling
    tasks jointly, a copy of a language adds no certainty: the interval equals one language's."""
    from refscore.eval.bootstrap import paired_differences

    python = next(t for t in _tables() if t.dataset == "python")
    java = Table("java", python.target.copy(), python.problem.copy(),
                 {k: v.copy() for k, v in python.columns.items()})
    first = {"python": python.columns["chrfpp"], "java": java.columns["chrfpp"]}
    second = {"python": python.columns["bleu"], "java": java.columns["bleu"]}
    one = paired_differences([python], first, second, replicates=200, seed=4)
    two = paired_differences([python, java], first, second, replicates=200, seed=4)
    for key in ("humaneval_tau", "humaneval_spearman"):
        assert two[key] == pytest.approx(one[key], abs=1e-12), key
