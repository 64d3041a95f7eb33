"""The daemon's CodeBERTScore models: each loaded once (``ModelLoads``, in a batcher thread), a
failure remembered and reported with what to do instead of retried; and what ``status`` shows of
the models and the analysis caches.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Any, Callable, Hashable

from ..scoring.parts import with_defaults
from ..scoring.report import ScoreRequest
from ..settings_schema import EncoderChoice

log = logging.getLogger("refscore.service.engine")  # the engine's log: its lines read as before


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
                           ("structure_analyses", document.analyse_structure),
                           ("reference_token_analyses", document.reference_tokens),
                           ("reference_structure_analyses", document.reference_structure)):
        info = function.cache_info()
        out[name] = {"entries": info.currsize, "max_entries": info.maxsize, "hits": info.hits,
                     "misses": info.misses, "chars": info.chars, "max_chars": info.max_chars}
    return out


class ModelLoads:
    """The models requests need, keyed by path, layer, model id, device, IDF and backend: loaded
    once, or their failure remembered (not retried until the daemon restarts); thread-safe."""

    def __init__(self, defaults: EncoderChoice, on_load: Callable[[str], None]) -> None:
        self.defaults = defaults
        self._on_load = on_load  # called with the device after each load (the engine configures its lanes)
        self.errors: dict[Hashable, str] = {}
        self._loaded: dict[Hashable, float] = {}
        self._specs: dict[Hashable, Any] = {}
        self._lock = threading.Lock()

    def ready(self, request: ScoreRequest | None) -> str | None:
        """Load the model ``request`` needs (its own model and layer, else the daemon's, else the
        language default) once; None when ready, else what went wrong and what to do. Runs in the
        batcher thread only."""
        try:
            from ..embed import ModelNotAvailableError, resolve_model
        except ImportError as error:
            return bert_missing(error)
        language = request.language if request is not None else None
        choice = with_defaults(request, self.defaults).encoder if request is not None else self.defaults
        wanted = (language, choice)
        key = self._specs.get(wanted)
        if key is not None and key in self._loaded:
            return None  # the common case, without taking the lock
        with self._lock:
            if key is None:
                try:
                    spec = resolve_model(language, choice.model, choice.layer)
                except ModelNotAvailableError as error:
                    return self._remember(("resolve", choice.model), f"{error}. CodeBLEU still works.")
                key = self._specs[wanted] = (spec.path, spec.layer, spec.model_id, choice.device, choice.idf,
                                             choice.backend)
            if key in self._loaded:
                return None
            if key in self.errors:
                return self.errors[key]
            started = time.perf_counter()
            try:
                from ..embed.models import scorer_for

                encoder = scorer_for(language, choice).encoder
            except ImportError as error:
                return self._remember(key, bert_missing(error))
            except BaseException as error:  # noqa: BLE001 - OOM, corrupt files, bad config: all reported
                if isinstance(error, (KeyboardInterrupt, SystemExit)):
                    raise
                return self._remember(key, load_failure(key[2], key[0], choice.device, error))
            elapsed = time.perf_counter() - started
            described = getattr(encoder, "describe", lambda: {})()
            log.info("loaded %s layer %s on %s in %.1f s", key[2], described.get("layer", key[1]),
                     described.get("device", "?"), elapsed)
            self._on_load(str(described.get("device", "cpu")))
            self._loaded[key] = elapsed
        return None

    def _remember(self, key: Hashable, message: str) -> str:
        if key not in self.errors:
            self.errors[key] = message
            log.error("CodeBERTScore model problem (not retried until the daemon restarts): %s", message)
        return self.errors[key]
