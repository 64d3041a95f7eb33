"""One large pair matched in blocks of candidate rows kept by content gives the bests of the
whole similarity matrix, ties included; an edit matches again only the blocks it changed."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from refscore.metrics import codebertscore_blocks as blocks  # noqa: E402
from refscore.metrics import codebertscore_batch as batch  # noqa: E402
from refscore.metrics.codebertscore_batch import match_pairs  # noqa: E402


def _unit(rows: int, seed: int, dim: int = 48) -> "torch.Tensor":
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, dim, generator=generator)
    return x / x.norm(dim=1, keepdim=True)


def _whole(cand: "torch.Tensor", ref: "torch.Tensor") -> tuple:
    sim = torch.bmm(cand[None], ref.T[None])[0]
    return (*sim.max(dim=1), *sim.max(dim=0))


def _equal(found: tuple, expected: tuple) -> None:
    for got, want in zip(found, expected):
        assert torch.equal(got, want)


def test_blocks_give_the_whole_matrix_bests_ties_included() -> None:
    blocks.clear()
    ref = _unit(700, 1)
    cand = torch.cat([_unit(900, 2), ref[:50], ref[:50], _unit(300, 3)])  # repeated rows: ties
    ref = torch.cat([ref, ref[10:60]])  # repeated reference rows: ties on the candidate side
    assert len(blocks.cuts(cand)) > 5
    _equal(blocks.blocked_bests(cand, ref), _whole(cand, ref))


@pytest.mark.parametrize("seed", range(6))
def test_edited_candidates_reuse_the_blocks_they_did_not_change(seed: int) -> None:
    blocks.clear()
    ref, cand = _unit(600, 10 + seed), _unit(2000, 20 + seed)
    _equal(blocks.blocked_bests(cand, ref), _whole(cand, ref))
    made = blocks.computed
    at = 300 + 250 * seed  # an edit: rows changed and one inserted, as a retyped definition gives
    edited = torch.cat([cand[:at], _unit(13, 99 + seed), cand[at + 12:]])
    _equal(blocks.blocked_bests(edited, ref), _whole(edited, ref))
    assert 1 <= blocks.computed - made <= 3  # the block(s) around the edit, not the whole file
    assert len(blocks.cuts(edited)) > 10


def test_match_pairs_blocks_one_large_pair_with_the_same_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks.clear()
    cand, ref = _unit(2500, 5), _unit(1800, 6)
    weights_c, weights_r = torch.rand(2500) + 0.1, torch.rand(1800) + 0.1
    blocked = match_pairs([cand], [weights_c], [False], [ref], [weights_r], [False], keep=[0])
    assert blocks.computed > 0 and 2500 * 1800 >= blocks.BLOCKED_CELLS
    made = blocks.computed
    again = match_pairs([cand], [weights_c], [False], [ref], [weights_r], [False], keep=[0])
    assert blocks.computed == made and torch.equal(again.scores, blocked.scores)  # every block was kept
    monkeypatch.setattr(batch, "BLOCKED_CELLS", 1 << 62)  # the whole matrix at once
    whole = match_pairs([cand], [weights_c], [False], [ref], [weights_r], [False], keep=[0])
    assert blocks.computed == made
    assert torch.equal(blocked.scores, whole.scores)
    for name in ("cand_best", "cand_arg", "ref_best", "ref_arg"):
        assert torch.equal(getattr(blocked.tokens[0], name), getattr(whole.tokens[0], name))
