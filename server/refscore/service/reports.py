"""What the daemon's engine reports: model-failure messages and the status of its models and caches."""

from __future__ import annotations

import sys
from typing import Any


def bert_missing(error: BaseException) -> str:
    """What to do when torch or transformers is missing."""
    return (f"CodeBERTScore needs torch and transformers ({error}); install them with "
            "`pip install 'refscore[bert]'`, then run `refscore daemon stop`. CodeBLEU still works.")


def load_failure(model_id: str, path: str, device: str | None, error: BaseException) -> str:
    """One message for a model that failed to load: what happened and what to do."""
    text = f"{type(error).__name__}: {error}".strip()
    if len(text) > 300:
        text = text[:297] + "..."
    restart = "then run `refscore daemon stop` (the next request starts a fresh daemon)"
    if isinstance(error, MemoryError) or "out of memory" in str(error).lower():
        what = (f"not enough memory to load {model_id} on {device or 'the default device'} ({text}); "
                f"free memory, choose a smaller model or `--device cpu`, {restart}")
    else:
        what = (f"{model_id} at {path} could not be loaded ({text}); its files may be corrupt or "
                f"incomplete: download it again or point `--model` at a good copy, {restart}")
    return what + ". CodeBLEU still works."


def loaded_models() -> list[dict[str, Any]]:
    """The encoders this process holds (without importing torch when none was loaded)."""
    encoder_module = sys.modules.get("refscore.embed.encoder")
    if encoder_module is None:
        return []
    loaded = getattr(encoder_module, "_LOADED", {})
    out = []
    for encoder in list(loaded.values()):
        info = dict(encoder.describe()) if hasattr(encoder, "describe") else {"model": repr(encoder)}
        cache = getattr(encoder, "cache", None)
        if cache is not None:
            info["embeddings_cached"] = len(cache)
            info["embedding_cache_bytes"] = getattr(cache, "nbytes", None)
            info["embedding_cache_hits"] = getattr(cache, "hits", None)
            info["embedding_cache_misses"] = getattr(cache, "misses", None)
        out.append(info)
    return out


def cache_sizes() -> dict[str, Any]:
    """Sizes of the content-keyed analysis caches (tokens; parse trees and data flow)."""
    from ..analysis import document

    out: dict[str, Any] = {}
    for name, function in (("token_analyses", document.analyse_tokens),
                           ("structure_analyses", document.analyse_structure)):
        info = function.cache_info()
        out[name] = {"entries": info.currsize, "max_entries": info.maxsize, "hits": info.hits,
                     "misses": info.misses, "chars": info.chars, "max_chars": info.max_chars}
    return out
