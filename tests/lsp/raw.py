"""A byte-level LSP client: starts ``refscore serve`` as a subprocess and writes raw bytes to it,
so tests can send what no LSP library would (bad headers, garbage) and read the replies."""

from __future__ import annotations

import queue
from typing import Any

from tests.lsp.harness import WAIT, server_command, server_env
from tests.lsp.stdio_client import PipedServer, frame

__all__ = ["RawServer", "frame", "notification", "request"]


def request(request_id: int, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params if params is not None else {}}


class RawServer:
    """``refscore serve --no-daemon`` on pipes; replies are parsed on a thread into a queue."""

    def __init__(self) -> None:
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._unclaimed: list[dict[str, Any]] = []  # responses not asked for yet
        self._pipe = PipedServer(server_command(), server_env(), self.messages.put)
        self.process = self._pipe.process

    @property
    def stderr(self) -> bytes:
        return self._pipe.stderr

    def send(self, data: bytes) -> None:
        self._pipe.send(data)

    def reply(self, request_id: int | None, timeout: float = WAIT) -> dict[str, Any]:
        """The response to ``request_id`` (None: a response with id null), in whatever order the
        responses come; every message read is kept in ``seen``."""
        while True:
            for index, message in enumerate(self._unclaimed):
                if message.get("id") == request_id:
                    return self._unclaimed.pop(index)
            try:
                message = self.messages.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no reply to request {request_id}: the server went deaf") from None
            assert message is not None, f"the server closed stdout; stderr: {self.stderr[-2000:]!r}"
            self.seen.append(message)
            if "method" not in message:
                self._unclaimed.append(message)

    def initialize(self) -> None:
        self.send(frame(request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})))
        assert "result" in self.reply(1)
        self.send(frame(notification("initialized")))

    def close(self) -> int:
        """Shut down and exit politely; the exit code (the process is killed if it hangs)."""
        try:
            self.send(frame(request(99_999, "shutdown")))
            self.reply(99_999)
            self.send(frame(notification("exit")))
        except BaseException:
            self._pipe.end(timeout=0)
            raise
        return self._pipe.end(timeout=WAIT)

    def log_lines(self, needle: str) -> list[str]:
        return [line for line in self.stderr.decode("utf-8", "replace").splitlines() if needle in line]
