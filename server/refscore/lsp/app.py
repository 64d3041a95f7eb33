"""The language server with every feature registered: the one place that imports the feature
modules (each imports the server class from ``server``, never the reverse)."""

from __future__ import annotations

from . import behaviour, code_actions, commands, hover, lenses, pull, ranking, sync, tokens
from .phases import serve_edits
from .server import RefScoreServer


def build_server(allow_daemon: bool = True) -> RefScoreServer:
    """A server with every feature registered, in a process set up to score edits
    (``phases.serve_edits``: text caches bounded, top-level parts kept)."""
    serve_edits()
    server = RefScoreServer(allow_daemon=allow_daemon)
    for feature in (sync, hover, lenses, tokens, commands, behaviour, ranking, code_actions, pull):
        feature.register(server)
    return server
