"""The model and layer a CodeBERTScore request names, checked before anything is scored, from
the local files only: the command line (``commands/options.py``) and the Python API
(``api.py``) refuse the same settings in the same words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from ..settings_schema import check_layer_range
from .registry import ModelNotAvailableError, resolve_model

#: config.json keys that give a transformer's number of hidden layers
LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers")


def hidden_layers(folder: str) -> int | None:
    """The number of hidden layers in a model folder's config.json, when it says."""
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for key in LAYER_KEYS:
        value = config.get(key) if isinstance(config, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def check_model_and_layer(model: str | None, layer: int | None, languages: Iterable[str]) -> None:
    """``model`` must be one this machine has (``ModelNotAvailableError``); ``layer`` a hidden
    layer of the model each language would use (``SettingError``; 0 is the embeddings, N the last
    of N). A per-language default model that cannot be found is left to the scorer (it falls
    back to the embedded one), as is a model whose config does not say its layers."""
    if model is not None:
        resolve_model(model=model)
    if layer is None:
        return
    for language in dict.fromkeys(languages):
        try:
            spec = resolve_model(language, model, layer)
        except ModelNotAvailableError:
            return  # the scorer says which model is missing
        total = hidden_layers(spec.path)
        if total is not None:
            check_layer_range(layer, total, spec.model_id)
