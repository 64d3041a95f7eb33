"""Batched greedy matching: many (candidate, reference) pairs in a few tensor operations.

The same numbers as ``codebertscore.greedy_match`` pair by pair (to float32 rounding, ~1e-7),
without a Python loop over pairs or tokens: pairs are sorted by size into buckets, each bucket's
candidate and reference rows are padded into ``(B, N, d)`` and ``(B, M, d)`` tensors with masks,
and one ``bmm``, two masked ``max`` and weighted sums give P and R of the whole bucket; F1, F3
and the empty-side rule are element-wise over all pairs. Pure functions: the tensors may live on
any device (a GPU's: the padded rows are copied there, the scores come back as float64 on the CPU).
One large pair on the CPU is matched in blocks kept by content (``codebertscore_blocks``): an
edit of a long file matches again only the rows it changed.

The best similarity of each token and the index of its match (what token alignments are built
from) are kept only for the pairs named in ``keep``, from the same similarities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from .codebertscore_blocks import BLOCKED_CELLS, blocked_bests

if TYPE_CHECKING:  # pragma: no cover
    import torch

#: Most similarity cells (B x N x M) per bucket, by device type.
MAX_BUCKET_CELLS = {"cpu": 1 << 20, "cuda": 1 << 27}
#: Most pairs per bucket.
MAX_BUCKET_PAIRS = 1024


@dataclass
class TokenMatches:
    """Per-token greedy matches of one pair (1-D tensors on the CPU)."""

    cand_best: "torch.Tensor"  # best similarity of each candidate row
    cand_arg: "torch.Tensor"  # index of that reference row
    ref_best: "torch.Tensor"
    ref_arg: "torch.Tensor"


@dataclass
class BatchMatch:
    """``scores``: (pairs, 4) float64 P, R, F1, F3 as ``greedy_match`` gives them (NaN where a
    weight sum is 0; P = R = 0 for an empty side). ``tokens``: matches of the kept pairs."""

    scores: "torch.Tensor"
    tokens: dict[int, TokenMatches] = field(default_factory=dict)


def buckets(cand_sizes: Sequence[int], ref_sizes: Sequence[int], max_cells: int,
            max_pairs: int = MAX_BUCKET_PAIRS) -> list[list[int]]:
    """Pair indices grouped by (candidate size, reference size), each rounded up in steps of
    about 1/8, so a bucket carries little padding; a group is split so its padded ``B x N x M``
    stays within ``max_cells``."""
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (n, m) in enumerate(zip(cand_sizes, ref_sizes)):
        groups.setdefault((_step(n), _step(m)), []).append(i)
    out: list[list[int]] = []
    for key in sorted(groups):
        members = sorted(groups[key], key=lambda i: (cand_sizes[i], ref_sizes[i]))
        chunk: list[int] = []
        n = m = 1
        for i in members:
            n2, m2 = max(n, cand_sizes[i]), max(m, ref_sizes[i])
            if chunk and ((len(chunk) + 1) * n2 * m2 > max_cells or len(chunk) >= max_pairs):
                out.append(chunk)
                chunk, n2, m2 = [], max(cand_sizes[i], 1), max(ref_sizes[i], 1)
            chunk.append(i)
            n, m = n2, m2
        if chunk:
            out.append(chunk)
    return out


def _step(size: int) -> int:
    """Sizes rounded up to steps of about 1/8 (16, 18, 20, ... 32, 36, ...)."""
    if size <= 16:
        return 16
    unit = 1 << max(0, size.bit_length() - 4)
    return -(-size // unit) * unit


def pad(rows: Sequence["torch.Tensor"], device: str) -> tuple["torch.Tensor", "torch.Tensor"]:
    """``rows`` (each (n_i, ...) ) as one zero-padded (B, N, ...) tensor and its (B, N) mask, on
    ``device`` (through pinned memory, without waiting, to a GPU)."""
    import torch

    sizes = torch.tensor([len(r) for r in rows])
    width = max(1, int(sizes.max())) if len(rows) else 1
    if rows and all(len(r) for r in rows):
        padded = torch.nn.utils.rnn.pad_sequence(list(rows), batch_first=True)
    else:
        tail = tuple(rows[0].shape[1:]) if rows else ()
        padded = rows[0].new_zeros((len(rows), width, *tail)) if rows else torch.zeros((0, width, *tail))
        for b, r in enumerate(rows):
            padded[b, :len(r)] = r
    if padded.shape[1] < width:
        padded = torch.nn.functional.pad(padded, (0, 0) * (padded.dim() - 2) + (0, width - padded.shape[1]))
    mask = torch.arange(width)[None, :] < sizes[:, None]
    if not device.startswith("cpu"):
        padded = padded.pin_memory().to(device, non_blocking=True)
        mask = mask.pin_memory().to(device, non_blocking=True)
    return padded, mask


def _pad_flat(rows: Sequence["torch.Tensor"], width: int, device: str) -> "torch.Tensor":
    """1-D ``rows`` zero-padded to (B, ``width``) on ``device``."""
    import torch

    out = torch.nn.utils.rnn.pad_sequence(list(rows), batch_first=True)
    if out.shape[1] < width:
        out = torch.nn.functional.pad(out, (0, width - out.shape[1]))
    if not device.startswith("cpu"):
        out = out.pin_memory().to(device, non_blocking=True)
    return out


def match_bucket(cand: "torch.Tensor", cand_mask: "torch.Tensor", cand_w: "torch.Tensor",
                 ref: "torch.Tensor", ref_mask: "torch.Tensor", ref_w: "torch.Tensor",
                 floors: "torch.Tensor") -> tuple["torch.Tensor", "torch.Tensor", tuple["torch.Tensor", ...]]:
    """P and R of one padded bucket (B pairs), and the per-token best values and indices.

    ``cand`` (B, N, d) and ``ref`` (B, M, d) hold unit rows; ``*_w`` the weights (0 on padding);
    ``floors`` (B, 2) bool raises negative best similarities to 0 on the precision / recall side
    (see ``greedy_match``)."""
    import torch

    if cand.shape[0] == 1 and cand.is_cpu and bool(cand_mask.all()) and bool(ref_mask.all()) \
            and cand.shape[1] * ref.shape[1] >= BLOCKED_CELLS:  # one large pair: blocks kept by content
        cand_best, cand_arg, ref_best, ref_arg = (t[None] for t in blocked_bests(cand[0], ref[0]))
    else:
        sim = torch.bmm(cand, ref.transpose(1, 2))
        valid = cand_mask[:, :, None] & ref_mask[:, None, :]
        sim = sim.masked_fill(~valid, float("-inf"))
        cand_best, cand_arg = sim.max(dim=2)
        ref_best, ref_arg = sim.max(dim=1)
    cand_best = torch.where(floors[:, :1], cand_best.clamp(min=0.0), cand_best)
    ref_best = torch.where(floors[:, 1:], ref_best.clamp(min=0.0), ref_best)
    cand_best = torch.where(torch.isfinite(cand_best), cand_best, 0.0)
    ref_best = torch.where(torch.isfinite(ref_best), ref_best, 0.0)
    p = (cand_best * (cand_w / cand_w.sum(dim=1, keepdim=True))).sum(dim=1)
    r = (ref_best * (ref_w / ref_w.sum(dim=1, keepdim=True))).sum(dim=1)
    return p, r, (cand_best, cand_arg, ref_best, ref_arg)


def f_scores(p: "torch.Tensor", r: "torch.Tensor") -> tuple["torch.Tensor", "torch.Tensor"]:
    """Element-wise ``codebertscore.f_scores``: F1 = 2PR/(P+R), F3 = 10PR/(9P+R), undefined -> 0."""
    import torch

    s1, s3 = p + r, 9 * p + r
    f1 = torch.where(s1 != 0, 2 * p * r / s1, torch.nan).nan_to_num(nan=0.0)
    f3 = torch.where(s3 != 0, 10 * p * r / s3, torch.nan).nan_to_num(nan=0.0)
    return f1, f3


def match_pairs(cand_rows: Sequence["torch.Tensor"], cand_weights: Sequence["torch.Tensor"],
                cand_empty: Sequence[bool], ref_rows: Sequence["torch.Tensor"],
                ref_weights: Sequence["torch.Tensor"], ref_empty: Sequence[bool],
                floors: Sequence[tuple[bool, bool]] | None = None, keep: Sequence[int] = (),
                device: str = "cpu", max_cells: int | None = None) -> BatchMatch:
    """Greedy matching of pair ``i``: candidate rows ``cand_rows[i]`` (n_i, d), unit length, with
    weights ``cand_weights[i]`` (n_i,), against reference ``ref_rows[i]``; see the module doc."""
    import torch

    count = len(cand_rows)
    kind = "cpu" if device.startswith("cpu") else "cuda"
    cells = max_cells or MAX_BUCKET_CELLS[kind]
    wanted = set(keep)
    floor_t = torch.tensor(list(floors) if floors is not None else [(False, False)] * count,
                           dtype=torch.bool).reshape(count, 2)
    pr = torch.zeros((count, 2), dtype=torch.float64)
    tokens: dict[int, TokenMatches] = {}
    for idx in buckets([len(c) for c in cand_rows], [len(r) for r in ref_rows], cells):
        c, cm = pad([cand_rows[i] for i in idx], device)
        r, rm = pad([ref_rows[i] for i in idx], device)
        cw = _pad_flat([cand_weights[i] for i in idx], c.shape[1], device)
        rw = _pad_flat([ref_weights[i] for i in idx], r.shape[1], device)
        fl = floor_t[idx].to(device)
        p, rr, best = match_bucket(c, cm, cw, r, rm, rw, fl)
        pr[idx] = torch.stack([p, rr], dim=1).double().cpu()
        for b, i in enumerate(idx):
            if i in wanted:
                n, m = len(cand_rows[i]), len(ref_rows[i])
                cb, ca, rb, ra = (t[b].cpu() for t in best)
                tokens[i] = TokenMatches(cb[:n], ca[:n], rb[:m], ra[:m])
    p, r = pr[:, 0], pr[:, 1]
    f1, f3 = f_scores(p, r)
    empty = torch.tensor([a or b for a, b in zip(cand_empty, ref_empty)], dtype=torch.bool)
    p = torch.where(empty, 0.0, p)
    r = torch.where(empty, 0.0, r)
    return BatchMatch(torch.stack([p, r, f1, f3], dim=1), tokens)


def best_over_references(scores: "torch.Tensor",
                         groups: Sequence[int]) -> tuple["torch.Tensor", "torch.Tensor"]:
    """Component-wise maximum of consecutive rows of ``scores`` (pairs, 4): ``groups[k]`` rows for
    output row ``k`` (NaN if any of them has NaN there; no rows give 0), and the index within the
    group of the row with the best F1 (column 2; the first on a tie)."""
    import torch

    count = len(groups)
    if not count:
        return torch.zeros((0, scores.shape[1]), dtype=scores.dtype), torch.zeros(0, dtype=torch.long)
    sizes = torch.tensor(list(groups), dtype=torch.long)
    width = max(1, int(sizes.max()))
    padded = torch.full((count, width, scores.shape[1]), float("-inf"), dtype=scores.dtype)
    owner = torch.repeat_interleave(torch.arange(count), sizes)
    slot = torch.arange(len(owner)) - (torch.cumsum(sizes, 0) - sizes)[owner]
    padded[owner, slot] = scores
    has = sizes[:, None] > 0
    best = torch.where(has, padded.amax(dim=1), 0.0)
    index = torch.where(has[:, 0], padded[:, :, 2].nan_to_num(nan=float("-inf")).argmax(dim=1), 0)
    return best, index
