"""The combined RefScore number: a fitted logistic combination of the paper metrics.

It is a product module: ``score``, ``grade`` and the editor show it first, and ``refscore eval``
fits it and writes its file through this package (the product never imports ``eval/``).

* ``inputs``: the input features, defined once (names, the length, token-statistic, parse-error
  and interaction formulas); the eval's score-table columns and the served report both go
  through these functions.
* ``model``: the fitted file's schema (``combined.json``: format version, inputs, weights,
  provenance), reading and writing it.
* ``explain``: the number itself (pure Python, no numpy, no model) and each input's term and share.
* ``labels``: what each input means for a reader.
"""

from __future__ import annotations

from .explain import combined_score, contributions, linear_part
from .model import DEFAULT_PATH, FORMAT_VERSION, load_model, required_inputs

__all__ = ["DEFAULT_PATH", "FORMAT_VERSION", "combined_score", "contributions", "linear_part",
           "load_model", "required_inputs"]
