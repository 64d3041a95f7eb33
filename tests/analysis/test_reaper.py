"""What the caches evict in an editing process is freed on the reaper thread, only while no
scoring runs (``parsing.reaper``); in batch scoring it is freed where it is evicted."""

from __future__ import annotations

import gc
import time
import weakref

import pytest

from refscore.parsing import reaper
from refscore.parsing.memo import TextMemo
from tests.support.timing import hang_guard


class Analysis:
    """A stand-in for a cached analysis: something a weak reference can watch."""


@pytest.fixture
def deferred(monkeypatch):
    monkeypatch.setitem(reaper._state, "on", True)


def _evict_one(memo: TextMemo) -> weakref.ref:
    """Put one value in ``memo`` (one entry at most), evict it with another: its weak reference."""
    made = [Analysis()]
    watch = weakref.ref(made[0])
    memo("first", "tag", made.pop)  # the memo holds the only reference
    memo("second", "tag", Analysis)
    return watch


def _freed(watch: weakref.ref) -> bool:
    deadline = time.monotonic() + hang_guard(30)  # a guard only: the reaper frees within QUIET
    while watch() is not None:
        assert time.monotonic() < deadline, "an evicted value was never freed"
        time.sleep(0.02)
    return True


def test_batch_scoring_frees_an_evicted_value_at_once(monkeypatch) -> None:
    monkeypatch.setitem(reaper._state, "on", False)  # as in batch scoring (an editing process turns it on)
    memo: TextMemo[Analysis] = TextMemo(entries=1, chars=100)
    watch = _evict_one(memo)
    gc.collect()
    assert watch() is None


def test_an_editing_process_frees_it_on_the_reaper_after_scoring(deferred) -> None:
    memo: TextMemo[Analysis] = TextMemo(entries=1, chars=100)
    with reaper.busy():
        watch = _evict_one(memo)
        assert watch() is not None and reaper.held() >= 1  # not freed on the scoring path
        time.sleep(3 * reaper.QUIET)
        assert watch() is not None, "freed while scoring ran"
    assert _freed(watch)


def test_at_most_max_held_values_wait(deferred, monkeypatch) -> None:
    monkeypatch.setattr(reaper, "MAX_HELD", 3)
    memo: TextMemo[Analysis] = TextMemo(entries=1, chars=100)
    with reaper.busy():
        watches = []
        for number in range(6):
            made = [Analysis()]
            watches.append(weakref.ref(made[0]))
            memo(f"text {number}", "tag", made.pop)
        assert reaper.held() <= 3
        assert [w() is None for w in watches[:2]] == [True, True]  # the oldest, freed at once
    assert all(_freed(w) for w in watches[:-1])  # the last is still in the memo
