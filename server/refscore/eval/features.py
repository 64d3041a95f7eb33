"""The combined RefScore number's inputs as columns of a score table.

The inputs and their formulas are defined once, in ``refscore.combined.inputs``; this module only
maps each input to the score table's columns (``scoring.headline.components`` builds the same
values from a ``ScoreReport``, through the same functions). CrystalBLEU needs a corpus and
CodeBERTScore with the intent needs one, so neither is an input (both are measured alone in the
report).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..combined.inputs import abs_len_ratio, by_ref_len, extra_errors, interaction_base
from .cv import Table
from .metrics import BertColumns

_COLUMN = {
    "chrf": "chrf", "chrfpp": "chrfpp", "ngram_match": "ngram_match_native",
    "weighted_ngram_match": "weighted_ngram_match_native",
    "syntax_match": "syntax_match_native", "dataflow_match": "dataflow_match_native",
    "tsed": "tsed", "len_ratio": "len_ratio", "ref_len": "ref_len",
    "canon_ngram_match": "canon_ngram_match", "canon_exact": "canon_exact",
}


def _derived(name: str) -> Callable[[Table, BertColumns], np.ndarray] | None:
    base = interaction_base(name)
    if base is not None:  # the base input's weight varies with the reference's length
        return lambda t, bert: by_ref_len(column(t, base, bert), t.columns["ref_len"])
    if name == "abs_len_ratio":
        return lambda t, bert: abs_len_ratio(t.columns["len_ratio"])
    if name == "extra_errors":  # parse errors the candidate has beyond the reference's
        return lambda t, bert: np.array([extra_errors(c, r) for c, r in
                                          zip(t.columns["cand_errors"].tolist(), t.columns["ref_errors"].tolist())],
                                         dtype=float)
    return None


def source_column(name: str, bert: BertColumns) -> str:
    """Score-table column behind a (non-derived) input (``cbs_f3``: ``bert``'s F3 column)."""
    if name.startswith("cbs_"):
        return bert.name(name[4:])
    return _COLUMN[name]


def available(table: Table, names: tuple[str, ...] | list[str], bert: BertColumns) -> list[str]:
    """The inputs of ``names`` that ``table`` has the columns for."""
    out = []
    for name in names:
        base = interaction_base(name)
        if base is not None:
            ok = "ref_len" in table.columns and bool(available(table, [base], bert))
        elif name == "abs_len_ratio":
            ok = "len_ratio" in table.columns
        elif name == "extra_errors":
            ok = "cand_errors" in table.columns and "ref_errors" in table.columns
        else:
            ok = source_column(name, bert) in table.columns
        if ok:
            out.append(name)
    return out


def column(table: Table, name: str, bert: BertColumns) -> np.ndarray:
    """Values of one input over ``table`` (not-applicable NaN counts 0, as in the correlations)."""
    derived = _derived(name)
    values = derived(table, bert) if derived else table.columns[source_column(name, bert)]
    return np.nan_to_num(np.asarray(values, dtype=float))


def matrix(table: Table, names: tuple[str, ...] | list[str], bert: BertColumns) -> np.ndarray:
    """(rows, inputs) matrix of ``names`` over ``table``."""
    if not len(names):
        return np.zeros((len(table.target), 0))
    return np.column_stack([column(table, n, bert) for n in names])


def derived_columns(table: Table) -> dict[str, np.ndarray]:
    """The derived inputs ``table`` can have, as columns (for the agreement tables)."""
    any_layer = BertColumns(0)  # neither reads a CodeBERTScore column
    return {name: column(table, name, any_layer)
            for name in available(table, ["abs_len_ratio", "extra_errors"], any_layer)}
