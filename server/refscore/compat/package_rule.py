"""code-bert-score 0.4.1's batch effects as a ``BatchRule`` of RefScore's one CodeBERTScore path.

The drop-in ``refscore.compat.score`` scores through ``embed.bertscorer.BertScorer`` like every
other front end; this rule is all it adds. The package embeds and matches in padded batches, and
the padding leaks into its numbers in three ways that RefScore's own rule leaves out:

* windows of a long text are planned on the longest text of its embedding batch;
* a padding similarity of 0 takes part in the maximum of a text shorter than its batch's longest;
* the context (``sources``) ends where the package's decoding loop stops (``with_package_sources``).

It also keeps the package's raw numbers (NaN for a zero IDF weight sum, nothing clamped) and
refuses a plain IDF dict without a weight for a token of the texts, as the package's KeyError.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..errors import MissingIdfWeightError
from ..metrics.codebertscore import CONTEXT_SEPARATOR, IdfTable, is_scored_token, model_input, normalize_rows

if TYPE_CHECKING:  # pragma: no cover
    from ..embed.bertscorer import Prepared, ScorePair
    from ..embed.encoder import Encoder
    from ..embed.prepared import PreparedText


@dataclass(frozen=True)
class PackageRule:
    """code-bert-score's batches of ``batch_size``; ``sources``: the call gave contexts (they
    change the package's batch order); ``idf_dict``: the call's plain ``{token_id: weight}`` IDF
    dict, to check."""

    batch_size: int = 64
    sources: bool = False
    idf_dict: Mapping[Any, float] | None = field(default=None, compare=False)
    raw: bool = True

    def plan_lengths(self, encoder: "Encoder", pairs: Sequence["ScorePair"]) -> dict[str, int]:
        """Window-plan lengths that reproduce the package's long-input handling: it plans the
        windows of every text in a padded embedding batch on the batch's longest text, so a text
        longer than 3/4 of the window gets different vectors when a batch-mate exceeds the window.
        Batches: references then candidates in order with ``sources``; otherwise the distinct
        texts sorted by word count (longest first). Empty when no text can exceed the window."""
        groups = [[p.references] if isinstance(p.references, str) else list(p.references) for p in pairs]
        refs = [model_input(r, p.context).text for p, group in zip(pairs, groups) for r in group]
        hyps = [model_input(p.candidate, p.context).text for p, group in zip(pairs, groups) for _ in group]
        every = refs + hyps
        if not every:
            return {}
        limit = encoder.window
        size_of = {t: len(t.encode("utf-8", "surrogatepass")) + 2 for t in dict.fromkeys(every)}  # >= tokens
        if max(size_of.values()) <= limit:
            return {}
        order = every if self.sources else sorted(size_of, key=lambda t: len(t.split(" ")), reverse=True)
        size = max(1, self.batch_size)
        chunks = [order[start:start + size] for start in range(0, len(order), size)]
        chunks = [c for c in chunks if max(size_of[t] for t in c) > limit]  # others cannot pass the window
        distinct = list(dict.fromkeys(t for c in chunks for t in c))
        lengths = {enc.text: len(enc.ids) for enc in encoder.tokenize(distinct, keep=True)}  # embed reuses it
        plans: dict[str, int] = {}
        for chunk in chunks:
            longest = max(lengths[t] for t in chunk)
            for t in chunk:
                plans[t] = longest
        return plans

    def rows(self, prepared: "Prepared", encoder: "Encoder") -> "Prepared":
        """The package's rows of a text with context (``with_package_sources``); a plain IDF dict is
        checked against the rows' tokens."""
        out = with_package_sources(prepared, encoder) if self.sources else prepared
        if self.idf_dict is not None:
            _refuse_missing_weights(self.idf_dict, out.values())
        return out

    def floors(self, flat: Sequence[tuple["PreparedText", "PreparedText"]]) -> list[tuple[bool, bool]]:
        """Where the package's padded batches (``batch_size`` pairs in order) make a padding
        similarity of 0 take part in the maximum: (precision side, recall side) per pair."""
        out: list[tuple[bool, bool]] = []
        size = max(1, self.batch_size)
        for start in range(0, len(flat), size):
            chunk = flat[start:start + size]
            longest_c = max(len(c.rows) for c, _ in chunk)
            longest_r = max(len(r.rows) for _, r in chunk)
            out.extend((len(r.rows) < longest_r, len(c.rows) < longest_c) for c, r in chunk)
        return out


def _refuse_missing_weights(weights: Mapping[Any, float], texts: Any) -> None:
    """A plain dict weighs every token of the texts (the package looks each one up: KeyError);
    a ``defaultdict`` weighs the others with its default."""
    if getattr(weights, "default_factory", None) is not None:
        return
    weighed = IdfTable.from_mapping(weights).weights.keys()
    missing = sorted({i for text in texts for i in text.row_ids()} - weighed)
    if missing:
        shown = ", ".join(map(str, missing[:5])) + (", ..." if len(missing) > 5 else "")
        raise MissingIdfWeightError(f"idf: the dict has no weight for token id {shown} ({len(missing)} of the "
                                    "texts' tokens); weigh every token, or give a defaultdict whose default "
                                    "weighs the others (code_bert_score raises KeyError too)")


# -- where the context (``sources``) ends in a text: code-bert-score's rule, for the drop-in -----------
# The package removes the context's token vectors by decoding ever longer token prefixes of
# ``<bos> context \n code <eos>`` and keeping the prefixes whose decoded text starts the context
# (``src.startswith(tokenizer.decode(tokens[:j]))``), up to the first that does not. Where a
# byte-level BPE splits a character of the context across tokens (``≤`` in a HumanEval prompt,
# with a vocabulary that has no token for it), that prefix decodes to U+FFFD, the loop stops there,
# and the rest of the context is scored as if it were code. RefScore's own rule (token offsets,
# ``metrics.codebertscore.matching_rows``) keeps only the code; the drop-in reproduces the package.


#: What ``clean_up_tokenization_spaces`` rewrites when it decodes (transformers' ``clean_up_tokenization``).
_CLEANED = (" .", " ?", " !", " ,", " ' ", " n't", " 'm", " 's", " 've", " 're")


def package_source_length(tokenizer: Any, tokens: list[str], source: str, first_code: int | None = None) -> int:
    """The package's ``source_length``: how many leading tokens it takes for the context.
    ``first_code``: RefScore's own answer, checked in two decodes where every shorter prefix is
    known to decode to a prefix of ``source`` (``_plain``); else the package's loop (one decode per
    token: quadratic in the context's length)."""
    bos = tokenizer.bos_token

    def starts(j: int) -> bool:
        return source.startswith(tokenizer.decode(tokenizer.convert_tokens_to_ids(tokens[:j])).removeprefix(bos))

    if first_code is not None and 0 < first_code < len(tokens) and _plain(tokenizer, source):
        if starts(first_code) and not starts(first_code + 1):
            return first_code
    length = 0
    for j in range(len(tokens)):
        if not starts(j):
            break
        length = j
    return length


def _plain(tokenizer: Any, source: str) -> bool:
    """A byte-level BPE (each token's bytes decode as they are), an ASCII context (no character
    split across tokens) and nothing the decoder's clean-up would rewrite: then each prefix of the
    context's tokens decodes to a prefix of the context."""
    try:
        byte_level = type(tokenizer.backend_tokenizer.decoder).__name__ == "ByteLevel"
    except AttributeError:
        return False
    cleaned = getattr(tokenizer, "clean_up_tokenization_spaces", False) and any(c in source for c in _CLEANED)
    return byte_level and source.isascii() and not cleaned


def with_package_sources(prepared: Mapping[tuple[str, str | None], Any], encoder: Any) -> dict:
    """``prepared`` texts (``embed.prepared.PreparedText`` by (text, context)) with the matching
    rows the package would keep: the first token, then everything from its ``source_length`` on,
    less punctuation-only tokens. Texts without context, and tokenizers without a BOS token (the
    package fails on those), are kept as they are."""
    tokenizer = encoder.tokenizer
    if getattr(tokenizer, "bos_token", None) is None:
        return dict(prepared)
    out = {}
    for (text, ctx), item in prepared.items():
        if not ctx:
            out[(text, ctx)] = item
            continue
        tokens = item.encoded.tokens
        source = model_input("", ctx).text + CONTEXT_SEPARATOR
        first_code = next((i for i in range(1, len(tokens)) if item.encoded.special[i]
                           or item.encoded.offsets[i][1] > item.source.code_start), len(tokens))
        start = package_source_length(tokenizer, tokens, source, first_code)
        rows = [i for i in [0, *range(max(start, 1), len(tokens))] if is_scored_token(tokens[i])]
        if rows == item.rows:
            out[(text, ctx)] = item
            continue
        emb = normalize_rows(item.encoded.embeddings[rows])
        out[(text, ctx)] = dataclasses.replace(item, rows=rows, emb=emb,
                                               empty=all(item.encoded.special[i] for i in rows))
    return out
