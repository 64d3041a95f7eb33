"""What this server can score, told to the client: in the ``initialize`` result
(``capabilities.experimental.refscore``) and in ``refscore/status`` notifications whenever it
changes. Clients show it (the VS Code status item offers the set-up); nothing rewrites settings.

``codebertscore`` is one of
* ``ready``: the runtime is installed (the model loads at the first request);
* ``setup``: torch or transformers is missing in this interpreter: ``refscore setup`` installs them;
* ``unavailable``: the scoring daemon could not be had (``reason`` says why; tried again later);
* ``off``: not in ``refscore.metrics``, or the server runs with ``--no-daemon``.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from .server import RefScoreServer

log = logging.getLogger(__name__)

STATUS = "refscore/status"


def server_status(server: RefScoreServer) -> dict[str, Any]:
    """The payload of the initialize result's ``experimental.refscore`` and of ``refscore/status``."""
    scorers = server.scorers
    runtime = scorers.runtime
    if not scorers.allow_daemon:
        state, reason = "off", "the server runs with --no-daemon"
    elif not server.settings.codebertscore_on:
        state, reason = "off", "not in refscore.metrics"
    elif not runtime.ready:
        state, reason = "setup", runtime.reason
    elif scorers.bert_unavailable is not None:
        state, reason = "unavailable", scorers.bert_unavailable
    else:
        state, reason = "ready", None
    return {"codebleu": "ready", "codebertscore": state, "reason": reason, "python": runtime.python,
            "setupCommand": [sys.executable, "-m", "refscore", "setup"]}


def report_status(server: RefScoreServer) -> None:
    """Send ``refscore/status`` when what the server can score changed since it was last sent."""
    status = server_status(server)
    if status == server.sent_status:
        return
    server.sent_status = status
    if status["codebertscore"] in ("setup", "unavailable"):
        server.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=status["reason"]))
    try:
        server.protocol.notify(STATUS, status)
    except Exception as error:  # noqa: BLE001 - a closed connection: nothing to tell
        log.debug("could not send %s: %s", STATUS, error)
