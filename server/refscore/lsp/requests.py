"""The server's settings as ScoreRequests: every request the editor sends carries the model,
layer, device, weights and context the user chose (mirrored from the client's settings)."""

from __future__ import annotations

from typing import Sequence

from ..scoring.report import ScoreRequest
from .settings import Settings


def request_for(settings: Settings, candidate: str, references: Sequence[str], language: str,
                context: str | None, metrics: tuple[str, ...]) -> ScoreRequest:
    """A request for ``candidate`` scored with ``settings`` (``context``: the pragma's, else the setting's)."""
    return ScoreRequest(candidate=candidate, references=tuple(references), language=language,
                        context=context or settings.context, metrics=metrics, weights=settings.codebleu_weights,
                        explain=True, model=settings.model, layer=settings.layer, device=settings.device,
                        backend=settings.backend)
