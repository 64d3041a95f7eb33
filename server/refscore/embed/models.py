"""The one place that decides which loaded CodeBERTScore scorer serves a request, and keeps it.

``scorer_for(language, choice)`` (an ``EncoderChoice``: model, layer, device, IDF, backend)
resolves the model from local files only
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

from ..settings_schema import NO_ENCODER_CHOICE, EncoderChoice
from .backends import requested_backend
from .bertscorer import BertScorer
from .device import select_device
from .encoder import encoder_for
from .registry import resolve_model

_SCORERS: dict[Hashable, BertScorer] = {}
_LOCK = threading.Lock()  # the daemon's lanes ask concurrently: load each model once


def idf_key(choice: EncoderChoice) -> Hashable:
    """A cache key for a choice's IDF setting: the file's real path and what it holds now (size, mtime)."""
    if choice.idf is None or choice.idf == "references":
        return choice.idf
    try:
        stat = os.stat(choice.idf)
    except OSError:
        return ("missing", os.path.abspath(choice.idf))
    return (os.path.realpath(choice.idf), stat.st_size, stat.st_mtime_ns)


def scorer_for(language: str | None = None, choice: EncoderChoice = NO_ENCODER_CHOICE) -> BertScorer:
    """The process-wide scorer for ``choice`` (loaded on first use).

    Raises ``ModelNotAvailableError`` for an explicit model that is not on this machine, and
    whatever loading raises (a bad layer, a corrupt file, a missing IDF file) otherwise."""
    spec = resolve_model(language, choice.model, choice.layer)
    where = select_device(choice.device)
    engine = requested_backend(choice.backend)  # the request's, else $REFSCORE_ENCODER_BACKEND, else auto
    key = (spec.path, spec.layer, where, idf_key(choice), engine)
    with _LOCK:
        scorer = _SCORERS.get(key)
        if scorer is None:
            scorer = BertScorer(encoder_for(spec, device=where, backend=engine), idf=choice.idf)
            _SCORERS[key] = scorer
        return scorer


def get_default_scorer(language: str | None = None, device: str | None = None) -> BertScorer:
    """The default scorer for ``language``: the paper model if cached, else MiniLM at layer 6."""
    return scorer_for(language, EncoderChoice(device=device))


def loaded_scorers() -> list[BertScorer]:
    """Every scorer loaded in this process (for status reports)."""
    with _LOCK:
        return list(_SCORERS.values())
