"""The scoring daemon: one process per user that holds the model and serves every client.

``run_daemon(config)`` is what ``refscore daemon run`` (and the background process that clients
start) executes:

1. take ``daemon.lock`` (without waiting); if another daemon holds it, exit with
   ``EXIT_ALREADY_RUNNING`` -- this is what makes racing starts end with one daemon;
2. remove a stale socket (the lock proves its daemon is dead), listen on the Unix socket (0600, in
   the 0700 runtime directory) or, where Unix sockets are missing, on loopback TCP with a random
   token written to the 0600 ``daemon.json``;
3. serve JSON-RPC (see ``wire``) until ``shutdown``, SIGTERM/SIGINT, or ``idle_timeout`` seconds
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
import socket
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__, transport
from ..errors import RefScoreError
from ..provision.runtime import bert_runtime
from ..vocabulary import EXIT_INTERRUPTED
from . import paths, wire
from .engine import Cancelled, Engine, EngineConfig
from .listener import SHED_AFTER, Listener, Tally, listening_socket, watch_info, watch_socket
from .requests import RpcError, parse_request, valid_id

log = logging.getLogger("refscore.daemon")

EXIT_ALREADY_RUNNING = wire.EXIT_ALREADY_RUNNING
DEFAULT_IDLE_TIMEOUT = 15 * 60.0
IDLE_ENV = "REFSCORE_DAEMON_IDLE"
#: Seconds a connection may take to send ``initialize`` before it is closed.
DEFAULT_INIT_TIMEOUT = 10.0
INIT_TIMEOUT_ENV = "REFSCORE_DAEMON_INIT_TIMEOUT"
TRANSPORT_ENV = "REFSCORE_DAEMON_TRANSPORT"
_PACKAGE = str(Path(__file__).resolve().parents[1])  # which installation serves (in status)
#: Methods that do not count as activity for the idle timer (a status poll keeps nothing alive).
#: Connections the kernel queues before the daemon accepts them (asyncio's 100 made 12 of 1,000
#: concurrent connects fail with EAGAIN); the kernel caps it at net.core.somaxconn.
LISTEN_BACKLOG = 4096
_PASSIVE = frozenset({"initialize", "status", "shutdown", "ping", "$/cancelRequest"})


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


class Connection:
    _ids = 0

    def __init__(self, writer: asyncio.StreamWriter, authorized: bool) -> None:
        Connection._ids += 1
        self.id = Connection._ids
        self.writer = writer
        self.authorized = authorized
        self.opened = time.monotonic()
        self.jobs: dict[Any, Any] = {}
        self.write_lock = asyncio.Lock()

    async def send(self, message: dict[str, Any] | bytes) -> None:
        """Send a message (or its already encoded frame)."""
        if self.writer.is_closing():
            return
        data = message if isinstance(message, bytes) else wire.encode(message)
        async with self.write_lock:
            try:
                self.writer.write(data)
                await self.writer.drain()
            except (ConnectionError, RuntimeError):
                pass  # the client went away; its loss, nobody else's


class Daemon:
    def __init__(self, config: DaemonConfig) -> None:
        self.config = config
        self.engine = Engine(config.engine)
        self.version = config.advertise_version or __version__
        self.started = time.time()
        self.last_activity = time.monotonic()
        self.connections: set[Connection] = set()
        self.transport = "unix"
        self.address = ""
        self.token: str | None = None
        self._stop: asyncio.Event | None = None
        self._stopping = False
        self._stop_reason = ""
        self.failed = 0  # requests answered with an error (other than cancellation)
        self._socket_inode: int | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.never_initialised = Tally()

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
            await asyncio.gather(*(asyncio.wait_for(c.send(goodbye), 1.0) for c in list(self.connections)),
                                 return_exceptions=True)
            for conn in list(self.connections):
                conn.writer.close()
            self.engine.close()
            for task in list(self._tasks):
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
        return Listener(sock, self._accepted, self._shed)

    def _accepted(self, sock: socket.socket) -> None:
        task = asyncio.create_task(self._open(sock))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _open(self, sock: socket.socket) -> None:
        opener = asyncio.open_unix_connection if sock.family == socket.AF_UNIX else asyncio.open_connection
        try:
            reader, writer = await opener(sock=sock, limit=wire.MAX_HEADER_BYTES)
        except OSError as error:
            sock.close()
            log.warning("a connection could not be set up: %s", error)
            return
        await self._handle(reader, writer)

    def _shed(self) -> int:
        """Close the connections that have not initialised after ``SHED_AFTER`` seconds (the
        listener's answer to running out of descriptors); how many."""
        now = time.monotonic()
        idle = [c for c in self.connections
                if not c.authorized and now - c.opened >= SHED_AFTER and not c.writer.is_closing()]
        for conn in idle:
            conn.writer.close()
        return len(idle)

    def _info(self) -> dict[str, Any]:
        info = {"pid": os.getpid(), "version": self.version, "protocol": wire.PROTOCOL_VERSION,
                "transport": self.transport, "address": self.address, "package": _PACKAGE,
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
        if not self._stopping:
            self._stopping = True
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
            idle_for = time.monotonic() - self.last_activity
            if idle_for >= timeout and self.engine.in_flight() == 0:
                self.request_stop(f"idle for {idle_for:.0f} s")
                return

    # -- connections ----------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Connection(writer, authorized=False)  # every transport: initialize first
        self.connections.add(conn)
        try:
            await self._read_loop(conn, reader)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.TimeoutError:  # ``_read``: no initialize within the time allowed
            self.never_initialised.note(f"closed a connection that sent no initialize within "
                                        f"{self.config.init_timeout:g} s")
        except asyncio.CancelledError:
            # the daemon is stopping: end quietly (Python 3.11's stream callback calls
            # task.exception() on a cancelled handler and logged that as an error with a traceback)
            pass
        except Exception:  # noqa: BLE001 - one bad connection never takes the daemon down
            log.exception("connection %d failed", conn.id)
        finally:
            self.connections.discard(conn)
            for job in list(conn.jobs.values()):
                self.engine.cancel(job, "the client disconnected")
            writer.close()

    async def _read_loop(self, conn: Connection, reader: asyncio.StreamReader) -> None:
        """Serve each message (``refscore.transport``, no resynchronisation): a bad header or an
        oversized length is answered and closes the connection, a body that is not JSON is
        answered and the connection goes on."""
        source = transport.StreamSource(reader, lambda: self._time_left(conn))
        decoder = transport.FrameDecoder(self.config.max_message_bytes, resync=False)
        async for item in transport.read_frames(source, decoder):
            if isinstance(item, transport.Message):
                await self._dispatch(conn, item.value)
            elif item.kind == "too_large":
                await self._reject(conn, wire.MESSAGE_TOO_LARGE, item.message)
            elif item.kind == "header":
                await self._reject(conn, wire.PARSE_ERROR, f"not JSON-RPC framing: {item.message}")
            elif item.kind == "body":
                log.warning("connection %d: %s; answered ParseError", conn.id, item.message)
                await conn.send(wire.error(None, wire.PARSE_ERROR, f"invalid JSON: {item.message}"))
            else:
                log.warning("connection %d: %s", conn.id, item.message)

    def _time_left(self, conn: Connection) -> float | None:
        """Seconds left to a connection to send ``initialize`` (None once it has): reading past
        them raises ``asyncio.TimeoutError``."""
        return None if conn.authorized else conn.opened + self.config.init_timeout - time.monotonic()

    async def _reject(self, conn: Connection, code: int, message: str) -> None:
        log.warning("connection %d: %s; closing it", conn.id, message)
        await conn.send(wire.error(None, code, message))

    async def _dispatch(self, conn: Connection, message: Any) -> None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return  # a response: the daemon sends no requests, nothing to match
            msg_id = message.get("id") if isinstance(message, dict) else None
            await conn.send(wire.error(valid_id(msg_id), wire.INVALID_REQUEST, "not a JSON-RPC 2.0 request"))
            return
        method = message["method"]
        notify = "id" not in message
        msg_id = message.get("id")
        if not notify and valid_id(msg_id) is None and msg_id is not None:
            await conn.send(wire.error(None, wire.INVALID_REQUEST, "id must be a string or an integer"))
            return
        params = message.get("params", {})
        if params is None:
            params = {}
        if method not in _PASSIVE:
            self.last_activity = time.monotonic()
        task = asyncio.create_task(self._call(conn, method, msg_id, notify, params))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _call(self, conn: Connection, method: str, msg_id: Any, notify: bool, params: Any) -> None:
        try:
            if not isinstance(params, dict):
                raise RpcError(wire.INVALID_PARAMS, "params must be an object")
            if not conn.authorized and method != "initialize":
                raise RpcError(wire.UNAUTHORIZED, "send initialize first" + (
                    " with the token from daemon.json" if self.token is not None else ""))
            handler = getattr(self, "rpc_" + method.replace("$/", "dollar_"), None)
            if handler is None:
                raise RpcError(wire.METHOD_NOT_FOUND, f"unknown method {method!r}")
            value = await handler(conn, msg_id, params)
            if not notify:
                answer = wire.result(msg_id, value)
                await conn.send(await asyncio.to_thread(wire.encode, answer) if method == "score" else answer)
        except RpcError as error:
            if error.code != wire.REQUEST_CANCELLED:
                self.failed += 1
            if not notify:
                await conn.send(wire.error(msg_id, error.code, str(error)))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - the caller gets the error, nobody else
            log.exception("%s failed", method)
            self.failed += 1
            if not notify:
                await conn.send(wire.error(msg_id, wire.INTERNAL_ERROR, f"{type(error).__name__}: {error}"))
        finally:
            if method not in _PASSIVE:
                self.last_activity = time.monotonic()
        if method == "shutdown":
            reason = params.get("reason") if isinstance(params, dict) else None
            self.request_stop(str(reason)[:200] if reason else "shutdown requested by a client")

    # -- methods --------------------------------------------------------------------------------

    async def rpc_initialize(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        if self.token is not None:
            given = params.get("token")
            if not isinstance(given, str) or not secrets.compare_digest(given, self.token):
                raise RpcError(wire.UNAUTHORIZED, "wrong or missing token")
        conn.authorized = True
        return {"version": self.version, "protocol": wire.PROTOCOL_VERSION, "pid": os.getpid(),
                "transport": self.transport, "package": _PACKAGE, "python": sys.executable,
                "bert_missing": list(bert_runtime().missing)}

    async def rpc_score(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        if self._stopping:
            raise RpcError(wire.SHUTTING_DOWN, "the daemon is shutting down; retry with a fresh one")
        request = parse_request(params.get("request"))
        document = params.get("document")
        client = params.get("client")
        if document is not None and not isinstance(document, str):
            raise RpcError(wire.INVALID_PARAMS, "document must be a string")
        if client is not None and not isinstance(client, str):
            raise RpcError(wire.INVALID_PARAMS, "client must be a string")
        key = (client or f"connection-{conn.id}", document) if document is not None else None
        job = self.engine.submit(request, key)
        if msg_id is not None:
            conn.jobs[msg_id] = job
        try:
            report = await asyncio.wrap_future(job.future)
        except Cancelled as error:
            raise RpcError(wire.REQUEST_CANCELLED, str(error)) from None
        finally:
            conn.jobs.pop(msg_id, None)
        return await asyncio.to_thread(report.to_dict, True)  # big reports: off the event loop

    async def rpc_dollar_cancelRequest(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> None:  # noqa: N802
        job = conn.jobs.get(params.get("id"))
        if job is not None:
            self.engine.cancel(job)

    async def rpc_status(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        status = self.engine.status()
        devices = sorted({m.get("device") for m in status["models"] if m.get("device")})
        return {
            "pid": os.getpid(),
            "version": self.version,
            "protocol": wire.PROTOCOL_VERSION,
            "transport": self.transport,
            "address": self.address,
            "started": self.started,
            "uptime_s": round(time.time() - self.started, 1),
            "idle_timeout_s": self.config.idle_timeout,
            "idle_for_s": round(time.monotonic() - self.last_activity, 1),
            "device": ", ".join(devices) if devices else (self.config.engine.encoder.device or "auto (no model loaded yet)"),
            "connections": len(self.connections),
            "log": str(paths.log_dir() / paths.LOG_NAME),
            **status,
            "requests": {**status["requests"], "failed": self.failed},
        }

    async def rpc_ping(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        """Liveness: clients waiting on long work ping; answered at once from the event loop."""
        return {}

    async def rpc_shutdown(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        return {"pid": os.getpid()}


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
