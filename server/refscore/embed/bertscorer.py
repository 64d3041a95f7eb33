"""CodeBERTScore with a loaded encoder: prepared texts, batching, typed results with alignments.

The math (which tokens count, greedy matching, weights, F-scores) is in
``refscore.metrics.codebertscore``; the result type in ``refscore.metrics.codebertscore_result``.
Scorers are shared per process through ``refscore.embed.models.scorer_for``.

This is RefScore's one CodeBERTScore path: the pipeline's model stage (``scoring.bert``), the
drop-in ``refscore.compat.score`` (a ``BatchRule`` that reproduces code-bert-score's batch
effects) and the evaluation's layer sweep (``embed.layer_stack``: one forward pass, a scorer per
layer) all score through ``BertScorer.score_batch``; ``tests/embed/test_one_codebertscore_path.py``
fails if another module embeds or matches texts itself.

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

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence, Union

from ..metrics.codebertscore import IdfTable, token_weights
from ..metrics.codebertscore_batch import best_over_references
from ..metrics.codebertscore_result import BertScore, TokenAlignment
from ..metrics.signature import build_signature, yes_no
from ..settings_schema import NO_ENCODER_CHOICE, EncoderChoice
from .files import load_baseline, load_idf
from .prepared import (  # noqa: F401 - re-exported: tests import them from here
    LiveMemo,
    PreparedText,
    idf_from_references,
    match_device,
    match_pair,
    match_prepared,
    prepare_texts,
    unweighted_ids,
)

if TYPE_CHECKING:  # pragma: no cover
    import torch

    from .encoder import Encoder

SIGNATURE_PREFIX = "cbs"
#: Default largest text (characters) a scorer accepts; beyond it ``InputTooLargeError``.
DEFAULT_MAX_CHARS = 200_000


class InputTooLargeError(ValueError):
    """A text is longer than the scorer's ``max_chars`` (long texts are never truncated)."""


def too_large(text: str, context: str | None, max_chars: int = DEFAULT_MAX_CHARS) -> str | None:
    """Why ``text`` (with ``context``) is over the CodeBERTScore limit, None when it is not: known
    from its length alone, before any model is asked (the editor says it at once)."""
    size = len(text) + len(context or "")
    if size <= max_chars:
        return None
    advice = (f"the context is {len(context or '')} of them: give a shorter context, such as the "
              "task's description" if len(context or "") > len(text) else
              "score a smaller part, such as one function or class")
    return (f"text of {size} characters is over the CodeBERTScore limit of {max_chars} characters "
            f"(texts are never truncated; {advice})")


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


def _clean(values: "torch.Tensor") -> "torch.Tensor":
    """NaN (an undefined score) as 0, and float32 rounding past a cosine's bounds cut back
    (a copy can sum to 1.0000001)."""
    return values.nan_to_num(nan=0.0).clamp(-1.0, 1.0)


# -- the scorer -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScorePair:
    """A candidate, its references (one string or several), optional language and context."""

    candidate: str
    references: Union[str, Sequence[str]]
    language: str | None = None
    context: str | None = None
    live: bool = False  # an editor's unsaved buffer: definitions may be encoded one by one
    alignments: bool = True  # build per-token alignments (--explain, the editor, HTML detail)


PairLike = Union[ScorePair, tuple]
IdfSetting = Union[None, str, Path, IdfTable, Mapping[int, float]]
Prepared = Mapping[tuple[str, Union[str, None]], PreparedText]


class BatchRule(Protocol):
    """Batch effects another scorer has and RefScore does not (``BertScorer(rule=...)``; None is
    RefScore's rule). ``refscore.compat.package_rule`` reproduces code-bert-score 0.4.1's.
    ``raw``: the numbers as matched (NaN kept, F1/F3 of an empty side kept, nothing clamped)."""

    raw: bool

    def plan_lengths(self, encoder: "Encoder", pairs: Sequence[ScorePair]) -> Mapping[str, int]:
        """Window-plan length per model text (``Encoder.embed``'s ``plan_lengths``)."""

    def rows(self, prepared: Prepared, encoder: "Encoder") -> Prepared:
        """The prepared texts with the matching rows this rule keeps."""

    def floors(self, flat: Sequence[tuple[PreparedText, PreparedText]]) -> Sequence[tuple[bool, bool]] | None:
        """Per (candidate, reference) pair: whether a padding similarity of 0 takes part in the
        maximum (precision side, recall side), as ``greedy_match``'s ``floor``."""


class BertScorer:
    """Holds a loaded encoder and scores (candidate, references, language, context) pairs.

    ``encoder``: a loaded one, else ``choice``'s for ``language`` (``encoder.load_encoder``).
    ``idf``: None (no IDF), ``"references"`` (IDF from the references of each ``score_batch``
    call, like code-bert-score), an ``IdfTable``, a ``{token_id: weight}`` mapping, or a path to
    an IDF JSON file (``refscore.embed.files.load_idf``). ``baseline``: None, a (P, R, F1, F3) tuple, or a
    code-bert-score baseline CSV (the row of this scorer's layer is used). ``rule``: another
    scorer's batch effects (``BatchRule``), None for RefScore's.
    """

    def __init__(self, encoder: "Encoder | None" = None, *, choice: EncoderChoice = NO_ENCODER_CHOICE,
                 language: str | None = None, half: bool | None = None, idf: IdfSetting = None,
                 baseline: Union[None, str, Path, Sequence[float]] = None,
                 batch_size: int = 64, max_chars: int = DEFAULT_MAX_CHARS,
                 rule: BatchRule | None = None) -> None:
        if encoder is None:
            from .encoder import load_encoder

            encoder = load_encoder(choice, language=language, half=half)
        self.encoder = encoder
        self.batch_size = batch_size
        self.max_chars = max_chars
        self.rule = rule
        self._zero_ids = unweighted_ids(encoder)
        self._live = LiveMemo()  # an edited document's reference, prepared once
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

    def score_batch(self, pairs: Sequence[PairLike], alignments: bool | None = None) -> list[BertScore]:
        """Score many pairs; shared texts (a reference used by many candidates) embed once, and
        every (candidate, reference) pair is matched in batched tensor operations.

        Token alignments are built for the pairs that ask for them (``ScorePair.alignments``,
        or ``alignments`` for all); the others get none (same scores).
        Raises InputTooLargeError for a text over ``max_chars``."""
        items = [p if isinstance(p, ScorePair) else ScorePair(*p) for p in pairs]
        refs_of = [[r] if isinstance(r, str) else list(r) for r in (p.references for p in items)]
        texts: list[tuple[str, str | None]] = []
        for p, refs in zip(items, refs_of):
            texts.append((_as_text(p.candidate), p.context))
            texts.extend((_as_text(r), p.context) for r in refs)
        for text, ctx in texts:
            problem = too_large(text, ctx, self.max_chars)
            if problem is not None:
                raise InputTooLargeError(problem)
        live: dict[tuple[str, str | None], str | None] = {}
        for p, refs in zip(items, refs_of):
            if p.live:
                live.update(((_as_text(t), p.context or None), p.language) for t in (p.candidate, *refs))
        exact_texts = [t for p, refs in zip(items, refs_of) if not p.live
                       for t in [(_as_text(p.candidate), p.context), *((_as_text(r), p.context) for r in refs)]]
        plans = self.rule.plan_lengths(self.encoder, items) if self.rule is not None else None
        exact = prepare_texts(self.encoder, exact_texts, self.batch_size, plans)  # never the live encoding
        if self.rule is not None:
            exact = self.rule.rows(exact, self.encoder)
        split = self._live.prepare(live, lambda missing: prepare_texts(
            self.encoder, list(missing), self.batch_size, parts=missing)) if live else {}
        idf = self.idf_table
        if self._idf_mode is not None and idf is None:
            idf = idf_from_references(self.encoder, [_as_text(r) for refs in refs_of for r in refs])
        return self._results(items, refs_of, exact, split, idf, alignments)

    def _results(self, items: list[ScorePair], refs_of: list[list[str]],
                 exact: Mapping[tuple[str, str | None], PreparedText],
                 split: Mapping[tuple[str, str | None], PreparedText], idf: IdfTable | None,
                 alignments: bool | None) -> list[BertScore]:
        import torch

        flat: list[tuple[PreparedText, PreparedText]] = []
        keep: list[int] = []
        cands = []
        for p, refs in zip(items, refs_of):
            prepared, ctx = (split if p.live else exact), p.context or None
            cand = prepared[(_as_text(p.candidate), ctx)]
            cands.append(cand)
            if p.alignments if alignments is None else alignments:
                keep.extend(range(len(flat), len(flat) + len(refs)))
            flat.extend((cand, prepared[(_as_text(r), ctx)]) for r in refs)
        floors = self.rule.floors(flat) if self.rule is not None else None
        match = match_prepared(flat, idf, self._zero_ids, floors, keep=keep, device=match_device(self.encoder))
        raw = self.rule is not None and self.rule.raw
        scores = match.scores
        if flat and not raw:
            empty = torch.tensor([c.empty or r.empty for c, r in flat], dtype=torch.bool)
            scores[:, 2:] = torch.where(empty[:, None], 0.0, scores[:, 2:])
        per_ref = scores if raw else _clean(scores)
        groups = [len(refs) for refs in refs_of]
        best, best_index = best_over_references(per_ref, groups)
        if self.baseline is not None:
            base = torch.tensor(self.baseline, dtype=torch.float64)
            best = (best - base) / (1 - base)
        final, rows, order = (best if raw else _clean(best)).tolist(), per_ref.tolist(), best_index.tolist()
        out, at = [], 0
        signatures: dict[tuple[bool, bool], str] = {}
        wanted = set(keep)
        for p, refs, cand, (pr, rc, f1, f3), index in zip(items, refs_of, cands, final, order):
            pairs = flat[at:at + len(refs)]
            cand_tokens: tuple[TokenAlignment, ...] = ()
            ref_tokens: tuple[TokenAlignment, ...] = ()
            if pairs and at + index in wanted:
                ref = pairs[index][1]
                m = match.tokens[at + index]
                cw = token_weights(cand.row_ids(), idf, self._zero_ids)
                rw = token_weights(ref.row_ids(), idf, self._zero_ids)
                cand_tokens = _alignments(cand, ref, m.cand_best, m.cand_arg, cw)
                ref_tokens = _alignments(ref, cand, m.ref_best, m.ref_arg, rw)
            has_ctx = bool((p.context or "").strip())
            split_defs = any(getattr(t.encoded, "parts", 1) > 1 for t in [cand, *(r for _, r in pairs)])
            sig = signatures.get((has_ctx, split_defs))
            if sig is None:
                sig = signatures[(has_ctx, split_defs)] = self.signature(has_ctx, split_defs)
            out.append(BertScore(
                pr, rc, f1, f3, self.encoder.model_id, self.encoder.layer, self.encoder.device,
                self.uses_idf, self.baseline is not None, has_ctx, sig, cand_tokens, ref_tokens,
                index if pairs else 0, tuple(tuple(r) for r in rows[at:at + len(refs)])))
            at += len(refs)
        return out


def _as_text(value: Any) -> str:
    """Text for scoring: bytes are decoded as UTF-8 with replacement, None is empty."""
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)
