"""Batched CodeBERTScore matching gives the pair-by-pair numbers; alignments only when asked for."""

from __future__ import annotations

import math

import pytest

from tests import bert_fixtures  # noqa: F401  (offline env, import path)

torch = pytest.importorskip("torch")

from refscore.embed.overlap import prefetch  # noqa: E402
from refscore.metrics import codebertscore as cbs  # noqa: E402
from refscore.metrics.codebertscore_batch import best_over_references, buckets, match_pairs  # noqa: E402


def _unit(n: int, d: int, gen: torch.Generator) -> torch.Tensor:
    return cbs.normalize_rows(torch.randn(n, d, generator=gen))


def _case(seed: int = 0, count: int = 120, d: int = 16):
    gen = torch.Generator().manual_seed(seed)
    sizes = [int(torch.randint(1, 60, (1,), generator=gen)) for _ in range(2 * count)]
    cands = [_unit(n, d, gen) for n in sizes[:count]]
    refs = [_unit(n, d, gen) for n in sizes[count:]]
    cw = [torch.rand(len(c), generator=gen) for c in cands]
    rw = [torch.rand(len(r), generator=gen) for r in refs]
    cw[3] = torch.zeros(len(cands[3]))  # a zero weight sum: NaN precision, as the package
    rw[5] = torch.zeros(len(refs[5]))
    ce = [i == 7 for i in range(count)]  # an empty candidate: P = R = 0
    re_ = [i == 9 for i in range(count)]
    floors = [(i % 3 == 0, i % 4 == 0) for i in range(count)]
    return cands, cw, ce, refs, rw, re_, floors


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-6


def test_batched_scores_and_token_matches_equal_pair_by_pair():
    cands, cw, ce, refs, rw, re_, floors = _case()
    keep = list(range(0, len(cands), 2))
    batch = match_pairs(cands, cw, ce, refs, rw, re_, floors, keep=keep, max_cells=20_000)
    assert batch.scores.shape == (len(cands), 4) and batch.scores.dtype == torch.float64
    assert sorted(batch.tokens) == keep
    for i in range(len(cands)):
        one = cbs.greedy_match(cands[i], cw[i], ce[i], refs[i], rw[i], re_[i], floors[i])
        got = batch.scores[i].tolist()
        assert all(_same(a, b) for a, b in zip(got, one.scores)), (i, got, one.scores)
        if i in batch.tokens:
            t = batch.tokens[i]
            assert torch.allclose(t.cand_best, one.cand_best, atol=1e-6)
            assert torch.allclose(t.ref_best, one.ref_best, atol=1e-6)
            assert torch.equal(t.cand_arg, one.cand_arg) and torch.equal(t.ref_arg, one.ref_arg)
    assert math.isnan(batch.scores[3, 0]) and math.isnan(batch.scores[5, 1])
    assert batch.scores[7, :2].tolist() == [0.0, 0.0]


def test_buckets_cover_every_pair_once_within_the_cell_budget():
    sizes_c = [5, 50, 3, 40, 7, 1, 100, 2]
    sizes_r = [9, 10, 80, 3, 7, 1, 2, 100]
    out = buckets(sizes_c, sizes_r, max_cells=2_000)
    assert sorted(i for b in out for i in b) == list(range(len(sizes_c)))
    for b in out:
        cells = len(b) * max(sizes_c[i] for i in b) * max(sizes_r[i] for i in b)
        assert cells <= 2_000 or len(b) == 1


def test_best_over_references_matches_the_one_pair_rule():
    nan = float("nan")
    rows = [[0.1, 0.9, 0.3, 0.2], [0.5, 0.2, 0.3, nan], [0.4, 0.4, 0.6, 0.1], [0.2, 0.2, 0.2, 0.2]]
    best, index = best_over_references(torch.tensor(rows, dtype=torch.float64), [2, 0, 2])
    assert all(_same(a, b) for a, b in zip(best[0].tolist(), cbs.best_over_references(rows[:2])))
    assert best[1].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert best[2].tolist() == pytest.approx(cbs.best_over_references(rows[2:]))
    assert index.tolist() == [0, 0, 0]  # F1 tie in the first group: the first reference


def test_prefetch_keeps_order_and_raises_the_producers_error():
    assert list(prefetch(iter(range(50)), depth=2)) == list(range(50))

    def failing():
        yield 1
        raise RuntimeError("producer broke")

    seen = []
    with pytest.raises(RuntimeError, match="producer broke"):
        for value in prefetch(failing()):
            seen.append(value)
    assert seen == [1]
    stream = prefetch(iter(range(10_000)), depth=1)
    assert next(stream) == 0
    stream.close()  # the reader stops early: the helper thread ends too


def test_scorer_builds_alignments_only_when_asked():
    from refscore.embed.bertscorer import ScorePair
    from refscore.embed.models import get_default_scorer

    scorer = get_default_scorer()
    pairs = [ScorePair("def f(a):\n    return a + 1\n", ["def f(x):\n    return x + 1\n", "def g(y): return y"]),
             ScorePair("print('hi')", "print('hello')", alignments=False)]
    full = scorer.score_batch(pairs)
    assert full[0].candidate_tokens and full[0].reference_tokens
    assert full[1].candidate_tokens == () and full[1].reference_tokens == ()
    bare = scorer.score_batch(pairs, alignments=False)
    assert all(not r.candidate_tokens and not r.reference_tokens for r in bare)
    for a, b in zip(full, bare):
        assert (a.precision, a.recall, a.f1, a.f3, a.per_reference, a.reference_index) == \
            (b.precision, b.recall, b.f1, b.f3, b.per_reference, b.reference_index)


def test_requests_need_alignments_for_explain_or_the_headline():
    from dataclasses import replace

    from refscore.scoring.bert import needs_alignments
    from refscore.scoring.headline import needs_token_stats
    from refscore.scoring.report import ScoreRequest

    request = ScoreRequest("x = 1", ("y = 1",), "python", metrics=("codebertscore",), explain=False)
    assert not needs_alignments(request)
    assert needs_alignments(replace(request, explain=True))
    both = replace(request, metrics=("codebleu", "codebertscore"))
    assert needs_alignments(both) == needs_token_stats()
    assert not needs_alignments(replace(both, codebleu_rule="compat"))
