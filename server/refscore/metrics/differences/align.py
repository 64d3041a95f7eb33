"""Align a candidate's code tokens with its reference's, names read through a renaming.

Two passes of a longest-matching-block alignment (``difflib.SequenceMatcher`` with its work
bounded, ``bounded.match``; lines first and then the tokens of the lines that differ, ``opcodes``):
the first compares every name as the same word, so a consistently renamed copy aligns whole;
the name pairs it aligns give a one-to-one renaming (most frequent pairs first); the second
compares names through that renaming, so a name used where the reference uses another one is
a change (a compound update and its long spelling read as one, ``equivalent_keys``).
What does not align becomes ``Chunk``s: a replaced, missing or extra run of tokens with
how much aligned code surrounds it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, Sequence

from ...analysis.leaves import CodeToken
from .bounded import kept_lines_match, kept_match
from .moves import refine

ChunkKind = Literal["replace", "delete", "insert", "moved"]
_NAME = "\x00name"
Opcode = tuple[str, int, int, int, int]
#: Runs of lines whose token counts multiply past this are aligned with difflib's heuristic.
EXACT_LIMIT = 400_000


@dataclass(frozen=True)
class Chunk:
    """Reference tokens ``ref_lo:ref_hi`` stand where candidate tokens ``cand_lo:cand_hi`` do
    (``delete``: the candidate lacks them; ``insert``: the candidate has extra ones; ``moved``: a
    reference line the candidate has elsewhere, its differing tokens are chunks of their own).
    ``before``/``after``: aligned tokens on either side up to the next chunk."""

    kind: ChunkKind
    ref_lo: int
    ref_hi: int
    cand_lo: int
    cand_hi: int
    before: int
    after: int


@dataclass(frozen=True)
class Alignment:
    """The token alignment of one candidate with one reference."""

    reference: tuple[CodeToken, ...]
    candidate: tuple[CodeToken, ...]
    #: per reference token, the index of the candidate token aligned with it, or -1
    pairs: tuple[int, ...]
    chunks: tuple[Chunk, ...]
    #: reference name -> the candidate name it was renamed to (one-to-one)
    renames: tuple[tuple[str, str], ...]
    #: part of the code was left unaligned to bound the work (``bounded``)
    capped: bool = False

    @cached_property
    def reference_starts(self) -> list[int]:
        """Start offsets of the reference tokens (for bisecting)."""
        return [t.start for t in self.reference]

    @property
    def ratio(self) -> float:
        """Share of the tokens of both sides that aligned (1.0 for two empty texts)."""
        total = len(self.reference) + len(self.candidate)
        return 1.0 if not total else 2 * sum(p >= 0 for p in self.pairs) / total

    def candidate_name(self, reference_name: str) -> str | None:
        """What the candidate calls the reference's ``reference_name`` (None: no aligned use)."""
        return self._renamed.get(reference_name)

    @cached_property
    def _renamed(self) -> dict[str, str]:
        return dict(self.renames)

    @cached_property
    def candidate_uses(self) -> dict[str, list[CodeToken]]:
        """Each name's tokens in the candidate, in order (a placing reads a variable's uses)."""
        uses: dict[str, list[CodeToken]] = {}
        for token in self.candidate:
            if token.kind == "name":
                uses.setdefault(token.text, []).append(token)
        return uses


def _keys(tokens: Sequence[CodeToken]) -> list[str]:
    """First-pass comparison keys: every name the same word."""
    return [_NAME if t.kind == "name" else t.text for t in tokens]


def _renaming(reference: Sequence[CodeToken], candidate: Sequence[CodeToken],
              blocks: Sequence[tuple[int, int, int]]) -> dict[str, str]:
    """reference name -> candidate name, one-to-one, most often aligned pairs first (a name kept
    as it is wins a tie)."""
    pairs: Counter[tuple[str, str]] = Counter()
    for ref_at, cand_at, size in blocks:
        for k in range(size):
            ref, cand = reference[ref_at + k], candidate[cand_at + k]
            if ref.kind == "name":
                pairs[(ref.text, cand.text)] += 1
    taken_ref: dict[str, str] = {}
    taken_cand: set[str] = set()
    for (ref, cand), _ in sorted(pairs.items(), key=lambda item: (-item[1], item[0][0] != item[0][1], item[0])):
        if ref not in taken_ref and cand not in taken_cand:
            taken_ref[ref] = cand
            taken_cand.add(cand)
    return taken_ref


def _line_runs(tokens: Sequence[CodeToken]) -> list[tuple[int, int]]:
    """Token index ranges, one per line that has tokens."""
    lines = [t.line for t in tokens]
    starts = [0, *(i for i, (before, here) in enumerate(zip(lines, lines[1:]), 1) if here != before)] if lines else []
    return list(zip(starts, [*starts[1:], len(lines)]))


def _at(runs: Sequence[tuple[int, int]], lo: int, hi: int, total: int) -> tuple[int, int]:
    """The token range of lines ``lo:hi``."""
    start = runs[lo][0] if lo < len(runs) else total
    return start, (runs[hi - 1][1] if hi > lo else start)


def opcodes(reference: Sequence[CodeToken], candidate: Sequence[CodeToken], ref_keys: Sequence[str],
            cand_keys: Sequence[str], runs: tuple[list[tuple[int, int]], list[tuple[int, int]]] | None = None
            ) -> tuple[list[Opcode], bool]:
    """Token opcodes in two levels: whole lines first (few elements, so the exact matcher stays
    fast), then tokens inside each run of lines that differ (a run too large to compare exactly
    uses difflib's popular-element heuristic); and whether the work was capped (``bounded``)."""
    ref_runs, cand_runs = runs if runs is not None else (_line_runs(reference), _line_runs(candidate))
    ref_lines = ["\x1f".join(ref_keys[a:b]) for a, b in ref_runs]
    cand_lines = ["\x1f".join(cand_keys[a:b]) for a, b in cand_runs]
    out: list[Opcode] = []
    lines = kept_lines_match(ref_lines, cand_lines)  # the first pass's, after an edit inside names
    capped = lines.capped
    for tag, i1, i2, j1, j2 in lines.opcodes:
        r1, r2 = _at(ref_runs, i1, i2, len(reference))
        c1, c2 = _at(cand_runs, j1, j2, len(candidate))
        if tag == "equal":
            inner: list[Opcode] = [("equal", 0, r2 - r1, 0, c2 - c1)]
        else:
            exact = (r2 - r1) * (c2 - c1) <= EXACT_LIMIT
            tokens = kept_match(ref_keys[r1:r2], cand_keys[c1:c2], autojunk=not exact)  # most runs seen before
            inner, capped = tokens.opcodes, capped or tokens.capped
        for t, a1, a2, b1, b2 in inner:
            if out and t == "equal" and out[-1][0] == "equal":
                out[-1] = ("equal", out[-1][1], r1 + a2, out[-1][3], c1 + b2)
            else:
                out.append((t, r1 + a1, r1 + a2, c1 + b1, c1 + b2))
    return out, capped


# Spellings of one update that the alignment reads as the same: ``x = x + y`` as ``x += y`` and
# ``x += 1`` as ``x++`` (likewise for ``-``, ``*``, ``/``, ``%``). ``equivalent_keys`` rewrites
# comparison keys only (the tokens and their offsets stay): the update's operator gets the compound
# operator's key, the tokens the short form lacks get ``FILLER``, which matches nothing and which a
# run of its own never reports (``only_filler``).

FILLER = "\x03"
_OPS = frozenset("+-*/%")
_STOPS = frozenset({";", ")", "}", ","})


def _operand_ends(tokens: Sequence[CodeToken], at: int) -> bool:
    """Whether the operand starting at ``at`` runs to the statement's end with no operator outside
    brackets (so ``x = x + y`` is ``x += y``, but ``x = x + y * z`` is left alone)."""
    depth = 0
    line = tokens[at - 1].line
    for token in tokens[at:]:
        if token.line != line and depth == 0:
            return True
        if token.text in ("(", "["):
            depth += 1
        elif token.text in (")", "]"):
            if depth == 0:
                return True
            depth -= 1
        elif depth == 0 and (token.text in _STOPS or token.kind == "keyword"):
            return True
        elif depth == 0 and token.kind == "operator":
            return False
    return True


def equivalent_keys(tokens: Sequence[CodeToken], keys: Sequence[str]) -> list[str]:
    """``keys`` with the update spellings above read as their short forms."""
    out = list(keys)
    n = len(tokens)
    for i, token in enumerate(tokens):
        if token.kind != "name" or i + 4 > n:
            continue
        eq, again, op = tokens[i + 1], tokens[i + 2], tokens[i + 3]
        if (eq.text == "=" and again.kind == "name" and keys[i + 2] == keys[i] and op.text in _OPS
                and again.line == token.line and i + 4 < n and _operand_ends(tokens, i + 4)):
            out[i + 1], out[i + 2], out[i + 3] = op.text + "=", FILLER, FILLER
    for i in range(n - 2):
        if (tokens[i].kind == "name" and tokens[i + 1].text in ("+=", "-=") and tokens[i + 2].text == "1"
                and out[i + 1] == tokens[i + 1].text and (i + 3 == n or tokens[i + 3].line != tokens[i].line
                                                          or tokens[i + 3].text in _STOPS)):
            out[i + 1], out[i + 2] = tokens[i + 1].text[0] * 2, FILLER
    return out


def only_filler(keys: Sequence[str], lo: int, hi: int) -> bool:
    """Whether ``keys[lo:hi]`` are all ``FILLER`` (a run the short form simply does not spell)."""
    return hi > lo and all(k == FILLER for k in keys[lo:hi])


def align(reference: Sequence[CodeToken], candidate: Sequence[CodeToken]) -> Alignment:
    """The alignment of ``candidate`` with ``reference`` (both from ``analysis.leaves``)."""
    ref_abstract, cand_abstract = _keys(reference), _keys(candidate)
    runs = (_line_runs(reference), _line_runs(candidate))  # both passes read the same lines
    first_opcodes, capped = opcodes(reference, candidate, ref_abstract, cand_abstract, runs)
    first = [(i1, j1, i2 - i1) for tag, i1, i2, j1, _ in first_opcodes if tag == "equal"]
    renames = _renaming(reference, candidate, first)
    # candidate keys: the reference name a candidate name stands for; reference keys: their own
    by_candidate = {cand: ref for ref, cand in renames.items()}
    # a name the renaming does not know matches the same name on the other side (a call, a field
    # the first pass did not align); a name the reference gave to another one does not
    cand_keys = [by_candidate.get(t.text, "\x02" + t.text if t.text in renames else "\x01" + t.text)
                 if t.kind == "name" else t.text for t in candidate]
    ref_keys = ["\x01" + t.text if t.kind == "name" and t.text not in renames else t.text for t in reference]
    pairs = [-1] * len(reference)
    ref_keys, cand_keys = equivalent_keys(reference, ref_keys), equivalent_keys(candidate, cand_keys)
    second_opcodes, second_capped = opcodes(reference, candidate, ref_keys, cand_keys, runs)
    found = [op for op in second_opcodes
             if not (op[0] == "insert" and only_filler(cand_keys, op[3], op[4]))
             and not (op[0] == "delete" and only_filler(ref_keys, op[1], op[2]))]
    for tag, i1, i2, j1, _ in found:
        if tag == "equal":
            for k in range(i2 - i1):
                pairs[i1 + k] = j1 + k
    pieces = refine(reference, candidate, ref_keys, cand_keys, found, pairs)
    chunks = sorted((Chunk(*piece) for piece in pieces), key=lambda c: (c.cand_lo, c.ref_lo, c.kind != "moved"))  # type: ignore[arg-type]
    return Alignment(tuple(reference), tuple(candidate), tuple(pairs), tuple(chunks),
                     tuple(sorted(renames.items())), capped or second_capped)
