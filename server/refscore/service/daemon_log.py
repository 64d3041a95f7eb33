"""The daemon's log: a rotating file in the user's log folder, one line for an input's fault."""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

from . import paths

LOG_MAX_BYTES = 5 * 1024 * 1024
LOG_BACKUPS = 3
#: Errors that are the input's, not the daemon's: logged as one line, never with a traceback.
_EXPECTED_ERRORS = frozenset({"InputTooLargeError"})


class _OneLineForInputErrors(logging.Filter):
    """A failure caused by the input (a text over the CodeBERTScore limit) is the user's to fix
    and happens on every such request: one line with the reason, not a traceback each time."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and type(error).__name__ in _EXPECTED_ERRORS:
            record.msg, record.args = f"{record.getMessage()}: {error}", None
            record.exc_info, record.exc_text = None, None
        return True


def setup_logging() -> Path:
    """Log to the user log dir with rotation; level from $REFSCORE_LOG_LEVEL (default INFO)."""
    path = paths.ensure_log_dir() / paths.LOG_NAME
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=LOG_MAX_BYTES, backupCount=LOG_BACKUPS,
                                                   encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_OneLineForInputErrors())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(os.environ.get("REFSCORE_LOG_LEVEL", "INFO").upper())
    return path
