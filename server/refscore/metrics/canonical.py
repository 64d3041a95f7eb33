"""Identifier-invariant similarity: n-gram match after renaming local names canonically.

A copy of the reference with its variables renamed is the same program, but n-gram metrics
(BLEU, chrF) and CodeBERTScore see new words. Here each text's code tokens (``analysis.leaves``:
comments and docstrings out) have their local names replaced by ``v0, v1, ...`` in order of first
appearance, which is the order the data flow first meets them. A local name is a plain
identifier that is neither called (followed by ``(``) nor reached through a member access
(after ``.``, ``->``, ``::``, ``?.``): parameters and variables are renamed, functions, methods,
fields, types and keywords stay. Two inputs of the combined RefScore number come from it:

* ``canon_ngram_match``: BLEU-4 (effective order, as the native n-gram match) of the canonical
  token sequences, against the best reference;
* ``canon_exact``: 1.0 when the canonical tokens equal one reference's (a copy or a consistently
  renamed copy), else 0.0.

CodeBLEU's syntax match (subtrees keyed by shape) and dataflow match (variables renamed by the
package's rule) are identifier-invariant already.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..analysis.document import analyse_tokens_with
from ..analysis.leaves import code_tokens
from .ngram import bleu_stats, score_from_stats

#: Tokens after which a name is a member, not a local.
_MEMBER = frozenset({".", "->", "::", "?."})
#: Tree-sitter types of plain identifiers (types, fields and properties have their own).
_PLAIN = frozenset({"identifier", "name", "simple_identifier", "variable_name"})


@dataclass(frozen=True)
class CanonicalScore:
    """Identifier-invariant match of one candidate against its best reference."""

    ngram_match: float
    exact: float


def canonical_tokens(text: str, language: str) -> list[str]:
    """``text``'s code tokens with its local names renamed ``v0, v1, ...`` in order of first use."""
    tokens = code_tokens(text, language)
    names: dict[str, str] = {}
    out = []
    for index, token in enumerate(tokens):
        piece = token.text
        if token.kind == "name" and token.type in _PLAIN:
            after = tokens[index + 1].text if index + 1 < len(tokens) else ""
            before = tokens[index - 1].text if index else ""
            if after != "(" and before not in _MEMBER:
                piece = names.setdefault(piece, f"v{len(names)}")
        out.append(piece)
    return out


def score_canonical(candidate: str, references: Sequence[str] | str, language: str) -> CanonicalScore:
    """``canon_ngram_match`` and ``canon_exact`` of ``candidate`` (best reference); 0 for no
    reference or an empty candidate."""
    refs = [references] if isinstance(references, str) else list(references)
    cand = canonical_tokens(candidate, language)
    if not refs or not cand:
        return CanonicalScore(0.0, 0.0)
    cand_analysis = analyse_tokens_with("", lambda _: cand)
    best, exact = 0.0, 0.0
    for reference in refs:
        ref = canonical_tokens(reference, language)
        if ref == cand:
            exact = 1.0
        stats = bleu_stats([analyse_tokens_with("", lambda _: ref)], cand_analysis)
        best = max(best, score_from_stats(stats, effective_order=True))
    return CanonicalScore(float(best), exact)
