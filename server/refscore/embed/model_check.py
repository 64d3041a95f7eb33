"""The model, layer and device a CodeBERTScore request names, checked before anything is scored
(the model from the local files only): the command line (``commands/options.py``) and the Python
API (``api.py``) refuse the same settings in the same words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from ..safe_read import user_path
from ..settings_schema import DEVICE_PATTERN, EncoderChoice, check_layer_range
from .registry import ModelNotAvailableError, resolve_model

#: config.json keys that give a transformer's number of hidden layers
LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers")


def portable_model(model: str | None) -> str | None:
    """``model`` as a request may carry it to a daemon with another working folder: a folder
    here as its absolute path, a Hugging Face id (or None) as given."""
    if model is None or not user_path(model).is_dir():
        return model
    return str(user_path(model).resolve())


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


def check_model_and_layer(choice: EncoderChoice, languages: Iterable[str]) -> None:
    """The choice's model must be one this machine has (``ModelNotAvailableError``); its layer a
    hidden layer of the model each language would use (``SettingError``; 0 is the embeddings, N
    the last of N). A per-language default model that cannot be found is left to the scorer (it
    falls back to the embedded one), as is a model whose config does not say its layers."""
    if choice.model is not None:
        resolve_model(model=choice.model)
    if choice.layer is None:
        return
    for language in dict.fromkeys(languages):
        try:
            spec = resolve_model(language, choice.model, choice.layer)
        except ModelNotAvailableError:
            return  # the scorer says which model is missing
        total = hidden_layers(spec.path)
        if total is not None:
            check_layer_range(choice.layer, total, spec.model_id)


def device_problem(device: str) -> str | None:
    """Why this torch cannot use ``device`` (``cuda``, ``cuda:N`` or ``mps``, as the settings
    schema spells them), or None; ``cpu`` always works (torch is imported only for the others)."""
    found = DEVICE_PATTERN.fullmatch(device)
    if found is None or found.group(1) == "cpu":
        return None
    from . import torch_module

    torch = torch_module()
    if found.group(1) == "mps":
        return None if torch.backends.mps.is_available() else "MPS is not available to this torch; use cpu"
    if not torch.cuda.is_available():
        return f"CUDA is not available to this torch ({torch.__version__}); use cpu"
    count = torch.cuda.device_count()
    if found.group(3) is not None and int(found.group(3)) >= count:
        return f"this machine has CUDA devices cuda:0 to cuda:{count - 1}"
    return None
