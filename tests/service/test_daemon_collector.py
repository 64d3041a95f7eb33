"""The daemon pauses the cyclic collector while a score request runs and its answer is written
(``Dispatcher._call``, ``gc_pause.hold``): a 2,000-line file's answer (24,000 token alignments and
their JSON) no longer waits for the collections its allocations call for; other methods and a
failed request leave the collector as it was."""

from __future__ import annotations

import asyncio
import gc
from types import SimpleNamespace
from typing import Any

import pytest

from refscore.service.daemon_rpc import Connection, Dispatcher

pytestmark = pytest.mark.asyncio


class _Writer:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.enabled_when_written: list[bool] = []

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        self.sent.append(data)
        self.enabled_when_written.append(gc.isenabled())

    async def drain(self) -> None:
        await asyncio.sleep(0)


async def test_a_score_request_pauses_the_collector_until_its_answer_is_written(monkeypatch) -> None:
    dispatcher = Dispatcher(SimpleNamespace(token=None))
    writer = _Writer()
    conn = Connection(writer, authorized=True)  # type: ignore[arg-type]
    seen: list[bool] = []

    async def score(conn: Any, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        seen.append(gc.isenabled())
        if params.get("fail"):
            raise ValueError("a bad request")
        return {"language": "python"}

    async def ping(conn: Any, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
        seen.append(gc.isenabled())
        return {}

    monkeypatch.setattr(dispatcher, "rpc_score", score)
    monkeypatch.setattr(dispatcher, "rpc_ping", ping)
    assert gc.isenabled()
    await dispatcher._call(conn, "score", 1, False, {})
    assert seen == [False] and writer.enabled_when_written == [False]  # paused through the write
    assert gc.isenabled()
    await dispatcher._call(conn, "score", 2, False, {"fail": True})
    assert seen[-1] is False and gc.isenabled()  # released after an error answer too
    await dispatcher._call(conn, "ping", 3, False, {})
    assert seen[-1] is True  # other methods: not paused
    assert len(writer.sent) == 3
