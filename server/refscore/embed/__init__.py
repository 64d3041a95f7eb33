"""Text encoders for the learned metrics (CodeBERTScore).

This package is the only place in RefScore that imports ``torch`` and ``transformers``; both are
imported lazily (on first use), so ``import refscore`` and ``import refscore.embed`` stay fast.

Public pieces:

* :mod:`refscore.embed.registry` -- which model and layer to use (paper defaults per language,
  the embedded all-MiniLM-L6-v2 fallback), resolved from local files only.
* :mod:`refscore.embed.device` -- device and precision selection.
* :class:`refscore.embed.encoder.Encoder` -- a loaded model: tokenize with offsets, embed in
  length-sorted batches, windows for long inputs, an LRU embedding cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registry import (
    EMBEDDED_MODEL_ID,
    ModelNotAvailableError,
    ModelSpec,
    embedded_model_path,
    known_layer,
    local_model_path,
    paper_model,
    resolve_model,
)

if TYPE_CHECKING:  # pragma: no cover
    from .encoder import Encoded, Encoder, encoder_for, load_encoder

__all__ = [
    "EMBEDDED_MODEL_ID",
    "Encoded",
    "Encoder",
    "ModelNotAvailableError",
    "ModelSpec",
    "embedded_model_path",
    "known_layer",
    "encoder_for",
    "load_encoder",
    "local_model_path",
    "paper_model",
    "resolve_model",
    "torch_module",
]


def __getattr__(name: str) -> Any:
    if name in ("Encoder", "Encoded", "encoder_for", "load_encoder"):
        from . import encoder

        return getattr(encoder, name)
    raise AttributeError(name)


def torch_module() -> Any:
    """The ``torch`` module, imported on first use (for callers outside this package)."""
    import torch

    return torch
