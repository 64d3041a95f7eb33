"""The worker process pauses the cyclic collector while a call runs and collects after its
answer went out: a call never waits for a collection, and what a call leaves behind is freed
before the next one (service/worker.py)."""

from __future__ import annotations

import gc
from typing import Iterator

import pytest

from refscore.service.worker import FULL_COLLECTION_EVERY, FULL_COLLECTION_FORCED, ProcessWorker, full_collection_due
from tests.support import worker_calls


@pytest.fixture
def worker() -> Iterator[ProcessWorker]:
    started = ProcessWorker("RefScore test worker")
    yield started
    started.kill()


def test_no_collection_runs_during_a_call(worker: ProcessWorker) -> None:
    assert worker.call(gc.isenabled) is False
    assert gc.isenabled()  # this process is left as it was


def test_cycles_a_call_leaves_are_collected_before_the_next_call(worker: ProcessWorker) -> None:
    for _ in range(5):
        worker.call(worker_calls.make_cycle)
        assert worker.call(worker_calls.cycles_alive) == 0


def test_a_failing_call_is_answered_and_the_worker_serves_on(worker: ProcessWorker) -> None:
    with pytest.raises(ValueError, match="the call failed"):
        worker.call(worker_calls.fail)
    worker.call(worker_calls.make_cycle)
    assert worker.call(worker_calls.cycles_alive) == 0
    assert worker.call(gc.isenabled) is False


def test_a_full_collection_waits_for_a_pause_and_is_forced_at_last() -> None:
    asked: list[int] = []

    def idle(answer: bool):
        return lambda: asked.append(1) or answer

    assert not full_collection_due(FULL_COLLECTION_EVERY - 1, idle(True)) and not asked  # not due: no wait
    assert full_collection_due(FULL_COLLECTION_EVERY, idle(True)) and len(asked) == 1
    assert not full_collection_due(FULL_COLLECTION_EVERY + 1, idle(False))  # typing goes on: later
    assert full_collection_due(FULL_COLLECTION_FORCED, idle(False))
