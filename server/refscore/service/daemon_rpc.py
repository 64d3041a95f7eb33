"""The daemon's side of its clients: each connection read frame by frame
(``refscore.transport``), each message checked as JSON-RPC 2.0, nothing but ``initialize``
before it, every request served in a task of its own and answered on its own connection; and the
methods a client may call (``initialize``, ``score``, ``$/cancelRequest``, ``status``, ``ping``,
``shutdown``). ``daemon.Daemon`` owns the process's life cycle and hands each accepted socket here.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import transport
from ..parsing.gc_pause import hold
from ..provision.runtime import bert_runtime
from . import paths, wire
from .engine import Cancelled
from .listener import SHED_AFTER, Tally
from .requests import RpcError, parse_request, valid_id

if TYPE_CHECKING:
    from .daemon import Daemon

log = logging.getLogger("refscore.daemon")

PACKAGE = str(Path(__file__).resolve().parents[1])  # which installation serves (in status)
#: Methods that do not count as activity for the idle timer (a status poll keeps nothing alive).
_PASSIVE = frozenset({"initialize", "status", "shutdown", "ping", "$/cancelRequest"})


class Connection:
    """One client's connection as the daemon sees it: authorised yet, its jobs, one writer at a time."""

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


class Dispatcher:
    """The daemon's open connections, the requests in flight on them, and the methods they call."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.connections: set[Connection] = set()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.last_activity = time.monotonic()
        self.failed = 0  # requests answered with an error (other than cancellation)
        self.never_initialised = Tally()

    # -- accepting ------------------------------------------------------------------------------

    def accepted(self, sock: socket.socket) -> None:
        task = asyncio.create_task(self._open(sock))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _open(self, sock: socket.socket) -> None:
        opener = asyncio.open_unix_connection if sock.family == socket.AF_UNIX else asyncio.open_connection
        try:
            reader, writer = await opener(sock=sock, limit=wire.MAX_HEADER_BYTES)
        except OSError as error:
            sock.close()
            log.warning("a connection could not be set up: %s", error)
            return
        await self._handle(reader, writer)

    def shed(self) -> int:
        """Close the connections that have not initialised after ``SHED_AFTER`` seconds (the
        listener's answer to running out of descriptors); how many."""
        now = time.monotonic()
        idle = [c for c in self.connections
                if not c.authorized and now - c.opened >= SHED_AFTER and not c.writer.is_closing()]
        for conn in idle:
            conn.writer.close()
        return len(idle)

    # -- reading a connection -------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Connection(writer, authorized=False)  # every transport: initialize first
        self.connections.add(conn)
        try:
            await self._read_loop(conn, reader)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.TimeoutError:  # ``_read``: no initialize within the time allowed
            self.never_initialised.note(f"closed a connection that sent no initialize within "
                                        f"{self.daemon.config.init_timeout:g} s")
        except asyncio.CancelledError:
            # the daemon is stopping: end quietly (Python 3.11's stream callback calls
            # task.exception() on a cancelled handler and logged that as an error with a traceback)
            pass
        except Exception:  # noqa: BLE001 - one bad connection never takes the daemon down
            log.exception("connection %d failed", conn.id)
        finally:
            self.connections.discard(conn)
            for job in list(conn.jobs.values()):
                self.daemon.engine.cancel(job, "the client disconnected")
            writer.close()

    async def _read_loop(self, conn: Connection, reader: asyncio.StreamReader) -> None:
        """Serve each message (``refscore.transport``, no resynchronisation): a bad header or an
        oversized length is answered and closes the connection, a body that is not JSON is
        answered and the connection goes on."""
        source = transport.StreamSource(reader, lambda: self._time_left(conn))
        decoder = transport.FrameDecoder(self.daemon.config.max_message_bytes, resync=False)
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
        return None if conn.authorized else conn.opened + self.daemon.config.init_timeout - time.monotonic()

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
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _call(self, conn: Connection, method: str, msg_id: Any, notify: bool, params: Any) -> None:
        # a score request's allocations (a 2,000-line file's 24,000 token alignments and their
        # JSON) are collected after its answer is written, not while the client waits for it
        release = hold() if method == "score" else None
        try:
            if not isinstance(params, dict):
                raise RpcError(wire.INVALID_PARAMS, "params must be an object")
            if not conn.authorized and method != "initialize":
                raise RpcError(wire.UNAUTHORIZED, "send initialize first" + (
                    " with the token from daemon.json" if self.daemon.token is not None else ""))
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
            if release is not None:
                release()
            if method not in _PASSIVE:
                self.last_activity = time.monotonic()
        if method == "shutdown":
            reason = params.get("reason") if isinstance(params, dict) else None
            self.daemon.request_stop(str(reason)[:200] if reason else "shutdown requested by a client")

    # -- methods --------------------------------------------------------------------------------

    async def rpc_initialize(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        if self.daemon.token is not None:
            given = params.get("token")
            if not isinstance(given, str) or not secrets.compare_digest(given, self.daemon.token):
                raise RpcError(wire.UNAUTHORIZED, "wrong or missing token")
        conn.authorized = True
        return {"version": self.daemon.version, "protocol": wire.PROTOCOL_VERSION, "pid": os.getpid(),
                "transport": self.daemon.transport, "package": PACKAGE, "python": sys.executable,
                "bert_missing": list(bert_runtime().missing)}

    async def rpc_score(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        if self.daemon.stopping:
            raise RpcError(wire.SHUTTING_DOWN, "the daemon is shutting down; retry with a fresh one")
        request = parse_request(params.get("request"))
        document = params.get("document")
        client = params.get("client")
        if document is not None and not isinstance(document, str):
            raise RpcError(wire.INVALID_PARAMS, "document must be a string")
        if client is not None and not isinstance(client, str):
            raise RpcError(wire.INVALID_PARAMS, "client must be a string")
        key = (client or f"connection-{conn.id}", document) if document is not None else None
        job = self.daemon.engine.submit(request, key)
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
            self.daemon.engine.cancel(job)

    async def rpc_status(self, conn: Connection, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        status = self.daemon.engine.status()
        devices = sorted({m.get("device") for m in status["models"] if m.get("device")})
        return {
            "pid": os.getpid(),
            "version": self.daemon.version,
            "protocol": wire.PROTOCOL_VERSION,
            "transport": self.daemon.transport,
            "address": self.daemon.address,
            "started": self.daemon.started,
            "uptime_s": round(time.time() - self.daemon.started, 1),
            "idle_timeout_s": self.daemon.config.idle_timeout,
            "idle_for_s": round(time.monotonic() - self.last_activity, 1),
            "device": ", ".join(devices) if devices else (self.daemon.config.engine.encoder.device or "auto (no model loaded yet)"),
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
