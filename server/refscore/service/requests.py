"""What clients send the daemon, checked: a request that is not what it should be becomes an
``RpcError`` carrying the JSON-RPC error code and a message that says what is wrong. The settings
that change a number are checked by the settings schema (``settings_schema``), as the command
line and the editor check them."""

from __future__ import annotations

from typing import Any

from ..errors import ScoreInputError
from ..scoring.requests import build_request
from ..settings_schema import (ALL_METRICS, BEHAVIOUR_METRICS, SETTINGS, TEXT_METRICS, BadSetting, ScoreSettings,
                               check_setting, shown)
from . import wire

#: What the daemon scores: every stage but the corpus stage (CrystalBLEU needs a run's corpus).
DAEMON_METRICS = (*ALL_METRICS, *TEXT_METRICS, *BEHAVIOUR_METRICS)


class RpcError(Exception):
    """A JSON-RPC error to answer with (``code`` from ``wire``)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def valid_id(msg_id: Any) -> Any:
    """The request id if JSON-RPC allows it (a string or an integer), else None."""
    return msg_id if isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool) else None


def parse_request(data: Any):  # -> ScoreRequest
    """A ScoreRequest from JSON, or RpcError(INVALID_PARAMS) saying what is wrong: the settings by
    the settings schema, the texts and the language by the one request builder (``scoring.requests``)."""
    if not isinstance(data, dict):
        raise RpcError(wire.INVALID_PARAMS, "params.request must be an object")
    if data.get("metrics") is not None and not isinstance(data["metrics"], list):
        raise RpcError(wire.INVALID_PARAMS, f"request.metrics {shown(data['metrics'])}: "
                                            f"must be a list drawn from {list(DAEMON_METRICS)}")
    if not isinstance(data.get("live", False), bool):
        raise RpcError(wire.INVALID_PARAMS, "request.live must be true or false")
    try:  # every setting that changes a number (settings_schema), checked one way
        settings = ScoreSettings.checked({name: data.get(name) for name in SETTINGS}, supported=DAEMON_METRICS,
                                         absolute_idf=True)
        context = check_setting("context", data.get("context"))
    except BadSetting as error:
        raise RpcError(wire.INVALID_PARAMS, f"request.{error.name} {shown(error.value)}: {error}") from None
    try:
        return build_request(data.get("candidate"), data.get("references"), data.get("language"), context,
                             settings=settings, explain=bool(data.get("explain", True)),
                             live=data.get("live", False), names=lambda field: f"request.{field}")
    except ScoreInputError as error:
        raise RpcError(wire.INVALID_PARAMS, str(error)) from None
