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
* ``len_ratio``, ``ref_len``: from ``length_inputs(candidate, references)`` below.

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
    total = float(model["intercept"])
    for name, mean, scale, coef in zip(model["features"], model["mean"], model["scale"],
                                       model["coef"]):
        value = components.get(name)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            value = mean
        total += coef * (float(value) - mean) / scale
    return total


def combined_score(components: Mapping[str, float | None],
                   model: Mapping[str, Any] | None = None) -> float:
    """The combined RefScore score in 0..1 (logistic of the fitted linear combination)."""
    z = linear_part(components, model or load_model())
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
