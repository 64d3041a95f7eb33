"""The scoring daemon: one process per user that holds the model and serves every client.

``run_daemon(config)`` is what ``refscore daemon run`` (and the background process that clients
start) executes:

1. take ``daemon.lock`` (without waiting); if another daemon holds it, exit with
   ``EXIT_ALREADY_RUNNING`` -- this is what makes racing starts end with one daemon;
2. remove a stale socket (the lock proves its daemon is dead), listen on the Unix socket (0600, in
   the 0700 runtime directory) or, where Unix sockets are missing, on loopback TCP with a random
   token written to the 0600 ``daemon.json``;
3. serve JSON-RPC (see ``wire``; each connection and its requests: ``daemon_rpc``) until ``shutdown``, SIGTERM/SIGINT, or ``idle_timeout`` seconds
   without a request and with nothing in flight;
4. remove the socket and ``daemon.json``, then release the lock by exiting.

A client that sends garbage, an oversized message or invalid JSON gets an error and (for framing
errors) its connection closed; nothing it sends can stop the daemon or reach other clients.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import signal
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import __version__
from ..errors import RefScoreError
from ..vocabulary import EXIT_INTERRUPTED
from . import paths, wire
from .daemon_rpc import PACKAGE, Dispatcher
from .engine import Engine, EngineConfig
from .listener import Listener, listening_socket, watch_info, watch_socket

log = logging.getLogger("refscore.daemon")

EXIT_ALREADY_RUNNING = wire.EXIT_ALREADY_RUNNING
DEFAULT_IDLE_TIMEOUT = 15 * 60.0
IDLE_ENV = "REFSCORE_DAEMON_IDLE"
#: Seconds a connection may take to send ``initialize`` before it is closed.
DEFAULT_INIT_TIMEOUT = 10.0
INIT_TIMEOUT_ENV = "REFSCORE_DAEMON_INIT_TIMEOUT"
TRANSPORT_ENV = "REFSCORE_DAEMON_TRANSPORT"
#: Connections the kernel queues before the daemon accepts them (asyncio's 100 made 12 of 1,000
#: concurrent connects fail with EAGAIN); the kernel caps it at net.core.somaxconn.
LISTEN_BACKLOG = 4096


@dataclass
class DaemonConfig:
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    init_timeout: float = DEFAULT_INIT_TIMEOUT
    transport: str = "auto"  # auto | unix | tcp
    max_message_bytes: int = wire.DEFAULT_MAX_MESSAGE_BYTES
    engine: EngineConfig = field(default_factory=EngineConfig)
    #: Testing only: the version this daemon claims in the handshake (to test replacement).
    advertise_version: str | None = None

    @classmethod
    def from_env(cls, **overrides: Any) -> "DaemonConfig":
        config = cls()
        idle = os.environ.get(IDLE_ENV)
        if idle:
            config.idle_timeout = float(idle)
        init = os.environ.get(INIT_TIMEOUT_ENV, "").strip()
        if init.replace(".", "", 1).isdigit() and float(init) > 0:  # else the default
            config.init_timeout = float(init)
        config.transport = os.environ.get(TRANSPORT_ENV, config.transport)
        for name, value in overrides.items():
            if value is None:
                continue
            if hasattr(config.engine, name):
                setattr(config.engine, name, value)
            else:
                setattr(config, name, value)
        return config


class Daemon:
    """The daemon's life cycle: listen, write ``daemon.json``, watch for idleness and for its
    socket's removal, stop, clean up; its connections are the ``Dispatcher``'s."""

    def __init__(self, config: DaemonConfig) -> None:
        self.config = config
        self.engine = Engine(config.engine)
        self.version = config.advertise_version or __version__
        self.started = time.time()
        self.transport = "unix"
        self.address = ""
        self.token: str | None = None
        self._stop: asyncio.Event | None = None
        self.stopping = False
        self._stop_reason = ""
        self._socket_inode: int | None = None
        self.dispatcher = Dispatcher(self)  # the connections and their requests

    # -- life cycle -----------------------------------------------------------------------------

    async def serve(self) -> None:
        self._stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, self.request_stop, f"signal {sig.name}")
            except (NotImplementedError, RuntimeError):  # pragma: no cover - Windows
                pass
        listener = self._listen()
        listener.start()
        paths.write_private_json(paths.runtime_dir() / paths.INFO_NAME, self._info())
        log.info("refscore daemon %s (pid %d) listening on %s %s; idle timeout %.0f s", self.version,
                 os.getpid(), self.transport, self.address, self.config.idle_timeout)
        idle = asyncio.create_task(self._idle_watch())
        watch = asyncio.create_task(self._socket_watch())
        try:
            await self._stop.wait()
        finally:
            idle.cancel()
            watch.cancel()
            listener.close()
            self._remove_files()
            goodbye = wire.notification("$/exit", {"reason": self._stop_reason})
            await asyncio.gather(*(asyncio.wait_for(c.send(goodbye), 1.0) for c in list(self.dispatcher.connections)),
                                 return_exceptions=True)
            for conn in list(self.dispatcher.connections):
                conn.writer.close()
            self.engine.close()
            for task in list(self.dispatcher.tasks):
                task.cancel()

    def _listen(self) -> Listener:
        use_unix = self.config.transport == "unix" or (
            self.config.transport == "auto" and paths.unix_sockets_usable())
        if use_unix:
            path = paths.socket_path()
            if paths.remove_stale_socket(path):  # stale: we hold the lock, so no live daemon owns it
                log.info("removed a stale socket left by a daemon that died")
            sock = listening_socket(path, LISTEN_BACKLOG)
            os.chmod(path, 0o600)
            self._socket_inode = os.stat(path).st_ino
            self.transport, self.address = "unix", str(path)
        else:
            self.token = secrets.token_urlsafe(32)
            sock = listening_socket(None, LISTEN_BACKLOG)
            self.transport, self.address = "tcp", f"127.0.0.1:{sock.getsockname()[1]}"
        return Listener(sock, self.dispatcher.accepted, self.dispatcher.shed)

    def _info(self) -> dict[str, Any]:
        info = {"pid": os.getpid(), "version": self.version, "protocol": wire.PROTOCOL_VERSION,
                "transport": self.transport, "address": self.address, "package": PACKAGE,
                "started": self.started, "log": str(paths.log_dir() / paths.LOG_NAME)}
        if self.token:
            info["token"] = self.token
        return info

    def _remove_files(self) -> None:
        if self.transport == "unix" and self._socket_inode is not None:
            path = paths.socket_path()
            try:
                if os.stat(path).st_ino == self._socket_inode:
                    path.unlink()
            except OSError:
                pass
        info = paths.read_info()
        if info and info.get("pid") == os.getpid():
            try:
                (paths.runtime_dir() / paths.INFO_NAME).unlink()
            except OSError:
                pass

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C (SIGINT) stopped it: ``daemon run`` then exits 130, as every command."""
        return self._stop_reason == f"signal {signal.SIGINT.name}"

    def request_stop(self, reason: str = "") -> None:
        if not self.stopping:
            self.stopping = True
            self._stop_reason = reason or "requested"
            log.info("stopping (%s)", reason or "requested")
            if self._stop is not None:
                self._stop.set()

    async def _socket_watch(self) -> None:
        """Stop when the Unix socket file (over TCP: ``daemon.json``) is removed or replaced
        (``listener.watch_socket``)."""
        if self.transport == "unix" and self._socket_inode is not None:
            await watch_socket(paths.socket_path(), self._socket_inode, self.request_stop)
        elif self.transport == "tcp":
            await watch_info(self.request_stop)

    async def _idle_watch(self) -> None:
        timeout = self.config.idle_timeout
        if timeout <= 0:
            return
        while True:
            await asyncio.sleep(min(1.0, max(0.05, timeout / 4)))
            idle_for = time.monotonic() - self.dispatcher.last_activity
            if idle_for >= timeout and self.engine.in_flight() == 0:
                self.request_stop(f"idle for {idle_for:.0f} s")
                return


# -- process entry point -----------------------------------------------------------------------


def _refused(error: RefScoreError) -> int:
    """A start-up the user must fix (a file in the way, an unsafe folder): one line in the log and
    on stderr (the client shows it), and the error's exit code."""
    log.error("%s", error)
    print(f"refscore daemon: {error}", file=sys.stderr)
    return error.exit_code


def run_daemon(config: DaemonConfig) -> int:
    """Run in this process until stopped. Returns the exit code."""
    # Before torch is imported: OpenMP threads that spin after each model call (the default)
    # steal the cores the event loop, the other lanes and the clients need between calls.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    paths.setup_logging()
    try:
        directory = paths.ensure_runtime_dir()
    except paths.RuntimeDirError as error:
        return _refused(error)
    lock = paths.FileLock(directory / paths.LOCK_NAME)
    try:
        taken = lock.acquire(0)
    except RefScoreError as error:  # a folder where the lock goes
        return _refused(error)
    if not taken:
        log.info("another daemon holds %s; exiting", lock.path)
        return EXIT_ALREADY_RUNNING
    try:
        daemon = Daemon(config)
        log.info("configuration: %s", json.dumps(asdict(config)))
        asyncio.run(daemon.serve())
        log.info("stopped after serving %d requests", daemon.engine.stats["served"])
        return EXIT_INTERRUPTED if daemon.interrupted else 0
    except RefScoreError as error:  # a file in the way of the socket: one line, no traceback
        return _refused(error)
    except Exception:  # noqa: BLE001
        log.exception("the daemon failed")
        return 5
    finally:
        lock.release()
