"""Code the candidate moved: a line the reference has and the alignment left out, paired with a
similar extra line of the candidate elsewhere (a statement written in another place, perhaps
changed on the way).

The alignment keeps order, so a moved statement shows as one missing run and one extra run.
Here each missing reference line is matched with the most similar extra candidate line (same
comparison keys, at least half their tokens and two of them alike); within a pair, the tokens
that agree are aligned (a ``moved`` chunk says the code moved) and those that do not become
ordinary replaced, missing or extra chunks inside it.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from functools import lru_cache
from typing import Sequence

from ...analysis.leaves import CodeToken

Opcode = tuple[str, int, int, int, int]
#: (kind, ref_lo, ref_hi, cand_lo, cand_hi, before, after)
Piece = tuple[str, int, int, int, int, int, int]
MIN_RATIO = 0.5
#: Past this many (missing line, extra line) comparisons, moves are not looked for.
MAX_COMPARISONS = 4000


def _lines(tokens: Sequence[CodeToken], lo: int, hi: int) -> list[tuple[int, int]]:
    """``lo:hi`` cut where the line changes."""
    runs: list[tuple[int, int]] = []
    start = lo
    for index in range(lo + 1, hi + 1):
        if index == hi or tokens[index].line != tokens[start].line:
            runs.append((start, index))
            start = index
    return runs


def _outside(opcodes: Sequence[Opcode], index: int) -> tuple[int, int]:
    """Aligned tokens before and after opcode ``index``."""
    def size(at: int) -> int:
        return opcodes[at][2] - opcodes[at][1] if 0 <= at < len(opcodes) and opcodes[at][0] == "equal" else 0

    return size(index - 1), size(index + 1)


def refine(reference: Sequence[CodeToken], candidate: Sequence[CodeToken], ref_keys: Sequence[str],
           cand_keys: Sequence[str], opcodes: Sequence[Opcode], pairs: list[int]) -> list[Piece]:
    """The chunks of ``opcodes``, moved lines paired up (``pairs`` gets their aligned tokens)."""
    missing: list[tuple[int, int, int]] = []  # (ref_lo, ref_hi, opcode)
    extra: list[tuple[int, int, int]] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "delete":
            missing.extend((a, b, index) for a, b in _lines(reference, i1, i2))
        elif tag == "insert":
            extra.extend((a, b, index) for a, b in _lines(candidate, j1, j2))
    matches: list[tuple[float, int, int]] = []
    if len(missing) * len(extra) > MAX_COMPARISONS:
        missing, extra = [], []
    for m, (i1, i2, _) in enumerate(missing):
        for e, (j1, j2, _) in enumerate(extra):
            same = _same(tuple(ref_keys[i1:i2]), tuple(cand_keys[j1:j2]))
            ratio = 2 * same / (i2 - i1 + j2 - j1)
            if ratio >= MIN_RATIO and same >= 2:
                matches.append((ratio, m, e))
    used_missing: dict[int, int] = {}
    used_extra: set[int] = set()
    for _, m, e in sorted(matches, key=lambda item: (-item[0], item[1], item[2])):
        if m not in used_missing and e not in used_extra:
            used_missing[m] = e
            used_extra.add(e)
    pieces: list[Piece] = []
    for m, e in used_missing.items():
        (i1, i2, _), (j1, j2, _) = missing[m], extra[e]
        pieces.extend(_within(ref_keys, cand_keys, i1, i2, j1, j2, pairs))
    paired_missing = {missing[m][:2] for m in used_missing}
    paired_extra = {extra[e][:2] for e in used_extra}
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            continue
        before, after = _outside(opcodes, index)
        if tag == "delete":
            left = [(a, b) for a, b in _lines(reference, i1, i2) if (a, b) not in paired_missing]
            pieces.extend(("delete", a, b, j1, j1, before, after) for a, b in _merged(left))
        elif tag == "insert":
            left = [(a, b) for a, b in _lines(candidate, j1, j2) if (a, b) not in paired_extra]
            pieces.extend(("insert", i1, i1, a, b, before, after) for a, b in _merged(left))
        else:
            pieces.append((tag, i1, i2, j1, j2, before, after))
    return pieces


@lru_cache(maxsize=65536)
def _same(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How many elements of two lines difflib matches (kept: an edit leaves most lines as they were)."""
    return sum(block.size for block in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())


def _merged(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Adjacent runs joined again (a run left whole keeps its lines together)."""
    out: list[tuple[int, int]] = []
    for a, b in runs:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _within(ref_keys: Sequence[str], cand_keys: Sequence[str], i1: int, i2: int, j1: int, j2: int,
            pairs: list[int]) -> list[Piece]:
    """A moved line's pieces: one ``moved`` chunk for the line, the changes inside it."""
    matcher = SequenceMatcher(None, ref_keys[i1:i2], cand_keys[j1:j2], autojunk=False)
    inner = matcher.get_opcodes()
    pieces: list[Piece] = [("moved", i1, i2, j1, j2, 0, 0)]
    for index, (tag, a1, a2, b1, b2) in enumerate(inner):
        if tag == "equal":
            for k in range(a2 - a1):
                pairs[i1 + a1 + k] = j1 + b1 + k
            continue
        before, after = _outside(inner, index)
        # the line was found again elsewhere: its agreeing tokens are firm context
        pieces.append((tag, i1 + a1, i1 + a2, j1 + b1, j1 + b2, max(before, 3), max(after, 3)))
    return pieces
