"""The evaluation's progress line: time left from each group's own cost, not one rate for all."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from refscore.eval.execute import Remaining, describe


@dataclass
class T:
    group: str
    context: bool = False
    items: list = field(default_factory=lambda: [0] * 100)


def test_a_group_not_timed_yet_is_named_not_priced_at_the_cheap_rate() -> None:
    tasks = [T("chrf"), T("chrf"), T("cbs"), T("cbs")]
    left = Remaining(tasks)
    left.finished(tasks[0], 0.1)  # chrF: 1 ms an item
    seconds, untimed = left.estimate(elapsed=0.1)
    assert seconds == pytest.approx(0.1)  # only chrF's last task is priced
    assert untimed == {"cbs": 200}
    assert describe(seconds, untimed) == ("about 0s left for the groups timed so far; 200 CodeBERTScore "
                                          "item-groups not timed yet")


def test_each_group_at_its_own_rate_once_timed() -> None:
    tasks = [T("chrf"), T("chrf"), T("cbs"), T("cbs"), T("cbs")]
    left = Remaining(tasks)
    left.finished(tasks[0], 0.1)
    left.finished(tasks[1], 0.1)
    left.finished(tasks[2], 10.0)  # a transformer: 100 ms an item
    seconds, untimed = left.estimate(elapsed=10.2)
    assert untimed == {}
    assert seconds == pytest.approx(20.0)  # two CodeBERTScore tasks, not 300 items at the mean rate
    assert describe(seconds, untimed) == "about 20s left"


def test_parallel_processes_shorten_the_wall_time_left() -> None:
    tasks = [T("cbs") for _ in range(4)]
    left = Remaining(tasks)
    left.finished(tasks[0], 10.0)
    left.finished(tasks[1], 10.0)  # two processes: 20 s of work in 10 s of wall time
    seconds, _ = left.estimate(elapsed=10.0)
    assert seconds == pytest.approx(10.0)


def test_with_context_borrows_the_rate_without_until_timed() -> None:
    tasks = [T("cbs"), T("cbs", context=True)]
    left = Remaining(tasks)
    left.finished(tasks[0], 5.0)
    seconds, untimed = left.estimate(elapsed=5.0)
    assert untimed == {} and seconds == pytest.approx(5.0)


def test_the_first_task_of_a_group_stops_counting_once_a_second_is_in() -> None:
    tasks = [T("cbs") for _ in range(4)]
    left = Remaining(tasks)
    left.finished(tasks[0], 60.0)  # 50 s of it loading the model
    assert left.estimate(elapsed=60.0)[0] == pytest.approx(180.0)  # all that is known
    left.finished(tasks[1], 10.0)
    assert left.estimate(elapsed=70.0)[0] == pytest.approx(20.0)  # two tasks at 10 s
