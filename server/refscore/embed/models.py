"""The one place that decides which loaded CodeBERTScore scorer serves a request, and keeps it.

``scorer_for(language, model, layer, device, idf, backend)`` resolves the model from local files only
(``registry.resolve_model``: an explicit model, else the paper model when cached, else the
embedded MiniLM), loads its encoder once per process (``encoder.encoder_for``) and keeps one
``BertScorer`` per resolved (model folder, layer, device, IDF file, encoder backend) for the life
of the process.
Every front end reaches it through the shared pipeline (``refscore.scoring``), the daemon too.
"""

from __future__ import annotations

import os
import threading
from typing import Hashable

from .backends import requested_backend
from .bertscorer import BertScorer
from .device import select_device
from .encoder import encoder_for
from .registry import resolve_model

_SCORERS: dict[Hashable, BertScorer] = {}
_LOCK = threading.Lock()  # the daemon's lanes ask concurrently: load each model once


def idf_key(idf: str | None) -> Hashable:
    """A cache key for an IDF file setting: its real path and what it holds now (size, mtime)."""
    if idf is None:
        return None
    if idf == "references":
        return idf
    try:
        stat = os.stat(idf)
    except OSError:
        return ("missing", os.path.abspath(idf))
    return (os.path.realpath(idf), stat.st_size, stat.st_mtime_ns)


def scorer_for(language: str | None = None, model: str | None = None, layer: int | None = None,
               device: str | None = None, idf: str | None = None, backend: str | None = None) -> BertScorer:
    """The process-wide scorer for these settings (loaded on first use).

    Raises ``ModelNotAvailableError`` for an explicit model that is not on this machine, and
    whatever loading raises (a bad layer, a corrupt file, a missing IDF file) otherwise."""
    spec = resolve_model(language, model, layer)
    where = select_device(device)
    backend = requested_backend(backend)  # the request's, else $REFSCORE_ENCODER_BACKEND, else auto
    key = (spec.path, spec.layer, where, idf_key(idf), backend)
    with _LOCK:
        scorer = _SCORERS.get(key)
        if scorer is None:
            scorer = BertScorer(encoder_for(spec, device=where, backend=backend), idf=idf)
            _SCORERS[key] = scorer
        return scorer


def get_default_scorer(language: str | None = None, device: str | None = None) -> BertScorer:
    """The default scorer for ``language``: the paper model if cached, else MiniLM at layer 6."""
    return scorer_for(language, device=device)


def loaded_scorers() -> list[BertScorer]:
    """Every scorer loaded in this process (for status reports)."""
    with _LOCK:
        return list(_SCORERS.values())
