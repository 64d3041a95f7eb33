"""CodeBERTScore with a loaded encoder: prepared texts, batching, typed results with alignments.

The math (which tokens count, greedy matching, weights, F-scores) is in
``refscore.metrics.codebertscore``; the result type in ``refscore.metrics.codebertscore_result``.
Scorers are shared per process through ``refscore.embed.models.scorer_for``.

Typical use::

    from refscore.embed.models import scorer_for
    scorer = scorer_for("python")                     # paper model if cached, else MiniLM L6
    res = scorer.score("def f(a): return a+1", ["def f(x): return x + 1"], context="add one")
    res.f1, res.signature, res.candidate_tokens[0].match_text

Empty input: a candidate or reference with no scorable token (empty, whitespace-only or
punctuation-only) scores 0.0 on P, R, F1 and F3 (before rescaling); no exception. Any other
undefined value (a zero IDF weight sum) is reported as 0.0 too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, Union

from ..metrics.codebertscore import (
    IdfTable,
    ModelInput,
    PairMatch,
    best_over_references,
    greedy_match,
    matching_rows,
    model_input,
    normalize_rows,
    rescale,
    token_weights,
)
from ..metrics.codebertscore_result import BertScore, TokenAlignment
from ..metrics.signature import build_signature, yes_no
from .files import load_baseline, load_idf

if TYPE_CHECKING:  # pragma: no cover
    import torch

    from .encoder import Encoded, Encoder

SIGNATURE_PREFIX = "cbs"
#: Default largest text (characters) a scorer accepts; beyond it ``InputTooLargeError``.
DEFAULT_MAX_CHARS = 200_000


class InputTooLargeError(ValueError):
    """A text is longer than the scorer's ``max_chars`` (long texts are never truncated)."""


# -- prepared texts (shared with refscore.compat.bertscore_api) -----------------------------------


@dataclass
class PreparedText:
    """One text (with its optional context) embedded and reduced to its matching rows."""

    original: str
    source: ModelInput
    encoded: "Encoded"
    rows: list[int]  # indices into encoded tokens that take part in matching
    emb: "torch.Tensor"  # (len(rows), d), unit rows
    empty: bool  # no row besides special tokens

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
        """``row_span`` of every matching row (one pass, for alignments of long texts)."""
        delta = self.source.shift - self.source.code_start
        special, offsets = self.encoded.special, self.encoded.offsets
        return [None if special[i] else (offsets[i][0] + delta, offsets[i][1] + delta) for i in self.rows]


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


# -- results --------------------------------------------------------------------------------------


def _alignments(side: PreparedText, other: PreparedText, best: "torch.Tensor",
                arg: "torch.Tensor", weights: list[float]) -> tuple[TokenAlignment, ...]:
    """One alignment per text token of ``side`` (special tokens are never listed). The similarity
    is the metric's (best over every row of ``other``); the match named is the closest text token
    of ``other``, so a model's special token (``[SEP]``) is never shown as a match."""
    best_l, arg_l = best.tolist(), arg.tolist()
    spans, other_spans = side.row_spans(), other.row_spans()
    text_rows = [j for j, span in enumerate(other_spans) if span is not None]
    nearest_text: list[int | None] = list(arg_l) if text_rows else [None] * len(arg_l)
    at_special = [k for k, j in enumerate(arg_l) if other_spans[j] is None]
    if at_special and text_rows:  # only the rows whose best match is a special token
        sims = side.emb[at_special] @ other.emb[text_rows].T
        for k, j in zip(at_special, sims.argmax(dim=1).tolist()):
            nearest_text[k] = text_rows[j]
    out = []
    for k, span in enumerate(spans):
        if span is None:
            continue
        j = arg_l[k] if other_spans[arg_l[k]] is not None else nearest_text[k]
        mspan = other_spans[j] if j is not None else None
        if mspan is None:
            mtext, ms, me = None, None, None
        else:
            ms, me = mspan
            mtext = other.original[ms:me]
        out.append(TokenAlignment(side.original[span[0]:span[1]], span[0], span[1],
                                  float(best_l[k]), float(weights[k]), mtext, ms, me))
    return tuple(out)


def _clean(values: Sequence[float]) -> tuple[float, ...]:
    """NaN (an undefined score) as 0, and float32 rounding past a cosine's bounds cut back
    (a copy can sum to 1.0000001)."""
    return tuple(0.0 if math.isnan(v) else min(1.0, max(-1.0, float(v))) for v in values)


# -- the scorer -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScorePair:
    """A candidate, its references (one string or several), optional language and context."""

    candidate: str
    references: Union[str, Sequence[str]]
    language: str | None = None
    context: str | None = None
    live: bool = False  # an editor's unsaved buffer: definitions may be encoded one by one


PairLike = Union[ScorePair, tuple]
IdfSetting = Union[None, str, Path, IdfTable, Mapping[int, float]]


class BertScorer:
    """Holds a loaded encoder and scores (candidate, references, language, context) pairs.

    ``idf``: None (no IDF), ``"references"`` (IDF from the references of each ``score_batch``
    call, like code-bert-score), an ``IdfTable``, a ``{token_id: weight}`` mapping, or a path to
    an IDF JSON file (``refscore.embed.files.load_idf``). ``baseline``: None, a (P, R, F1, F3) tuple, or a
    code-bert-score baseline CSV (the row of this scorer's layer is used).
    """

    def __init__(self, encoder: "Encoder | None" = None, *, model: str | None = None,
                 layer: int | None = None, language: str | None = None,
                 device: str | None = None, half: bool | None = None, idf: IdfSetting = None,
                 baseline: Union[None, str, Path, Sequence[float]] = None,
                 batch_size: int = 64, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        if encoder is None:
            from .encoder import load_encoder

            encoder = load_encoder(model, layer, language=language, device=device, half=half)
        self.encoder = encoder
        self.batch_size = batch_size
        self.max_chars = max_chars
        self._zero_ids = unweighted_ids(encoder)
        self._idf_mode = idf
        self.idf_table: IdfTable | None = None
        if isinstance(idf, IdfTable):
            self.idf_table = idf
        elif isinstance(idf, Mapping):
            self.idf_table = IdfTable.from_mapping(idf)
        elif isinstance(idf, (str, Path)) and str(idf) != "references":
            self.idf_table = load_idf(idf)
        self.baseline: tuple[float, ...] | None = None
        if isinstance(baseline, (str, Path)):
            self.baseline = load_baseline(baseline, encoder.layer)
        elif baseline is not None:
            self.baseline = tuple(float(b) for b in baseline)

    @property
    def uses_idf(self) -> bool:
        """Whether IDF weighting is on."""
        return self._idf_mode is not None

    def signature(self, context: bool, split: bool = False) -> str:
        """sacrebleu-style signature of the settings that produced a score (``split``: vectors of
        top-level definitions encoded one by one, the editor's live updates)."""
        fields: list[tuple[str, object]] = [
            ("model", self.encoder.model_id), ("layer", self.encoder.layer), ("idf", yes_no(self.uses_idf)),
            ("rescale", yes_no(self.baseline is not None)), ("ctx", yes_no(context))]
        precision = getattr(self.encoder, "precision", "fp32")  # fp16 (GPU), int8: numbers move
        if precision != "fp32":
            fields.append(("precision", precision))
        if split:
            fields.append(("split", "defs"))
        return build_signature(SIGNATURE_PREFIX, tuple(fields))

    def score(self, candidate: str, references: Union[str, Sequence[str]],
              context: str | None = None, language: str | None = None) -> BertScore:
        """Score one candidate against one or more references."""
        return self.score_batch([ScorePair(candidate, references, language, context)])[0]

    def score_batch(self, pairs: Sequence[PairLike]) -> list[BertScore]:
        """Score many pairs; shared texts (a reference used by many candidates) embed once.

        Raises InputTooLargeError for a text over ``max_chars``."""
        items = [p if isinstance(p, ScorePair) else ScorePair(*p) for p in pairs]
        refs_of = [[r] if isinstance(r, str) else list(r) for r in (p.references for p in items)]
        texts: list[tuple[str, str | None]] = []
        for p, refs in zip(items, refs_of):
            texts.append((_as_text(p.candidate), p.context))
            texts.extend((_as_text(r), p.context) for r in refs)
        for text, ctx in texts:
            size = len(text) + len(ctx or "")
            if size > self.max_chars:
                raise InputTooLargeError(
                    f"text of {size} characters is over the CodeBERTScore limit of "
                    f"{self.max_chars} characters (texts are never truncated; score a smaller part, "
                    "such as one function or class)")
        live: dict[tuple[str, str | None], str | None] = {}
        for p, refs in zip(items, refs_of):
            if p.live:
                live.update(((_as_text(t), p.context or None), p.language) for t in (p.candidate, *refs))
        exact_texts = [t for p, refs in zip(items, refs_of) if not p.live
                       for t in [(_as_text(p.candidate), p.context), *((_as_text(r), p.context) for r in refs)]]
        exact = prepare_texts(self.encoder, exact_texts, self.batch_size)  # never the live encoding
        split = prepare_texts(self.encoder, list(live), self.batch_size, parts=live) if live else {}
        idf = self.idf_table
        if self._idf_mode is not None and idf is None:
            idf = idf_from_references(self.encoder, [_as_text(r) for refs in refs_of for r in refs])
        return [self._result(p, refs, split if p.live else exact, idf) for p, refs in zip(items, refs_of)]

    def _result(self, pair: ScorePair, refs: list[str],
                prepared: Mapping[tuple[str, str | None], PreparedText],
                idf: IdfTable | None) -> BertScore:
        ctx = pair.context or None
        cand = prepared[(_as_text(pair.candidate), ctx)]
        matches, per_ref = [], []
        for r in refs:
            ref = prepared[(_as_text(r), ctx)]
            m = match_pair(cand, ref, idf, self._zero_ids)
            if cand.empty or ref.empty:
                m.f1 = m.f3 = 0.0
            matches.append((ref, m))
            per_ref.append(_clean(m.scores))
        scores = best_over_references(per_ref) if per_ref else (0.0, 0.0, 0.0, 0.0)
        if self.baseline is not None:
            scores = rescale(scores, self.baseline)
        cand_tokens: tuple[TokenAlignment, ...] = ()
        ref_tokens: tuple[TokenAlignment, ...] = ()
        best_index = 0
        if matches:
            best_index = max(range(len(matches)), key=lambda i: (per_ref[i][2], -i))
            ref, m = matches[best_index]
            cw = token_weights(cand.row_ids(), idf, self._zero_ids)
            rw = token_weights(ref.row_ids(), idf, self._zero_ids)
            cand_tokens = _alignments(cand, ref, m.cand_best, m.cand_arg, cw)
            ref_tokens = _alignments(ref, cand, m.ref_best, m.ref_arg, rw)
        has_ctx = bool((pair.context or "").strip())
        split = any(getattr(t.encoded, "parts", 1) > 1 for t in [cand, *(m[0] for m in matches)])
        p, r, f1, f3 = _clean(scores)
        return BertScore(
            p, r, f1, f3, self.encoder.model_id, self.encoder.layer, self.encoder.device,
            self.uses_idf, self.baseline is not None, has_ctx, self.signature(has_ctx, split),
            cand_tokens, ref_tokens, best_index, tuple(per_ref))


def _as_text(value: Any) -> str:
    """Text for scoring: bytes are decoded as UTF-8 with replacement, None is empty."""
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)
