"""The combined RefScore score: a fitted logistic combination of the paper metrics.

``combined_score(components)`` is pure Python (no numpy, no model): give it the component values
of one candidate/reference pair and it returns a number in 0..1, read as "how likely this code
is correct / acceptable, judging by its similarity to the reference". The weights, the inputs it
needs and how they were fitted live in ``combined.json`` next to this file (written by
``refscore eval --save-combined``; see docs/correlation.md).

Inputs (keys of ``components``), all on a 0..1 scale, names from ``combined.json["features"]``:

* ``cbs_p``, ``cbs_r``, ``cbs_f1``, ``cbs_f3``: CodeBERTScore of the embedded MiniLM at the layer
  named in ``combined.json["bert"]``, without context, no IDF, no rescaling;
* ``chrf``: sacrebleu sentence chrF / 100 on ``refscore.eval.data.paper_normalise``-d texts;
* ``ngram_match``, ``weighted_ngram_match``, ``syntax_match``, ``dataflow_match``: the native
  CodeBLEU components (``score_codebleu``); ``dataflow_match`` may be None (not applicable);
* ``len_ratio``, ``ref_len``: from ``length_inputs(candidate, references)`` below;
* ``<input>_by_ref_len``: an input times ``ref_len - REF_LEN_CENTRE`` (``interaction_inputs``).
  Inside one problem ``ref_len`` is constant, so such a term lets an input's weight in the ranking
  grow or shrink with the reference's length: a one-line snippet and a function body are not
  judged by the same mix.

A missing or None input takes the training mean stored in the file.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..metrics.chrf import paper_normalise  # noqa: F401 - part of this module's API

DEFAULT_PATH = Path(__file__).with_name("combined.json")
#: Format of ``combined.json`` this module reads (3: interaction inputs).
FORMAT_VERSION = 3
#: Suffix of an interaction input and the ``ref_len`` it is centred on (log of about 11 tokens,
#: between a one-line snippet and a function body; a fixed constant, not fitted).
INTERACTION_SUFFIX = "_by_ref_len"
REF_LEN_CENTRE = 2.5


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


@lru_cache(maxsize=8)
def _load(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def load_model(path: str | Path | None = None) -> dict[str, Any]:
    """The fitted combination (weights, features, provenance) as a dict."""
    return _load(str(path or DEFAULT_PATH))


def required_inputs(model: Mapping[str, Any] | None = None) -> list[str]:
    """Names of the component values ``combined_score`` reads."""
    return list((model or load_model())["features"])


def linear_part(components: Mapping[str, float | None], model: Mapping[str, Any]) -> float:
    """The logit: intercept plus weighted standardised inputs (missing inputs -> training mean)."""
    return float(model["intercept"]) + sum(share for _, share in contributions(components, model))


#: What each input means, for people reading a RefScore's explanation.
INPUT_LABELS = {
    "cbs_p": "CodeBERTScore precision", "cbs_r": "CodeBERTScore recall", "cbs_f1": "CodeBERTScore F1",
    "cbs_f3": "CodeBERTScore F3", "cbs_pq25": "CodeBERTScore weakest quarter of candidate tokens",
    "cbs_rq25": "CodeBERTScore weakest quarter of reference tokens",
    "cbs_pmin": "CodeBERTScore weakest candidate token", "cbs_rmin": "CodeBERTScore weakest reference token",
    "chrf": "chrF", "chrfpp": "chrF++", "ngram_match": "CodeBLEU n-gram match",
    "weighted_ngram_match": "CodeBLEU weighted n-gram match", "syntax_match": "CodeBLEU syntax match",
    "dataflow_match": "CodeBLEU dataflow match", "tsed": "TSED", "len_ratio": "length ratio (log)",
    "abs_len_ratio": "length difference (log)", "extra_errors": "parse errors beyond the reference's (log)",
    "ref_len": "reference length (log tokens)",
}


def input_families(features: Sequence[str]) -> list[str]:
    """The kinds of signal a model combines, in order (``CodeBERTScore``, ``chrF++``, ``length``...)."""
    out: list[str] = []
    for name in features:
        name = interaction_base(name) or name
        family = ("CodeBERTScore" if name.startswith("cbs_") else "chrF++" if name == "chrfpp" else "chrF" if name == "chrf"
                  else "CodeBLEU" if name.endswith("_match") else "TSED" if name == "tsed"
                  else "parse errors" if name == "extra_errors" else "length")
        if family not in out:
            out.append(family)
    return out


def describe_input(name: str, components: Mapping[str, float]) -> str:
    """``label value`` of one input for a reader; an interaction input shows its base's value
    (the product itself means little to a person)."""
    base, value = interaction_base(name), float(components.get(name, 0.0))
    if base is not None:
        shift = float(components.get("ref_len", REF_LEN_CENTRE)) - REF_LEN_CENTRE
        shown = components.get(base, value / shift if shift else None)
        label = f"{INPUT_LABELS.get(base, base)} (weighed by reference length)"
        return label if shown is None else f"{label} {float(shown):.3f}"
    return f"{INPUT_LABELS.get(name, name)} {value:.3f}"


def contributions(components: Mapping[str, float | None], model: Mapping[str, Any]) -> list[tuple[str, float]]:
    """Each input's share of the logit (weight x standardised value; 0 at the training mean), in
    the model's order: what pulled this score up or down."""
    out = []
    for name, mean, scale, coef in zip(model["features"], model["mean"], model["scale"], model["coef"]):
        value = components.get(name)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            value = mean
        out.append((name, coef * (float(value) - mean) / scale))
    return out


def combined_score(components: Mapping[str, float | None],
                   model: Mapping[str, Any] | None = None) -> float:
    """The combined RefScore score in 0..1 (logistic of the fitted linear combination)."""
    z = linear_part(components, model or load_model())
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
