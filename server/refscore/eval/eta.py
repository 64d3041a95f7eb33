"""How long an evaluation has left, from each group's own measured cost per item.

The groups differ by orders of magnitude (chrF in microseconds an item, CodeBERTScore a
transformer pass) and the cheap ones run first, so one rate over all items promised a minute
when ten were left. Each (group, context) is timed from its own finished tasks (once a second one
is in, without the first: it carries the model's load); a group not timed yet borrows its other
context's rate, else its items are named as not counted.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Protocol


class TaskLike(Protocol):
    group: str
    context: bool

    @property
    def items(self) -> list: ...


class Remaining:
    """Items left per (group, context) and the measured seconds per item of each."""

    def __init__(self, tasks: Iterable[TaskLike]) -> None:
        self.left: dict[tuple[str, bool], int] = defaultdict(int)
        for task in tasks:
            self.left[(task.group, task.context)] += len(task.items)
        self.spent: dict[tuple[str, bool], float] = defaultdict(float)
        self.timed: dict[tuple[str, bool], int] = defaultdict(int)
        self.first: dict[tuple[str, bool], tuple[float, int]] = {}  # the first task's seconds, items

    def finished(self, task: TaskLike, seconds: float) -> None:
        """``task`` is done; it took ``seconds`` of work (in its process)."""
        key = (task.group, task.context)
        self.left[key] -= len(task.items)
        self.spent[key] += max(0.0, seconds)
        self.timed[key] += len(task.items)
        self.first.setdefault(key, (max(0.0, seconds), len(task.items)))

    def _rate(self, key: tuple[str, bool]) -> float | None:
        for k in (key, (key[0], not key[1])):
            if self.timed.get(k):
                seconds, items = self.spent[k], self.timed[k]
                first_seconds, first_items = self.first[k]
                if items > first_items:
                    seconds, items = seconds - first_seconds, items - first_items
                return seconds / items
        return None

    def estimate(self, elapsed: float) -> tuple[float, dict[str, int]]:
        """Wall seconds left for the timed groups (their work scaled by this run's wall per work
        second: parallel processes and overheads), and the items of groups not timed yet."""
        work_left, untimed = 0.0, defaultdict(int)
        for key, count in self.left.items():
            if count <= 0:
                continue
            rate = self._rate(key)
            if rate is None:
                untimed[key[0]] += count
            else:
                work_left += rate * count
        busy = sum(self.spent.values())
        return (work_left * elapsed / busy if busy > 0 else 0.0), dict(untimed)


#: How a group is named in the progress line.
GROUP_NAMES = {"cbs": "CodeBERTScore", "codebleu": "CodeBLEU", "crystalbleu": "CrystalBLEU", "chrf": "chrF",
               "tsed": "TSED", "canon": "canonical n-gram", "errors": "parse-error"}


def describe(seconds: float, untimed: dict[str, int]) -> str:
    """``about 38s left`` and, while some groups are not timed, which items that leaves out."""
    text = f"about {seconds:.0f}s left"
    if untimed:
        parts = ", ".join(f"{count:,} {GROUP_NAMES.get(group, group)}" for group, count in sorted(untimed.items()))
        text += f" for the groups timed so far; {parts} item-groups not timed yet"
    return text
