"""The fitted file of the combined RefScore number (``combined.json``): schema, read, write.

Keys: ``version`` (``FORMAT_VERSION``), ``features`` (input names, see ``inputs``), ``mean``,
``scale``, ``coef`` (one per input), ``intercept``, ``bert`` (the CodeBERTScore it was fitted on:
model, layer, context, default part), ``headline`` (whether, held out, it earned being shown
first), ``verdict`` and ``fitted`` (provenance: data, selection, held-out numbers). ``refscore eval
--save-combined`` writes it through ``save_model``; see docs/correlation.md.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..safe_read import read_settings_text
from ..safe_write import replace_file

DEFAULT_PATH = Path(__file__).with_name("combined.json")
#: Format of ``combined.json`` this package reads (3: interaction inputs).
FORMAT_VERSION = 3
#: Per-input lists, each as long as ``features``.
PER_INPUT = ("mean", "scale", "coef")


@lru_cache(maxsize=8)
def _load(path: str) -> dict[str, Any]:
    """The fitted file, read safely (``$REFSCORE_COMBINED`` may name anything: a FIFO or a device
    is one InputFileError, never a hang)."""
    return json.loads(read_settings_text(path, "the fitted combination"))


def load_model(path: str | Path | None = None) -> dict[str, Any]:
    """The fitted combination (weights, features, provenance) as a dict."""
    return _load(str(path or DEFAULT_PATH))


def digest(path: str | Path | None = None) -> str:
    """The first 10 hex digits of the file's SHA-1 (the ``fit:`` part of the signature)."""
    return hashlib.sha1(Path(path or DEFAULT_PATH).read_bytes()).hexdigest()[:10]


def required_inputs(model: Mapping[str, Any] | None = None) -> list[str]:
    """Names of the component values ``combined_score`` reads."""
    return list((model or load_model())["features"])


def check_model(model: Mapping[str, Any]) -> None:
    """Raise ValueError unless ``model`` has this format's keys, one weight per input."""
    if model.get("version") != FORMAT_VERSION:
        raise ValueError(f"combined model format {model.get('version')!r}, expected {FORMAT_VERSION}")
    missing = [key for key in ("features", *PER_INPUT, "intercept", "bert") if key not in model]
    if missing:
        raise ValueError(f"combined model lacks {', '.join(missing)}")
    if any(len(model[key]) != len(model["features"]) for key in PER_INPUT):
        raise ValueError("combined model: mean, scale and coef need one value per input")


def save_model(model: Mapping[str, Any], path: str | Path = DEFAULT_PATH) -> Path:
    """Write a fitted combination (checked first) as ``combined.json`` is written."""
    check_model(model)
    out = Path(path)
    replace_file(out, json.dumps(model, indent=1) + "\n")  # never over a device or through a link
    _load.cache_clear()
    return out
