"""The GC pause is shared safely: overlapping pauses in threads leave the collector as it was; a
hold (the language server's pause for one scoring run) ends when it is released, from any thread."""

from __future__ import annotations

import gc
import threading

from refscore.parsing import gc_pause
from refscore.parsing.gc_pause import gc_paused, hold
from refscore.scoring.codebleu import score_codebleu


def test_overlapping_pauses_restore_the_collector() -> None:
    assert gc.isenabled()
    start = threading.Barrier(4)

    def work() -> None:
        start.wait()
        for index in range(30):
            score_codebleu(["x = 1\nfor i in range(3):\n    x += i\n"], f"y = {index}\n", "python")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert gc.isenabled()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_hold_lasts_until_released_from_another_thread_and_releases_once() -> None:
    assert gc.isenabled()
    release = hold()
    other = hold()
    assert not gc.isenabled()
    thread = threading.Thread(target=release)
    thread.start()
    thread.join()
    assert not gc.isenabled()  # the other hold still pauses it
    release()  # a second call changes nothing
    assert not gc.isenabled()
    other()
    assert gc.isenabled()


def test_a_hold_collects_first_when_too_much_was_left_to_collect(monkeypatch) -> None:
    monkeypatch.setattr(gc_pause, "MAX_DEFERRED", 500)
    release = hold()
    try:
        cycles = []
        for _ in range(2000):  # tracked allocations the paused collector leaves uncollected
            cycle: list = []
            cycle.append(cycle)
            cycles.append(cycle)
        del cycles
        assert gc.get_count()[0] > 500
        second = hold()  # a run that starts now finds more than MAX_DEFERRED: they are collected
        assert gc.get_count()[0] < 500
        second()
    finally:
        release()
    assert gc.isenabled()
