"""The LSP base protocol on a child process's pipes, for the byte-level test client
(``tests/lsp/raw.py``) and the edit-soak benchmark (``benchmarks/bench_lsp_memory.py``):
``frame`` writes one message (with any ``Content-Length``), ``read_message`` reads one, and
``PipedServer`` runs a server whose stdout is parsed on a thread."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import IO, Any, Callable, Sequence


def frame(message: dict[str, Any], length: int | None = None) -> bytes:
    """One framed message; ``length`` overrides the true Content-Length."""
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message on ``stream``; None at its end."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    assert length is not None, "the server sent a header block without Content-Length"
    return json.loads(stream.read(length))


class PipedServer:
    """A server process on pipes: each message it writes (then None at the end of its output) is
    given to ``on_message`` on a reader thread; its stderr is collected in ``stderr``."""

    def __init__(self, command: Sequence[str], env: dict[str, str], on_message: Callable[[dict[str, Any] | None], None],
                 cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env, cwd=cwd)
        self.stderr = b""
        self._on_message = on_message
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_thread.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while True:
            message = read_message(self.process.stdout)
            self._on_message(message)
            if message is None:
                return

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def end(self, timeout: float) -> int:
        """Wait up to ``timeout`` s for the process to exit (killed after that); its exit code."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return -1
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self._stderr_thread.join(timeout=5)
