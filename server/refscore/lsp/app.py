"""The language server with every feature registered: the one place that imports the feature
modules (each imports the server class from ``server``, never the reverse)."""

from __future__ import annotations

from ..analysis.cache import limit_caches
from ..parsing.flat import keep_parts
from . import behaviour, code_actions, commands, hover, lenses, pull, ranking, sync, tokens
from .phases import CACHE_CHARS, CACHE_ENTRIES
from .server import RefScoreServer


def build_server(allow_daemon: bool = True) -> RefScoreServer:
    """A server with every feature registered, its text caches bounded (``phases.CACHE_CHARS``),
    the top-level parts of edited documents kept (``parsing.flat.keep_parts``)."""
    limit_caches(CACHE_ENTRIES, CACHE_CHARS)
    keep_parts()
    server = RefScoreServer(allow_daemon=allow_daemon)
    for feature in (sync, hover, lenses, tokens, commands, behaviour, ranking, code_actions, pull):
        feature.register(server)
    return server
