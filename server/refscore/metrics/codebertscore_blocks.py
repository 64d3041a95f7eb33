"""Greedy matching of one large pair in blocks of candidate rows, each block's bests kept by content.

A 2,000-line file and its reference hold about 12,000 tokens each: their similarity matrix has
144 million cells, 1.5 s of a 2-core CPU per edit, although an edit changes the rows of one
definition (the editor's live encoding makes a top-level part's vectors depend on the part alone,
``embed.incremental``). Here the candidate's rows are cut into blocks at content-defined places
(a row whose fingerprint ends in zero bits closes a block, within a minimum and maximum size), so
an edit that changes or inserts rows leaves the other blocks as they were; for each block and
reference, the best similarity and its index per candidate row (precision) and per reference row
(recall, over the block's rows) are kept by the bytes of both. The pair's bests are the blocks'
row bests in order and, per reference row, the best over the blocks (the first block on a tie, as
``max`` over the whole matrix gives the first row). Each cell is the same dot product as in the
whole matrix (``tests/embed/test_codebertscore_blocks.py`` checks the bests are equal to it).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import torch

#: A pair with at least this many similarity cells is matched in blocks (smaller ones: one matrix).
BLOCKED_CELLS = 4_000_000
#: Block sizes in candidate rows: a fingerprint with these low bits zero closes a block.
MIN_ROWS, MASK, MAX_ROWS = 16, 63, 256
#: Bytes of kept block bests (each holds about 12 bytes per reference row): least recently used out.
KEPT_BYTES = 96_000_000

Bests = tuple["torch.Tensor", "torch.Tensor", "torch.Tensor", "torch.Tensor"]
_kept: OrderedDict[tuple[bytes, bytes], Bests] = OrderedDict()
_kept_bytes = 0
_lock = threading.Lock()
#: how many blocks were matched (not found kept) since the process started (tests read it)
computed = 0


try:  # 128-bit XXH3: about 20 times faster than BLAKE2 over a file's 18 MB of vectors
    from xxhash import xxh3_128_digest as _hash
except ImportError:  # pragma: no cover - not installed: a cryptographic hash, slower
    def _hash(data: memoryview) -> bytes:
        return hashlib.blake2b(data, digest_size=20).digest()


def _digest(rows: "torch.Tensor") -> bytes:
    """A key of the rows' bytes (with their shape)."""
    data = rows.contiguous().numpy()
    return _hash(memoryview(data).cast("B")) + bytes(str(data.shape), "ascii")


def cuts(rows: "torch.Tensor") -> list[int]:
    """Block ends (exclusive row indices, the last one ``len(rows)``) chosen by the rows' content."""
    import torch

    n = len(rows)
    words = rows.contiguous().view(torch.int32)[:, :8].to(torch.int64)
    mix = torch.tensor([0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1, 0xD3A2646C,
                        0xFD7046C5, 0xB55A4F09], dtype=torch.int64)[:words.shape[1]]
    fingerprints = (words * mix).sum(dim=1) >> 7
    closing = torch.nonzero((fingerprints & MASK) == 0).flatten().tolist()
    ends, start = [], 0
    for row in closing:
        while row + 1 - start > MAX_ROWS:
            start += MAX_ROWS
            ends.append(start)
        if row + 1 - start >= MIN_ROWS:
            ends.append(row + 1)
            start = row + 1
    while n - start > MAX_ROWS:
        start += MAX_ROWS
        ends.append(start)
    if start < n:
        ends.append(n)
    return ends


def _block_bests(block: "torch.Tensor", ref: "torch.Tensor") -> Bests:
    sim = block @ ref.T
    row_best, row_arg = sim.max(dim=1)
    col_best, col_arg = sim.max(dim=0)
    return row_best, row_arg, col_best, col_arg


def blocked_bests(cand: "torch.Tensor", ref: "torch.Tensor") -> Bests:
    """Per candidate row its best similarity and reference row, per reference row its best
    similarity and candidate row: ``max`` over ``cand @ ref.T`` both ways, made block by block
    (both non-empty, on the CPU)."""
    import torch

    global computed, _kept_bytes
    ref_key = _digest(ref)
    rows, args, cols, col_args, starts = [], [], [], [], []
    start = 0
    for end in cuts(cand):
        block = cand[start:end]
        key = (ref_key, _digest(block))
        with _lock:
            found = _kept.get(key)
            if found is not None:
                _kept.move_to_end(key)
        if found is None:
            found = _block_bests(block, ref)
            size = sum(t.numel() * t.element_size() for t in found)
            with _lock:
                computed += 1
                if key not in _kept:
                    _kept[key] = found
                    _kept_bytes += size
                    while _kept_bytes > KEPT_BYTES and len(_kept) > 1:
                        _, old = _kept.popitem(last=False)
                        _kept_bytes -= sum(t.numel() * t.element_size() for t in old)
        row_best, row_arg, col_best, col_arg = found
        rows.append(row_best)
        args.append(row_arg)
        cols.append(col_best)
        col_args.append(col_arg)
        starts.append(start)
        start = end
    ref_best, which = torch.stack(cols).max(dim=0)  # the first block on a tie
    offsets = torch.tensor(starts, dtype=torch.long)
    ref_arg = torch.stack(col_args).gather(0, which[None, :])[0] + offsets[which]
    return torch.cat(rows), torch.cat(args), ref_best, ref_arg


def clear() -> None:
    """Forget every kept block (tests)."""
    global _kept_bytes
    with _lock:
        _kept.clear()
        _kept_bytes = 0
