"""The server's settings as ScoreRequests: every request the editor sends carries the encoder,
weights and context the user chose (mirrored from the client's settings)."""

from __future__ import annotations

from typing import Sequence

from ..scoring.report import ScoreRequest
from ..scoring.requests import build_request
from .settings import Settings


def request_for(settings: Settings, candidate: str, references: Sequence[str], language: str,
                context: str | None, metrics: tuple[str, ...]) -> ScoreRequest:
    """A request for ``candidate`` scored with ``settings`` (``context``: the pragma's, else the setting's)."""
    return build_request(candidate, tuple(references), language, context or settings.context,
                         settings=settings.score_settings(metrics))
