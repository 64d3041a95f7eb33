"""refscore.eval: the paper's Kendall tau, Spearman/Pearson, sampling, folds, normaliser, fit."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from refscore.combined import combined_score, linear_part
from refscore.eval.correlation import (average_ranks, grouped_kendall_tau, pearson, spearman)
from refscore.eval.cv import Table, problem_folds, select_column, split
from refscore.eval.data import Item, paper_normalise, sample_problems
from refscore.eval.rankfit import fit_logistic


# -- Kendall tau (paper protocol) -----------------------------------------------------------------


def test_tau_one_problem_with_a_metric_tie():
    # differing-outcome pairs: (0,1) C, (0,3) C, (1,2) C, (2,3) metric tie -> (3-0)/4
    r = grouped_kendall_tau([1, 0, 1, 0], [0.9, 0.1, 0.5, 0.5], [7, 7, 7, 7])
    assert (r.concordant, r.discordant, r.ties) == (3, 0, 1)
    assert r.tau == pytest.approx(0.75)


def test_tau_human_ties_are_skipped():
    # (0,1) both passed: not counted; (0,2) discordant; (1,2) concordant
    r = grouped_kendall_tau([1, 1, 0], [0.1, 0.9, 0.5], [0, 0, 0])
    assert (r.concordant, r.discordant, r.ties) == (1, 1, 0)
    assert r.tau == 0.0


def test_tau_all_equal_outcomes_has_no_pairs():
    r = grouped_kendall_tau([1, 1, 1], [0.1, 0.2, 0.3], [0, 0, 0])
    assert r.pairs == 0 and r.tau is None


def test_tau_pools_counts_and_never_pairs_across_problems():
    # problem a: perfectly ordered (1 C); problem b: reversed (2 D); across problems nothing
    r = grouped_kendall_tau([1, 0, 1, 0, 0], [0.9, 0.1, 0.0, 0.5, 0.6], ["a", "a", "b", "b", "b"])
    assert (r.concordant, r.discordant, r.ties) == (1, 2, 0)
    assert r.tau == pytest.approx(-1 / 3)


def test_tau_threshold_for_metric_and_graded_humans():
    # metric difference below 0.001 is a tie; human means within 0.001 are a human tie (skipped)
    r = grouped_kendall_tau([2.5, 2.5004, 1.0], [0.5, 0.9, 0.5004], [0, 0, 0])
    assert (r.concordant, r.discordant, r.ties) == (1, 0, 1)
    assert r.tau == pytest.approx(0.5)


def _ordered_pairs_tau(h, m, g, tie=1e-3):
    """Reference: the paper's ordered-pair loop, written independently."""
    c = d = t = 0
    for i, j in itertools.permutations(range(len(h)), 2):
        if g[i] != g[j] or abs(h[i] - h[j]) < tie:
            continue
        if abs(m[i] - m[j]) < tie:
            t += 1
        elif (h[i] - h[j]) * (m[i] - m[j]) > 0:
            c += 1
        else:
            d += 1
    return (c - d) / (c + d + t) if c + d + t else None


def test_tau_matches_an_ordered_pair_loop_on_random_data():
    rng = random.Random(3)
    for _ in range(20):
        n = rng.randint(2, 25)
        h = [rng.choice([0, 1, 2.5, 3]) for _ in range(n)]
        m = [round(rng.random(), 2) for _ in range(n)]
        g = [rng.randint(0, 3) for _ in range(n)]
        got = grouped_kendall_tau(h, m, g).tau
        want = _ordered_pairs_tau(h, m, g)
        assert (got is None and want is None) or got == pytest.approx(want)


# -- Spearman / Pearson ---------------------------------------------------------------------------


def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 20, 30]).tolist() == [1.0, 2.5, 2.5, 4.0]


def test_spearman_and_pearson_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 100]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert pearson([1, 2, 3], [1, 2, 3.5]) == pytest.approx(0.9933992677987828)
    assert pearson([1, 1, 1], [1, 2, 3]) is None


# -- data -----------------------------------------------------------------------------------------


def test_paper_normaliser():
    assert paper_normalise("def f():\n    return 'a'  +  b\n") == 'def f(): return "a" + b'


def _items(problems=10, per=3):
    return [Item("python", p, f"c{p}.{k}", ("r",), "", float(k % 2))
            for p in range(problems) for k in range(per)]


def test_sampling_is_deterministic_and_keeps_whole_problems():
    items = _items()
    a = sample_problems(items, 4, seed=1)
    assert a == sample_problems(items, 4, seed=1)
    chosen = {i.problem for i in a}
    assert len(chosen) == 4 and len(a) == 12
    assert [i for i in items if i.problem in chosen] == a  # original order, every completion
    assert sample_problems(items, None) == items and sample_problems(items, 99) == items


def test_sampling_differs_with_the_seed():
    items = _items(problems=40)
    picks = {tuple(sorted({i.problem for i in sample_problems(items, 5, seed=s)})) for s in range(5)}
    assert len(picks) > 1


# -- cross-validation -----------------------------------------------------------------------------


def _table(dataset, problems=12, per=4, seed=0):
    rng = np.random.default_rng(seed)
    target = np.array([k % 2 for _ in range(problems) for k in range(per)], dtype=float)
    problem = np.repeat(np.arange(problems), per)
    good = target + rng.normal(0, 0.5, len(target))
    noise = rng.normal(0, 1, len(target))
    return Table(dataset, target, problem, {"good": good, "noise": noise})


def test_folds_hold_whole_problems_and_cover_everything():
    tables = [_table("python"), _table("java", problems=7)]
    keys = [(t.dataset, int(p)) for t in tables for p in t.problem]
    folds = problem_folds(keys, 3, seed=5)
    assert set(folds) == set(keys) and set(folds.values()) == {0, 1, 2}
    assert problem_folds(keys, 3, seed=5) == folds
    for fold in range(3):
        train, test = split(tables, folds, fold)
        for tr, te in zip(train, test):
            assert not set(tr.problem.tolist()) & set(te.problem.tolist())  # no problem in both
            assert len(tr.target) + len(te.target) == len(next(t for t in tables
                                                               if t.dataset == tr.dataset).target)


def test_a_humaneval_task_is_in_one_fold_in_every_language():
    """HumanEval's languages are translations of one task (the same ``sample_idx``: its intent,
    tests and reference): folds shuffled per language held task 99 out in Python while its Java,
    JavaScript and C++ completions trained that fold's fit. Now a task has one fold in every
    language, CoNaLa keeps its own shuffle, and every fold still holds its share."""
    langs = ("python", "java", "js", "cpp")
    keys = [(lang, p) for lang in langs for p in range(161)] + [("conala", p) for p in range(472)]
    folds = problem_folds(keys, 5, seed=8)
    for p in range(161):
        assert len({folds[(lang, p)] for lang in langs}) == 1, p
    for dataset, size in (("python", 161), ("conala", 472)):
        counts = np.bincount([folds[(dataset, p)] for p in range(size)], minlength=5)
        assert counts.max() - counts.min() <= 1
    # the inner folds of a fit (rankfit.InnerCV) share the rule: a sample with some languages
    sub = problem_folds([("java", p) for p in (3, 9, 40)] + [("cpp", p) for p in (3, 9, 40)], 2, seed=1)
    assert all(sub[("java", p)] == sub[("cpp", p)] for p in (3, 9, 40))


def test_select_column_prefers_the_informative_metric_out_of_fold():
    tables = [_table("python", seed=1), _table("cpp", seed=2)]
    folds = problem_folds([(t.dataset, int(p)) for t in tables for p in t.problem], 4, seed=0)
    res = select_column(tables, ["noise", "good"], folds, 4)
    assert res["picks"] == ["good"] * 4 and res["chosen_on_all"] == "good"
    assert res["held_out"]["python"]["tau"] > 0.5


# -- combined score -------------------------------------------------------------------------------


def test_combined_score_is_the_logistic_of_the_standardised_combination():
    model = {"features": ["a", "b"], "mean": [0.5, 0.2], "scale": [0.1, 0.4],
             "coef": [1.0, -2.0], "intercept": 0.25}
    z = 0.25 + 1.0 * (0.7 - 0.5) / 0.1 - 2.0 * (0.6 - 0.2) / 0.4
    assert linear_part({"a": 0.7, "b": 0.6}, model) == pytest.approx(z)
    assert combined_score({"a": 0.7, "b": 0.6}, model) == pytest.approx(1 / (1 + math.exp(-z)))
    # a missing or None input takes the training mean
    assert combined_score({"a": None}, model) == pytest.approx(1 / (1 + math.exp(-0.25)))


def test_logistic_fit_recovers_the_direction():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] - 0.5 * x[:, 1] + rng.normal(0, 0.3, 400) > 0).astype(float)
    intercept, coef = fit_logistic(x, y, np.ones(400), l2=1e-3)
    assert coef[0] > 1 and coef[1] < -0.3 and abs(intercept) < 0.5


def test_length_inputs_use_the_closest_reference():
    from refscore.combined.inputs import length_inputs

    got = length_inputs("a b c", ["x", "w x y z"])  # 3 tokens; closest reference has 4
    assert got["len_ratio"] == pytest.approx(math.log(4 / 5))
    assert got["ref_len"] == pytest.approx(math.log(5))


def test_shipped_combination_reads_and_rises_with_its_inputs():
    from refscore.combined import FORMAT_VERSION, load_model, required_inputs

    model = load_model()
    names = required_inputs(model)
    assert model["version"] == FORMAT_VERSION and isinstance(model["headline"], bool)
    assert model["bert"]["layer"] in range(1, 7)
    from refscore.combined.inputs import CALIBRATION

    calibration = [n for n in names if n in CALIBRATION]
    assert "ref_len" in calibration and names[-len(calibration):] == calibration  # calibration inputs last
    up = {n: m + s * (1 if c > 0 else -1) for n, m, s, c in zip(names, model["mean"], model["scale"], model["coef"])}
    down = {n: m - s * (1 if c > 0 else -1) for n, m, s, c in zip(names, model["mean"], model["scale"], model["coef"])}
    assert 0.0 < combined_score(down) < combined_score({}) < combined_score(up) < 1.0
