"""Evaluation columns of the structural and corpus signals: TSED, parse errors, CrystalBLEU, and
the identifier-invariant match (``metrics.canonical``).

Each goes through RefScore's metric modules (``refscore.metrics.tsed``, ``.crystalbleu``).
CrystalBLEU's ignored n-grams come from every distinct text of the dataset (candidates and
references, no outcome or grade): the corpus a grading run has.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..metrics import crystalbleu, tsed
from .data import Item, paper_normalise

#: TSED unit columns: the score, whether it was exact, and the parse-error counts of both sides.
TSED_COLUMNS = ("tsed", "tsed_exact", "cand_errors", "ref_errors")


def tsed_unit() -> str:
    """Cache unit name of the TSED columns."""
    return f"tsed:named:unit:max{tsed.DEFAULT_MAX_NODES}"


def crystal_unit(digest: str) -> str:
    """Cache unit name of CrystalBLEU for one corpus (its ignored n-grams' digest)."""
    return f"crystalbleu:k{crystalbleu.DEFAULT_K}:{digest}"


def tsed_scores(items: Sequence[Item], normalise: bool = False) -> dict[str, list[float]]:
    """TSED against the best reference, and candidate/reference parse-error counts."""
    out: dict[str, list[float]] = {name: [] for name in TSED_COLUMNS}
    for item in items:
        cand = paper_normalise(item.candidate) if normalise else item.candidate
        refs = [paper_normalise(r) if normalise else r for r in item.references]
        try:
            result = tsed.score_tsed(cand, refs, item.language)
        except (RecursionError, ValueError):  # a pathological text: no structure signal
            for name in TSED_COLUMNS:
                out[name].append(0.0)
            continue
        out["tsed"].append(result.score)
        out["tsed_exact"].append(1.0 if result.exact else 0.0)
        out["cand_errors"].append(float(result.candidate_errors))
        out["ref_errors"].append(float(result.reference_errors))
    return out


def errors_unit() -> str:
    """Cache unit name of the parse-error counts alone (the ``tsed`` unit's two count columns)."""
    return f"parse-errors:as-tsed-max{tsed.DEFAULT_MAX_NODES}:v1"


#: Columns of the ``errors`` group: the ``tsed`` group's parse-error counts, same names.
ERROR_COLUMNS = ("cand_errors", "ref_errors")


def error_scores(items: Sequence[Item], normalise: bool = False) -> dict[str, list[float]]:
    """The parse-error counts ``tsed_scores`` gives, without its tree edit distance where that
    is not needed: with one reference only the two texts are parsed; with several, the
    reference is the one TSED picks, so ``score_tsed`` runs (short CoNaLa snippets: cheap)."""
    out: dict[str, list[float]] = {name: [] for name in ERROR_COLUMNS}
    for item in items:
        cand = paper_normalise(item.candidate) if normalise else item.candidate
        refs = [paper_normalise(r) if normalise else r for r in item.references]
        try:
            if len(refs) == 1:
                counts = (tsed.parse_errors(cand, item.language), tsed.parse_errors(refs[0], item.language))
            else:
                result = tsed.score_tsed(cand, refs, item.language)
                counts = (result.candidate_errors, result.reference_errors)
        except (RecursionError, ValueError):  # as tsed_scores: no structure signal
            counts = (0, 0)
        out["cand_errors"].append(float(counts[0]))
        out["ref_errors"].append(float(counts[1]))
    return out


def canonical_unit() -> str:
    """Cache unit name of the identifier-invariant columns (``metrics.canonical``)."""
    return "canonical:locals-first-use:bleu4-effective:v1"


CANONICAL_COLUMNS = ("canon_ngram_match", "canon_exact")


def canonical_scores(items: Sequence[Item], normalise: bool = False) -> dict[str, list[float]]:
    """Identifier-invariant n-gram and exact match of every item against its best reference."""
    from ..metrics.canonical import score_canonical

    out: dict[str, list[float]] = {name: [] for name in CANONICAL_COLUMNS}
    for item in items:
        cand = paper_normalise(item.candidate) if normalise else item.candidate
        refs = [paper_normalise(r) if normalise else r for r in item.references]
        try:
            result = score_canonical(cand, refs, item.language)
        except (RecursionError, ValueError):
            result = None
        out["canon_ngram_match"].append(result.ngram_match if result else 0.0)
        out["canon_exact"].append(result.exact if result else 0.0)
    return out


def crystal_params(items: Sequence[Item], normalise: bool = False) -> dict[str, Any]:
    """The dataset's ignored n-grams (and their digest, which names the cache unit)."""
    texts: list[tuple[str, str]] = []
    for item in items:
        texts.append((paper_normalise(item.candidate) if normalise else item.candidate,
                      item.language))
        texts.extend((paper_normalise(r) if normalise else r, item.language)
                     for r in item.references)
    ignored = crystalbleu.corpus_ignored(texts)
    return {"ignored": ignored, "ignored_digest": ignored.digest}


def crystal_scores(items: Sequence[Item], ignored: crystalbleu.IgnoredNgrams,
                   normalise: bool = False) -> dict[str, list[float]]:
    """CrystalBLEU of every item against its references."""
    values = []
    for item in items:
        cand = paper_normalise(item.candidate) if normalise else item.candidate
        refs = [paper_normalise(r) if normalise else r for r in item.references]
        values.append(crystalbleu.score_crystalbleu(cand, refs, item.language, ignored).score)
    return {"crystalbleu": values}
