"""The combined RefScore number where behaviour ran: a second fit (``combined/combined_behaviour.json``)
stacked on the similarity fit's logit, with the behaviour agreement and whether the candidate
agreed on every input. Where behaviour did not run (another language, no sandbox, no inputs),
the similarity fit's number stands as it is (``scoring.headline``).

The fitted file has the similarity fit's format (``combined.model``), inputs ``similarity`` (the
similarity fit's logit), ``behaviour`` and ``behaviour_all``; ``benchmarks/fit_behaviour_combined.py``
writes it, with its held-out numbers (docs/correlation.md)."""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..behaviour.result import BehaviourResult
from ..errors import InputFileError
from ..combined.explain import combined_score, terms
from ..combined.model import check_model, digest, load_model
from ..metrics.signature import build_signature, parse_signature
from .report import RefScore

log = logging.getLogger(__name__)
PATH = Path(__file__).resolve().parents[1] / "combined" / "combined_behaviour.json"
INPUTS = ("similarity", "behaviour", "behaviour_all")


@lru_cache(maxsize=1)
def behaviour_model() -> dict[str, Any] | None:
    """The shipped behaviour fit, or None when this version has none."""
    try:
        model = dict(load_model(PATH))
        check_model(model)  # this format's version and keys
    except (OSError, ValueError, InputFileError) as error:
        log.info("no behaviour fit of the combined number: %s", error)
        return None
    if list(model["features"]) != list(INPUTS):
        return None
    model["digest"] = digest(PATH)
    return model


def behaviour_inputs(similarity: RefScore, behaviour: BehaviourResult) -> dict[str, float]:
    """The fit's inputs for one scored pair."""
    return {"similarity": similarity.logit, "behaviour": float(behaviour.agreement or 0.0),
            "behaviour_all": 1.0 if behaviour.agrees_everywhere else 0.0}


def signature(model: Mapping[str, Any], similarity: RefScore) -> str:
    """``refscore|fit:<digest>|on:<similarity fit's digest>|inputs:3|train:<data>|version:...``."""
    _, base = parse_signature(similarity.signature)
    fields: list[tuple[str, Any]] = [("fit", model["digest"]), ("on", base.get("fit", "")),
                                     ("inputs", len(model["features"]))]
    train = model.get("fitted", {}).get("train")
    if train:
        fields.append(("train", train))
    return build_signature("refscore", fields)


def with_behaviour(similarity: RefScore | None, behaviour: BehaviourResult | None) -> RefScore | None:
    """The behaviour fit's number when both the similarity number and behaviour are there, else
    ``similarity`` unchanged."""
    model = behaviour_model()
    if model is None or similarity is None or behaviour is None or not behaviour.ran:
        return similarity
    values = behaviour_inputs(similarity, behaviour)
    own = [t for t in terms(values, model) if t.input != "similarity"]
    # the similarity logit's own inputs, each share scaled by the weight the stack gives that
    # logit: the explanation names CodeBERTScore, chrF++... beside behaviour, and still adds up
    weight = float(model["coef"][0]) / float(model["scale"][0])
    inherited = [replace(t, weight=t.weight * weight, share=t.share * weight) for t in similarity.terms]
    intercept = float(model["intercept"]) + weight * (similarity.intercept - float(model["mean"][0]))
    shares = [*((name, share * weight) for name, share in similarity.contributions),
              *((t.input, t.share) for t in own)]
    behaviour_values = tuple((name, value) for name, value in values.items() if name != "similarity")
    return RefScore(combined_score(values, model), (*similarity.components, *behaviour_values),
                    signature(model, similarity), tuple(shares), intercept, (*inherited, *own))
