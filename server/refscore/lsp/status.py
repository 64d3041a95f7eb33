"""What this server can score, told to the client: in the ``initialize`` result
(``capabilities.experimental.refscore``) and in ``refscore/status`` notifications whenever it
changes. Clients show it (the VS Code status item offers the set-up); nothing rewrites settings.

``codebertscore`` is one of
* ``ready``: the runtime is installed (the model loads at the first request);
* ``setup``: torch or transformers is missing in this interpreter: ``refscore setup`` installs them;
* ``unavailable``: the scoring daemon could not be had (``reason`` says why; tried again later);
* ``off``: not in ``refscore.metrics``, or the server runs with ``--no-daemon``.

Per document, ``refscore/documentStatus`` says what diagnostics cannot: ``noReference`` (the
document has no reference: no diagnostics, and the client offers *Set Reference...*).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .uris import file_name

if TYPE_CHECKING:
    from .server import RefScoreServer

log = logging.getLogger(__name__)

STATUS = "refscore/status"
DOCUMENT_STATUS = "refscore/documentStatus"
#: What the model-loading progress says while it waits (the first load after an install also
#: converts the model for this machine: ONNX export, about 30 s on a 2-core CPU, once).
LOADING = "loading the CodeBERTScore model (the first time after an install it is also prepared for this machine)"
#: Seconds between the progress's reports of how long it has waited.
PROGRESS_TICK_S = 5.0


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


def no_reference(server: RefScoreServer, uri: str, version: int) -> None:
    """Tell the client that ``uri`` has no reference (it gets no diagnostics), and how to set one."""
    message = (f"No reference for {file_name(uri)}: RefScore: Set Reference... chooses one (or a "
               "'# refscore: reference=PATH' line in the file, or the refscore.references setting)")
    try:
        server.protocol.notify(DOCUMENT_STATUS, {"uri": uri, "version": version, "state": "noReference",
                                                 "message": message})
    except Exception as error:  # noqa: BLE001 - a closed connection: nothing to tell
        log.debug("could not send %s: %s", DOCUMENT_STATUS, error)


def exited(pid: int | None) -> bool:
    """Whether process ``pid`` has exited (gone, or a zombie its parent has not reaped yet)."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][:1] in ("Z", "X")
    except (OSError, IndexError):
        return False


def died(pid: int | None) -> bool:
    """Whether the daemon ``pid`` ended without stopping in order (killed, crashed): its process
    is gone and ``daemon.json`` still names it (an idle exit or a ``daemon stop`` removes it)."""
    from ..service import paths

    return pid is not None and exited(pid) and (paths.read_info() or {}).get("pid") == pid


def daemon_gone_message(pid: int) -> str:
    """The one message when the daemon connected before has exited (killed, crashed)."""
    return (f"RefScore: the scoring daemon (pid {pid}) has stopped; a new one is starting and loads the "
            "CodeBERTScore model again (CodeBLEU goes on meanwhile)")


def tick_progress(server: RefScoreServer, token: str | None) -> asyncio.Task[None] | None:
    """Report every ``PROGRESS_TICK_S`` how long the model-loading progress ``token`` has waited
    (a task to cancel when it ends; None without a progress)."""
    if token is None:
        return None

    async def tick() -> None:
        waited = 0.0
        while True:
            await asyncio.sleep(PROGRESS_TICK_S)
            waited += PROGRESS_TICK_S
            server.work_done_progress.report(token, types.WorkDoneProgressReport(
                message=f"{LOADING}: {waited:.0f} s so far"))

    return asyncio.get_running_loop().create_task(tick())
