"""code-bert-score's rule for where the context (``sources``) ends in a text, for the drop-in.

The package removes the context's token vectors by decoding ever longer token prefixes of
``<bos> context \\n code <eos>`` and keeping the prefixes whose decoded text starts the context
(``src.startswith(tokenizer.decode(tokens[:j]))``), up to the first that does not. Where a
byte-level BPE splits a character of the context across tokens (``≤`` in a HumanEval prompt,
with a vocabulary that has no token for it), that prefix decodes to U+FFFD, the loop stops there,
and the rest of the context is scored as if it were code. RefScore's own rule (token offsets,
``metrics.codebertscore.matching_rows``) keeps only the code; the drop-in reproduces the package.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from ..metrics.codebertscore import CONTEXT_SEPARATOR, is_scored_token, model_input, normalize_rows


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
