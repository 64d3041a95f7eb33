"""What clients send the daemon, checked: a request that is not what it should be becomes an
``RpcError`` carrying the JSON-RPC error code and a message that says what is wrong."""

from __future__ import annotations

import os
from typing import Any

from .. import languages
from ..embed.backends import BACKENDS
from ..scoring.report import ALL_METRICS, CODEBLEU_RULES, TEXT_METRICS, request_from_dict
from . import wire

#: What the daemon scores: every stage but the corpus stage (CrystalBLEU needs a run's corpus).
DAEMON_METRICS = (*ALL_METRICS, *TEXT_METRICS)


class RpcError(Exception):
    """A JSON-RPC error to answer with (``code`` from ``wire``)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def valid_id(msg_id: Any) -> Any:
    """The request id if JSON-RPC allows it (a string or an integer), else None."""
    return msg_id if isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool) else None


def parse_request(data: Any):  # -> ScoreRequest
    """A ScoreRequest from JSON, or RpcError(INVALID_PARAMS) saying what is wrong."""
    if not isinstance(data, dict):
        raise RpcError(wire.INVALID_PARAMS, "params.request must be an object")
    candidate, references = data.get("candidate"), data.get("references")
    if not isinstance(candidate, str):
        raise RpcError(wire.INVALID_PARAMS, "request.candidate must be a string")
    if not isinstance(references, list) or not references or not all(isinstance(r, str) for r in references):
        raise RpcError(wire.INVALID_PARAMS, "request.references must be a non-empty list of strings")
    language = data.get("language")
    try:
        language = languages.get(language).name if isinstance(language, str) else None
    except languages.UnknownLanguageError as error:
        raise RpcError(wire.INVALID_PARAMS, str(error)) from None
    if language is None:
        raise RpcError(wire.INVALID_PARAMS, "request.language must be a string")
    metrics = data.get("metrics", list(ALL_METRICS))
    if not isinstance(metrics, list) or not all(m in DAEMON_METRICS for m in metrics):
        raise RpcError(wire.INVALID_PARAMS, f"request.metrics must be a list drawn from {list(DAEMON_METRICS)}")
    context = data.get("context")
    if context is not None and not isinstance(context, str):
        raise RpcError(wire.INVALID_PARAMS, "request.context must be a string or null")
    model, layer = data.get("model"), data.get("layer")
    if model is not None and not isinstance(model, str):
        raise RpcError(wire.INVALID_PARAMS, "request.model must be a string or null")
    if layer is not None and (not isinstance(layer, int) or isinstance(layer, bool)):
        raise RpcError(wire.INVALID_PARAMS, "request.layer must be an integer or null")
    device, idf, backend = data.get("device"), data.get("idf"), data.get("backend")
    if backend is not None and backend not in BACKENDS:
        raise RpcError(wire.INVALID_PARAMS, f"request.backend must be one of {list(BACKENDS)} or null")
    if device is not None and not isinstance(device, str):
        raise RpcError(wire.INVALID_PARAMS, "request.device must be a string or null")
    if idf is not None and (not isinstance(idf, str) or not (idf == "references" or os.path.isabs(idf))):
        raise RpcError(wire.INVALID_PARAMS, 'request.idf must be an absolute file path, "references" or null')
    if not isinstance(data.get("live", False), bool):
        raise RpcError(wire.INVALID_PARAMS, "request.live must be true or false")
    rule = data.get("codebleu_rule", "native")
    if rule not in CODEBLEU_RULES:
        raise RpcError(wire.INVALID_PARAMS, f"request.codebleu_rule must be one of {list(CODEBLEU_RULES)}")
    weights = data.get("weights")
    if weights is not None and (not isinstance(weights, list) or len(weights) != 4
                                or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights)):
        raise RpcError(wire.INVALID_PARAMS, "request.weights must be four numbers")
    try:
        return request_from_dict({**{k: v for k, v in data.items() if v is not None}, "language": language})
    except (TypeError, ValueError, KeyError) as error:
        raise RpcError(wire.INVALID_PARAMS, f"bad request: {error}") from None
