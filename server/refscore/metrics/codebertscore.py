"""CodeBERTScore math: pure functions over token embeddings (no model, no I/O; IDF and baseline
files are read by ``refscore.embed.files``).

What is computed, following code-bert-score 0.4.1 (Zhou et al., 2023):

* **Which tokens take part.** The text is stripped; with a natural-language context the model
  sees ``"<context> \\n<code>"`` and only the first special token, the code tokens and the final
  special token take part (the context is found through the tokenizer's character offsets, so it
  works for WordPiece and byte-level BPE alike). Tokens made only of punctuation, or only of
  whitespace (after removing the byte-level markers ``Ġ``, ``Ċ``, ``ĉ``), are dropped; the
  operators ``+ - * / & | ~`` are kept. Special tokens stay (with weight 0 unless an IDF table
  says otherwise), as in the package.
* **Greedy matching.** Cosine similarity of every candidate token to every reference token; each
  candidate token takes its best reference token (precision side) and vice versa (recall side).
* **Weights.** Without IDF each token weighs 1 and the CLS/SEP tokens 0. With IDF, a token id
  weighs ``log((N+1)/(df+1))`` over the N reference documents, unseen ids ``log(N+1)``.
* **Scores.** P and R are weighted means of the best similarities; F1 = 2PR/(P+R);
  F3 = 10PR/(9P+R). A candidate or reference with no token left gets P = R = 0, and an undefined
  F becomes 0. Rescaling: ``(x - b) / (1 - b)`` per component. Several references: each of
  P, R, F1, F3 is the maximum over the references (the package's rule).
"""

from __future__ import annotations

import math
import string
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..errors import LONE_SURROGATE

if TYPE_CHECKING:  # pragma: no cover
    import torch

#: Punctuation characters that make a token droppable (the operators +-*/&|~ are kept).
DROPPED_PUNCTUATION = frozenset(string.punctuation) - frozenset("+-*/&|~")
#: Byte-level BPE markers for space, newline and tab (GPT-2/RoBERTa vocabularies).
BYTE_LEVEL_WHITESPACE = "\u0120\u010a\u0109"
#: Separator placed between a natural-language context and the code.
CONTEXT_SEPARATOR = " \n"


@lru_cache(maxsize=1 << 16)
def is_scored_token(token: str) -> bool:
    """False for tokens that are only punctuation (not ``+-*/&|~``) or only whitespace (kept per
    token string: a vocabulary's tokens repeat across texts)."""
    core = token.strip(BYTE_LEVEL_WHITESPACE)
    return not all(ch in DROPPED_PUNCTUATION for ch in core)


# -- what the model sees --------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelInput:
    """The exact text given to the model and how to map its offsets back to the original."""

    text: str
    code_start: int  # first character of the code inside ``text``
    shift: int  # original offset = model offset - code_start + shift

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a span of ``text`` (inside the code) to the original text."""
        delta = self.shift - self.code_start
        return start + delta, end + delta




def model_input(code: str, context: str | None = None) -> ModelInput:
    """Strip the code and prepend ``context`` as code-bert-score does (``ctx + ' \\n' + code``).

    Lone surrogates (undecodable bytes read with ``surrogateescape``) become U+FFFD, one code
    point for one, so offsets still index the original text.
    """
    code = LONE_SURROGATE.sub("\ufffd", code)
    context = LONE_SURROGATE.sub("\ufffd", context) if context else context
    stripped = code.strip()
    shift = len(code) - len(code.lstrip()) if stripped else 0
    ctx = (context or "").strip()
    if not ctx:
        return ModelInput(stripped, 0, shift)
    if not stripped:
        return ModelInput(ctx, len(ctx) + len(CONTEXT_SEPARATOR), shift)
    return ModelInput(ctx + CONTEXT_SEPARATOR + stripped, len(ctx) + len(CONTEXT_SEPARATOR), shift)


def matching_rows(tokens: Sequence[str], offsets: Sequence[tuple[int, int]],
                  special: Sequence[bool], code_start: int) -> list[int]:
    """Indices of the tokens that take part in matching: the first token, the code tokens (not
    context) and trailing specials, minus punctuation-only and whitespace-only tokens."""
    if not tokens:
        return []
    first_code = len(tokens)
    for i in range(1, len(tokens)):
        if special[i] or offsets[i][1] > code_start:
            first_code = i
            break
    rows = [0] + list(range(first_code, len(tokens)))
    return [i for i in rows if is_scored_token(tokens[i])]


# -- weights --------------------------------------------------------------------------------------


@dataclass
class IdfTable:
    """Inverse document frequency per token id; ids never seen weigh ``default``."""

    weights: dict[int, float] = field(default_factory=dict)
    default: float = 0.0
    num_docs: int = 0

    def __getitem__(self, token_id: int) -> float:
        return self.weights.get(token_id, self.default)

    @classmethod
    def from_documents(cls, documents: Iterable[Sequence[int]]) -> "IdfTable":
        """IDF over token-id documents (each counted once per document)."""
        counts: Counter[int] = Counter()
        n = 0
        for ids in documents:
            counts.update(set(ids))
            n += 1
        weights = {tid: math.log((n + 1) / (c + 1)) for tid, c in counts.items()}
        return cls(weights, math.log(n + 1), n)

    @classmethod
    def from_mapping(cls, mapping: Mapping[Any, float], default: float | None = None) -> "IdfTable":
        """From ``{token_id: weight}``; a ``defaultdict`` keeps its default for unseen ids."""
        if default is None:
            factory = getattr(mapping, "default_factory", None)
            default = float(factory()) if factory is not None else 0.0
        return cls({int(k): float(v) for k, v in mapping.items()}, float(default))


def token_weights(ids: Sequence[int], idf: IdfTable | None, unweighted_ids: Iterable[int]) -> list[float]:
    """Per-token weights: the IDF table's, or 1 with the ids in ``unweighted_ids`` (CLS, SEP) 0."""
    if idf is not None:
        return [idf[i] for i in ids]
    zero = set(unweighted_ids)
    return [0.0 if i in zero else 1.0 for i in ids]


# -- matching and scores --------------------------------------------------------------------------


def normalize_rows(emb: "torch.Tensor") -> "torch.Tensor":
    """Unit-length rows (cosine similarity becomes a dot product)."""
    return emb / emb.norm(dim=-1, keepdim=True)


@dataclass
class PairMatch:
    """Greedy matching of one candidate against one reference (all tensors 1-D, on CPU)."""

    precision: float
    recall: float
    f1: float
    f3: float
    cand_best: "torch.Tensor"  # best similarity of each candidate row
    cand_arg: "torch.Tensor"  # index of that reference row
    ref_best: "torch.Tensor"
    ref_arg: "torch.Tensor"

    @property
    def scores(self) -> tuple[float, float, float, float]:
        """(P, R, F1, F3)."""
        return self.precision, self.recall, self.f1, self.f3


def f_scores(p: float, r: float) -> tuple[float, float]:
    """F1 = 2PR/(P+R) and F3 = 10PR/(9P+R); an undefined value (0/0, NaN) becomes 0."""
    f1 = 2 * p * r / (p + r) if (p + r) != 0 else math.nan
    f3 = 10 * p * r / (9 * p + r) if (9 * p + r) != 0 else math.nan
    return (0.0 if math.isnan(f1) else f1), (0.0 if math.isnan(f3) else f3)


def greedy_match(cand: "torch.Tensor", cand_w: "torch.Tensor", cand_empty: bool,
                 ref: "torch.Tensor", ref_w: "torch.Tensor", ref_empty: bool,
                 floor: tuple[bool, bool] = (False, False)) -> PairMatch:
    """Match unit-normalized rows ``cand`` (n, d) against ``ref`` (m, d) with weights.

    P and R are ``sum(best * w) / sum(w)``; a zero weight sum gives NaN like the package (callers
    that want numbers replace it); an empty side gives P = R = 0. ``floor`` = (precision side,
    recall side) raises negative best similarities to 0: code-bert-score does that by accident
    when the other text is shorter than the longest in its batch (padding similarities are 0);
    only the drop-in API asks for it.
    """
    sim = cand @ ref.T
    cand_best, cand_arg = sim.max(dim=1)
    ref_best, ref_arg = sim.max(dim=0)
    if floor[0]:
        cand_best = cand_best.clamp(min=0.0)
    if floor[1]:
        ref_best = ref_best.clamp(min=0.0)
    p = _weighted_mean(cand_best, cand_w)
    r = _weighted_mean(ref_best, ref_w)
    f1, f3 = f_scores(p, r)
    if cand_empty or ref_empty:
        p = r = 0.0
    return PairMatch(p, r, f1, f3, cand_best, cand_arg, ref_best, ref_arg)


def _weighted_mean(values: "torch.Tensor", weights: "torch.Tensor") -> float:
    total = float(weights.sum())
    if total == 0.0:
        return math.nan
    return float((values * (weights / total)).sum())


def best_over_references(rows: Sequence[Sequence[float]]) -> tuple[float, ...]:
    """Component-wise maximum over references; NaN if any reference has NaN there (as
    ``torch.max`` does in the package)."""
    if not rows:
        return (0.0, 0.0, 0.0, 0.0)
    out = []
    for col in zip(*rows):
        finite = [v for v in col if not math.isnan(v)]
        out.append(max(finite) if len(finite) == len(col) else math.nan)
    return tuple(out)


# -- baseline rescaling ---------------------------------------------------------------------------


def rescale(values: Sequence[float], baseline: Sequence[float]) -> tuple[float, ...]:
    """``(x - b) / (1 - b)`` per component."""
    return tuple((v - b) / (1 - b) for v, b in zip(values, baseline))
