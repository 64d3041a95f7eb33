"""The combined RefScore number's input features, defined once.

Every input is on a 0..1 scale or a log count, computed for one candidate and its references:

* ``cbs_p``, ``cbs_r``, ``cbs_f1``, ``cbs_f3``: CodeBERTScore of the embedded MiniLM at the layer
  named in the fitted file (``bert``), without context, no IDF, no rescaling;
* ``cbs_pmin``, ``cbs_rmin``, ``cbs_pq25``, ``cbs_rq25``: the lowest and the lower-quartile token
  similarity of the candidate side (``p``) and of the reference side (``r``): ``token_stats``;
* ``chrf``, ``chrfpp``: sentence chrF and chrF++ / 100 on ``paper_normalise``-d texts;
* ``ngram_match``, ``weighted_ngram_match``, ``syntax_match``, ``dataflow_match``: the native
  CodeBLEU components; ``dataflow_match`` may be None (not applicable);
* ``tsed``; ``extra_errors``: parse errors the candidate has beyond the reference's
  (``extra_errors``);
* ``canon_ngram_match``, ``canon_exact``: identifier-invariant n-gram match and exact match after
  renaming local names canonically (``metrics.canonical``), against the best reference;
* ``len_ratio``, ``ref_len``: ``length_inputs``; ``abs_len_ratio``: ``abs(len_ratio)``;
* ``<input>_by_ref_len``: an input times ``ref_len - REF_LEN_CENTRE`` (``interaction_inputs``).
  Inside one problem ``ref_len`` is constant, so such a term lets an input's weight in the ranking
  grow or shrink with the reference's length: a one-line snippet and a function body are not
  judged by the same mix.

The eval's score table (``eval/features.py``) and the served report (``scoring/headline.py``)
both compute these through the functions here; ``tests/scoring/test_combined_inputs.py`` requires the
two paths to give the same values.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from ..metrics.chrf import paper_normalise

#: Suffix of an interaction input and the ``ref_len`` it is centred on (log of about 11 tokens,
#: between a one-line snippet and a function body; a fixed constant, not fitted).
INTERACTION_SUFFIX = "_by_ref_len"
REF_LEN_CENTRE = 2.5
#: Token statistics: input suffix -> (side of the alignment, statistic).
TOKEN_STATS = {"pmin": ("candidate", "min"), "rmin": ("reference", "min"),
               "pq25": ("candidate", "q25"), "rq25": ("reference", "q25")}
#: Candidate-level inputs the fit's ranking part may select from. ``canon_ngram_match`` is not
#: among them: on the full data (3 December) two of five folds chose it and lost CoNaLa tau
#: (held out 0.528 against 0.536 without it) for no HumanEval gain; it stays a reported signal.
RANKING_POOL = (
    "cbs_f3", "cbs_f1", "cbs_p", "cbs_r", "cbs_pq25", "cbs_rq25", "cbs_pmin", "cbs_rmin",
    "chrfpp", "ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match", "tsed",
    "len_ratio", "abs_len_ratio", "extra_errors",
    *(f"{name}{INTERACTION_SUFFIX}" for name in ("cbs_f3", "cbs_f1", "cbs_p", "cbs_r", "chrfpp")),
)
#: Inputs only the calibration (the logistic step after the ranking) reads: ``ref_len`` is constant
#: within a problem, so it moves whole problems; ``canon_exact`` (the same code as a reference up to
#: local names) lifts only copies and renamed copies of an acceptable answer, by as much as the
#: data says such candidates are correct. Neither reorders the other candidates of a problem.
#: ``canon_exact_by_ref_len`` lets that lift depend on the reference's length: a copied one-line
#: snippet (CoNaLa: graded 3.7 of 4) and a copied function body (HumanEval: 99 % pass) are not
#: equally sure to be right, and one weight alone under-rates the second.
CALIBRATION = ("ref_len", "canon_exact", "canon_exact_by_ref_len")


def interaction_base(name: str) -> str | None:
    """The input an interaction input multiplies (``cbs_p`` for ``cbs_p_by_ref_len``), else None."""
    return name[:-len(INTERACTION_SUFFIX)] if name.endswith(INTERACTION_SUFFIX) else None


def by_ref_len(value: Any, ref_len: Any) -> Any:
    """An interaction input's value: ``value`` x (``ref_len`` - ``REF_LEN_CENTRE``); numbers or
    numpy arrays (the eval's score-table columns)."""
    return value * (ref_len - REF_LEN_CENTRE)


def interaction_inputs(values: Mapping[str, float], names: Sequence[str]) -> dict[str, float]:
    """The interaction inputs among ``names``, from ``values`` (which hold each base and
    ``ref_len``)."""
    out = {}
    for name in names:
        base = interaction_base(name)
        if base is not None and base in values and "ref_len" in values:
            out[name] = float(by_ref_len(float(values[base]), float(values["ref_len"])))
    return out


def length_inputs(candidate: str, references: Sequence[str]) -> dict[str, float]:
    """``len_ratio`` = log((candidate tokens + 1) / (reference tokens + 1)) against the reference
    closest in length, ``ref_len`` = log(that reference's tokens + 1); tokens are the
    whitespace-split normalised text."""
    cand = len(paper_normalise(candidate).split())
    refs = [len(paper_normalise(r).split()) for r in references] or [0]
    ref = min(refs, key=lambda n: (abs(n - cand), n))
    return {"len_ratio": math.log((cand + 1) / (ref + 1)), "ref_len": math.log(ref + 1)}


def abs_len_ratio(len_ratio: Any) -> Any:
    """``abs_len_ratio``: how far from the reference's length, either way (numbers or arrays)."""
    return abs(len_ratio)


def extra_errors(candidate_errors: float, reference_errors: float) -> float:
    """``extra_errors`` = log(1 + parse errors the candidate has beyond the reference's)."""
    return math.log1p(max(0.0, float(candidate_errors) - float(reference_errors)))


def lower_quantile(values: Sequence[float], q: float) -> float:
    """Lower ``q`` quantile (nearest rank) of ``values``; 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def token_stats(candidate: Sequence[float], reference: Sequence[float]) -> dict[str, float]:
    """The ``TOKEN_STATS`` (``pmin``, ``rmin``, ``pq25``, ``rq25``) of one alignment, from the
    candidate's and the reference's token similarities."""
    sides = {"candidate": list(candidate), "reference": list(reference)}
    return {stat: (min(sides[side], default=0.0) if how == "min" else lower_quantile(sides[side], 0.25))
            for stat, (side, how) in TOKEN_STATS.items()}


def bert_token_stats(result: Any) -> dict[str, float]:
    """``token_stats`` of one ``BertScore`` (its token alignments)."""
    return token_stats([t.similarity for t in result.candidate_tokens],
                       [t.similarity for t in result.reference_tokens])
