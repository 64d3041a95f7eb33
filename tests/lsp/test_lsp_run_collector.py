"""A scoring run pauses the cyclic collector until it ends (``ScoringLoop._run``,
``gc_pause.hold``): the collections an edit's allocations call for come after its last publish,
not inside the update; a run cancelled by a newer edit releases it too."""

from __future__ import annotations

import asyncio
import gc

import pytest

from refscore.lsp.app import build_server

pytestmark = pytest.mark.asyncio


async def test_a_run_pauses_the_collector_until_it_ends_or_is_cancelled(monkeypatch) -> None:
    server = build_server(allow_daemon=False)
    seen: list[bool] = []
    started = asyncio.Event()

    async def score(uri: str, immediate: bool) -> None:
        seen.append(gc.isenabled())
        started.set()
        await asyncio.sleep(0 if uri.endswith("done.py") else 60)
        seen.append(gc.isenabled())

    monkeypatch.setattr(server.loop, "_score", score)
    assert gc.isenabled()
    await server.loop._run("file:///w/done.py", True)
    assert seen == [False, False]
    assert gc.isenabled()
    started.clear()
    task = asyncio.create_task(server.loop._run("file:///w/cancelled.py", True))
    await started.wait()
    assert not gc.isenabled()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gc.isenabled()
    server.loop.shutdown()
