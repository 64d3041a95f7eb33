"""Edit soak: the language server's memory while a user edits one document for minutes.

Usage: .venv/bin/python benchmarks/bench_lsp_memory.py [--seconds 300] [--interval 0.4]
       [--daemon] [--sample 10] [--json OUT]

Starts the real ``refscore serve`` over stdio (``--no-daemon`` unless ``--daemon``: then the
scoring daemon runs in a private runtime directory and CodeBERTScore is on), opens a 6 KB Python
candidate whose reference sits beside it (``NAME.ref.py``) and replaces its text every
``--interval`` seconds with a new version (a changed line: every version is new text, so every
one is scored). Prints the server's RSS (``VmRSS`` of ``/proc/PID/status``) every ``--sample``
seconds and at the end the growth over the second half: a server whose memory plateaus grows
little there; one that keeps something per version grows linearly.

``tests/lsp/test_lsp_memory.py`` uses ``soak`` for a short run of the same driver.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.lsp.stdio_client import PipedServer, frame  # the one LSP pipe client

FUNCTION = '''def running_total_{i}(values, start={i}):
    """Add the values one by one from start ({i})."""
    result = start
    seen = []
    for index, value in enumerate(values):
        if value is None:
            continue
        result = result + value * {i}
        seen.append((index, result))
    return result, seen

'''


def document(version: int, functions: int = 20) -> str:
    """About 6 KB of Python; ``version`` changes one line, so every version is a new text."""
    body = "".join(FUNCTION.format(i=i) for i in range(functions))
    return f"# version {version}\n" + body


def rss_mb(pid: int) -> float:
    """Resident set size of ``pid`` in MB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@dataclass
class Soak:
    """What one soak measured: (seconds since the first edit, versions sent, RSS MB) samples."""

    samples: list[tuple[float, int, float]] = field(default_factory=list)
    published: int = 0  # summary diagnostics received
    stderr: str = ""

    def growth_second_half(self) -> float:
        """RSS growth (MB) from the sample nearest half-time to the last sample."""
        if len(self.samples) < 2:
            return 0.0
        end = self.samples[-1]
        middle = min(self.samples, key=lambda s: abs(s[0] - end[0] / 2))
        return end[2] - middle[2]


class _Server:
    """``refscore serve`` on pipes; its output is drained (and summaries counted) on a thread."""

    def __init__(self, folder: Path, daemon: bool, env: dict[str, str] | None) -> None:
        cmd = [sys.executable, "-m", "refscore", "serve", *([] if daemon else ["--no-daemon"])]
        path = os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH", "")) if p)
        self.published = 0
        self.initialized = threading.Event()
        self._pipe = PipedServer(cmd, {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": path, **(env or {})},
                                 self._handle, cwd=folder)
        self.process = self._pipe.process

    @property
    def stderr(self) -> bytes:
        return self._pipe.stderr

    def _handle(self, message: dict[str, Any] | None) -> None:
        if message is None:
            return
        if message.get("id") == 1 and "result" in message:
            self.initialized.set()
        elif "id" in message and "method" in message:  # a request to the client: answer null
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif message.get("method") == "textDocument/publishDiagnostics":
            if any(d.get("code") == "refscore.summary" for d in message["params"]["diagnostics"]):
                self.published += 1

    def send(self, message: dict[str, Any]) -> None:
        try:
            self._pipe.send(frame(message))
        except (BrokenPipeError, ValueError):
            pass

    def stop(self) -> None:
        self.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self._pipe.end(timeout=20)


def soak(seconds: float, interval: float = 0.4, sample: float = 10.0, daemon: bool = False,
         env: dict[str, str] | None = None, versions: int | None = None, say: Any = None) -> Soak:
    """Edit for ``seconds`` (or until ``versions`` versions were sent), sampling the server's RSS."""
    with tempfile.TemporaryDirectory(prefix="refscore-soak-") as tmp:
        folder = Path(tmp)
        (folder / "task.ref.py").write_text(document(-1, 22), encoding="utf-8")
        cand = folder / "task.py"
        cand.write_text(document(0), encoding="utf-8")
        server = _Server(folder, daemon, env)
        result = Soak()
        try:
            server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"processId": os.getpid(), "rootUri": folder.as_uri(), "capabilities": {},
                                    "initializationOptions": {}}})
            if not server.initialized.wait(120):
                raise RuntimeError(f"no initialize result: {server.stderr.decode(errors='replace')[-2000:]}")
            server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            doc = cand.as_uri()
            server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": doc, "languageId": "python", "version": 1, "text": document(1)}}})
            started = time.monotonic()
            next_sample = 0.0
            version = 1
            while True:
                now = time.monotonic() - started
                if now >= next_sample:
                    result.samples.append((now, version, rss_mb(server.process.pid)))
                    if say:
                        say(f"{now:6.0f} s  {version:5d} versions  {server.published:5d} published  "
                            f"RSS {result.samples[-1][2]:6.1f} MB")
                    next_sample += sample
                if now >= seconds or (versions is not None and version >= versions):
                    break
                version += 1
                server.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": doc, "version": version},
                    "contentChanges": [{"text": document(version)}]}})
                time.sleep(interval)
            time.sleep(max(2.0, interval * 3))  # the last version is scored
            result.samples.append((time.monotonic() - started, version, rss_mb(server.process.pid)))
            result.published = server.published
        finally:
            server.stop()
            result.stderr = server.stderr.decode("utf-8", errors="replace")
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--interval", type=float, default=0.4)
    parser.add_argument("--sample", type=float, default=10.0)
    parser.add_argument("--daemon", action="store_true", help="with the scoring daemon (CodeBERTScore on)")
    parser.add_argument("--json", type=Path, help="write the samples here")
    args = parser.parse_args()
    env = None
    if args.daemon:
        env = {"REFSCORE_RUNTIME_DIR": tempfile.mkdtemp(prefix="refscore-soak-run-"),
               "REFSCORE_LOG_DIR": tempfile.mkdtemp(prefix="refscore-soak-log-")}
    result = soak(args.seconds, args.interval, args.sample, args.daemon, env, say=print)
    first, last = result.samples[0], result.samples[-1]
    print(f"RSS {first[2]:.1f} -> {last[2]:.1f} MB over {last[1]} versions ({result.published} summaries "
          f"published); growth over the second half {result.growth_second_half():+.1f} MB")
    if args.json:
        args.json.write_text(json.dumps({"samples": result.samples, "published": result.published}), encoding="utf-8")
    if env:
        subprocess.run([sys.executable, "-m", "refscore", "daemon", "stop"], env={**os.environ, **env,
                       "PYTHONPATH": str(REPO / "server")}, capture_output=True, timeout=60)


if __name__ == "__main__":
    main()
