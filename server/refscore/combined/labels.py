"""What the combined RefScore number's inputs mean, for people reading its explanation."""

from __future__ import annotations

from typing import Mapping, Sequence

from ..vocabulary import COMPONENT_LABELS_LONG, SCORE_LABELS
from .inputs import REF_LEN_CENTRE, interaction_base

INPUT_LABELS = {
    "cbs_p": "CodeBERTScore precision", "cbs_r": "CodeBERTScore recall", "cbs_f1": "CodeBERTScore F1",
    "cbs_f3": "CodeBERTScore F3", "cbs_pq25": "CodeBERTScore weakest quarter of candidate tokens",
    "cbs_rq25": "CodeBERTScore weakest quarter of reference tokens",
    "cbs_pmin": "CodeBERTScore weakest candidate token", "cbs_rmin": "CodeBERTScore weakest reference token",
    "chrf": SCORE_LABELS["chrf"], "chrfpp": "chrF++", "tsed": SCORE_LABELS["tsed"],
    **{name: f"CodeBLEU {label}" for name, label in COMPONENT_LABELS_LONG.items()}, "len_ratio": "length ratio (log)",
    "abs_len_ratio": "length difference (log)", "extra_errors": "parse errors beyond the reference's (log)",
    "ref_len": "reference length (log tokens)",
    "canon_ngram_match": "n-gram match with local names renamed canonically",
    "canon_exact": "equal to a reference up to local names",
    "similarity": "RefScore from similarity (its logit)", "behaviour": "behaviour agreement",
    "behaviour_all": "agrees with the reference on every input",
}


def input_families(features: Sequence[str]) -> list[str]:
    """The kinds of signal a model combines, in order (``CodeBERTScore``, ``chrF++``, ``length``...)."""
    out: list[str] = []
    for name in features:
        name = interaction_base(name) or name
        family = ("behaviour" if name.startswith("behaviour") else "similarity" if name == "similarity"
                  else "CodeBERTScore" if name.startswith("cbs_") else "chrF++" if name == "chrfpp" else "chrF" if name == "chrf"
                  else "identifier-invariant match" if name.startswith("canon_")
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
