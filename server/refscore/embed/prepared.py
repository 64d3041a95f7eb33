"""Texts prepared for CodeBERTScore matching, and the matching of many pairs at once.

``prepare_texts`` embeds each distinct (text, context) once and keeps its matching rows (unit
vectors); ``text_weights`` gives every prepared text its token weights in one tensor operation;
``match_prepared`` scores many (candidate, reference) pairs with the batched matching of
``metrics.codebertscore_batch`` on the encoder's device. ``match_pair`` is the one-pair form
(the reference the batched path is tested against). Called by ``embed.bertscorer`` alone, the
one CodeBERTScore path (the drop-in ``compat.score`` reaches it through a ``BatchRule``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..metrics.codebertscore import (
    IdfTable,
    ModelInput,
    PairMatch,
    greedy_match,
    matching_rows,
    model_input,
    normalize_rows,
    token_weights,
)
from ..metrics.codebertscore_batch import BatchMatch, match_pairs

if TYPE_CHECKING:  # pragma: no cover
    import torch

    from .encoder import Encoded, Encoder


@dataclass
class PreparedText:
    """One text (with its optional context) embedded and reduced to its matching rows."""

    original: str
    source: ModelInput
    encoded: "Encoded"
    rows: list[int]  # indices into encoded tokens that take part in matching
    emb: "torch.Tensor"  # (len(rows), d), unit rows
    empty: bool  # no row besides special tokens
    _spans: list[tuple[int, int] | None] | None = field(default=None, init=False, repr=False, compare=False)

    def row_ids(self) -> list[int]:
        """Token ids of the matching rows."""
        return [self.encoded.ids[i] for i in self.rows]

    def row_span(self, k: int) -> tuple[int, int] | None:
        """Span of matching row ``k`` in the original text (None for special tokens)."""
        i = self.rows[k]
        if self.encoded.special[i]:
            return None
        return self.source.to_original(*self.encoded.offsets[i])

    def is_special(self, k: int) -> bool:
        """Whether matching row ``k`` is a special token (CLS, SEP, ...)."""
        return self.encoded.special[self.rows[k]]

    def row_spans(self) -> list[tuple[int, int] | None]:
        """``row_span`` of every matching row (one pass, for alignments of long texts; made once:
        a live reference is matched edit after edit)."""
        if self._spans is None:
            delta = self.source.shift - self.source.code_start
            special, offsets = self.encoded.special, self.encoded.offsets
            self._spans = [None if special[i] else (offsets[i][0] + delta, offsets[i][1] + delta) for i in self.rows]
        return self._spans


def prepare_texts(encoder: "Encoder", items: Sequence[tuple[str, str | None]],
                  batch_size: int | None = None,
                  plan_lengths: Mapping[str, int] | None = None,
                  parts: Mapping[tuple[str, str | None], str | None] | None = None,
                  ) -> dict[tuple[str, str | None], PreparedText]:
    """Embed each distinct (text, context) once and select its matching rows.

    ``plan_lengths`` maps model texts to window-plan lengths (drop-in parity only). ``parts`` maps
    (text, context) keys to their language: those are embedded definition by definition when they
    have several (``embed.incremental``, the editor's live updates), the others exactly.
    """
    unique = list(dict.fromkeys((t, c or None) for t, c in items))
    sources = [model_input(t, c) for t, c in unique]
    split: dict[tuple[str, str | None], "Encoded"] = {}
    if parts:
        from .incremental import embed_in_parts

        for key, src in zip(unique, sources):
            if key in parts:
                found = embed_in_parts(encoder, src, parts[key])
                if found is not None:
                    split[key] = found
    exact = encoder.embed([s.text for k, s in zip(unique, sources) if k not in split], batch_size=batch_size,
                          plan_lengths=plan_lengths)
    rest = iter(exact)
    encoded = [split[k] if k in split else next(rest) for k in unique]
    out: dict[tuple[str, str | None], PreparedText] = {}
    for (text, ctx), src, enc in zip(unique, sources, encoded):
        rows = matching_rows(enc.tokens, enc.offsets, enc.special, src.code_start)
        assert enc.embeddings is not None
        emb = normalize_rows(enc.embeddings[rows])
        empty = all(enc.special[i] for i in rows)
        out[(text, ctx)] = PreparedText(text, src, enc, rows, emb, empty)
    return out


Key = tuple[str, "str | None"]


class LiveMemo:
    """The last texts prepared definition by definition (an editor's live updates), by text,
    context and language: an edited document's reference is the same text edit after edit, and
    preparing a 2,000-line one again (its tokens, definitions, matching rows) took a fifth of the
    daemon's work per edit. Bounded by ``entries`` and by the matching rows held (thread-safe)."""

    def __init__(self, entries: int = 4, rows: int = 40_000) -> None:
        self.entries, self.rows = entries, rows
        self._kept: OrderedDict[tuple[Key, "str | None"], PreparedText] = OrderedDict()
        self._lock = threading.Lock()

    def prepare(self, parts: Mapping[Key, "str | None"],
                make: "Callable[[dict[Key, str | None]], Mapping[Key, PreparedText]]") -> dict[Key, PreparedText]:
        """The prepared text of each of ``parts``' keys (embedded definition by definition in its
        language): those prepared before from here, the others by ``make`` (``prepare_texts``
        of them, asked once) and kept."""
        with self._lock:
            found = {k: self._kept.get((k, lang)) for k, lang in parts.items()}
        missing = {k: parts[k] for k, kept in found.items() if kept is None}
        fresh = make(missing) if missing else {}
        with self._lock:
            for key, lang in parts.items():
                if key in fresh:
                    self._kept[(key, lang)] = fresh[key]
                elif (key, lang) in self._kept:
                    self._kept.move_to_end((key, lang))
            while len(self._kept) > self.entries or (
                    len(self._kept) > 1 and sum(len(t.rows) for t in self._kept.values()) > self.rows):
                self._kept.popitem(last=False)
        return {k: fresh[k] if k in fresh else found[k] for k in parts}  # type: ignore[misc]


def unweighted_ids(encoder: "Encoder") -> set[int]:
    """Ids that weigh 0 without IDF: the tokenizer's CLS and SEP (BOS/EOS for RoBERTa)."""
    tok = encoder.tokenizer
    return {i for i in (tok.cls_token_id, tok.sep_token_id) if i is not None}


def idf_from_references(encoder: "Encoder", references: Sequence[str]) -> IdfTable:
    """IDF over the references (stripped, without context, with special tokens), as the package
    computes it; each reference string counts as one document, repeats included."""
    stripped = [r.strip() for r in references]
    distinct = list(dict.fromkeys(stripped))
    ids = {enc.text: enc.ids for enc in encoder.tokenize(distinct)}
    return IdfTable.from_documents(ids[r] for r in stripped)


def match_pair(cand: PreparedText, ref: PreparedText, idf: IdfTable | None,
               zero_ids: set[int], floor: tuple[bool, bool] = (False, False)) -> PairMatch:
    """Greedy matching of one prepared candidate against one prepared reference."""
    cw = cand.emb.new_tensor(token_weights(cand.row_ids(), idf, zero_ids))
    rw = ref.emb.new_tensor(token_weights(ref.row_ids(), idf, zero_ids))
    return greedy_match(cand.emb, cw, cand.empty, ref.emb, rw, ref.empty, floor)


def text_weights(texts: Sequence[PreparedText], idf: IdfTable | None,
                 zero_ids: set[int]) -> list["torch.Tensor"]:
    """``token_weights`` of each text's matching rows as float32 tensors, all texts in one
    tensor operation (an IDF table becomes one dense look-up vector)."""
    import torch

    sizes = [len(t.rows) for t in texts]
    ids = torch.tensor([t.encoded.ids[i] for t in texts for i in t.rows], dtype=torch.long)
    if idf is None:
        zero = torch.tensor(sorted(zero_ids), dtype=torch.long)
        flat = (~torch.isin(ids, zero)).to(torch.float32)
    else:
        top = max([int(ids.max()) if len(ids) else 0, *idf.weights]) + 1
        table = torch.full((top,), idf.default, dtype=torch.float64)
        if idf.weights:
            table[torch.tensor(list(idf.weights), dtype=torch.long)] = torch.tensor(
                list(idf.weights.values()), dtype=torch.float64)
        flat = table[ids].to(torch.float32)
    return list(flat.split(sizes))


def match_device(encoder: Any) -> str:
    """Where the matching runs: the encoder's device (the CPU under ONNX Runtime)."""
    if getattr(encoder, "runner", None) is not None:
        return "cpu"
    return str(getattr(encoder, "device", "cpu") or "cpu")


def match_prepared(pairs: Sequence[tuple[PreparedText, PreparedText]], idf: IdfTable | None,
                   zero_ids: set[int], floors: Sequence[tuple[bool, bool]] | None = None,
                   keep: Sequence[int] = (), device: str = "cpu") -> BatchMatch:
    """Greedy matching of every (candidate, reference) pair in buckets; per-token matches only
    for the pair indices in ``keep``."""
    distinct = list({id(t): t for pair in pairs for t in pair}.values())
    weights = dict(zip(map(id, distinct), text_weights(distinct, idf, zero_ids)))
    cands, refs = [c for c, _ in pairs], [r for _, r in pairs]
    return match_pairs([c.emb for c in cands], [weights[id(c)] for c in cands], [c.empty for c in cands],
                       [r.emb for r in refs], [weights[id(r)] for r in refs], [r.empty for r in refs],
                       floors, keep, device)
