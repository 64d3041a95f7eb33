"""A byte-level LSP client: starts ``refscore serve`` as a subprocess and writes raw bytes to it,
so tests can send what no LSP library would (bad headers, garbage) and read the replies."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from typing import Any

from tests.lsp.harness import WAIT, server_command, server_env


def frame(message: dict[str, Any], length: int | None = None) -> bytes:
    """One framed message; ``length`` overrides the true Content-Length."""
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


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
        self.process = subprocess.Popen(server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=server_env())
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._unclaimed: list[dict[str, Any]] = []  # responses not asked for yet
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_thread.start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            assert length is not None, "the server sent a header block without Content-Length"
            self.messages.put(json.loads(out.read(length)))

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

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
            return self.process.wait(timeout=WAIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self._stderr_thread.join(timeout=5)

    def log_lines(self, needle: str) -> list[str]:
        return [line for line in self.stderr.decode("utf-8", "replace").splitlines() if needle in line]
