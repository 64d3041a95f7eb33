"""Planning and running the scoring work of an evaluation: what is missing from the store, in
which chunks, in how many processes (or as Ray tasks), with checkpoints into the scores file and
an estimate of the time left."""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from .data import Item
from .store import ScoreStore, item_key
from .tasks import Task, chunks, run_task, units

#: Groups scored first (cheap ones give early, checkpointed results).
ORDER = ("chrf", "crystalbleu", "codebleu", "canon", "errors", "tsed", "cbs")
#: ``--engine ray``: at most this many tasks per cluster CPU are submitted at once.
IN_FLIGHT_PER_CPU = 2


@dataclass
class Plan:
    """The tasks of a run and the per-dataset, per-group parameters they share."""

    tasks: list[Task] = field(default_factory=list)
    params: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    cached: dict[str, int] = field(default_factory=dict)  # "dataset/group" -> items found in the store


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def wants_group(config: Any, group: str, dataset: str) -> bool:
    """Whether ``group`` is scored on ``dataset`` (CodeBERTScore may be limited to some)."""
    if group not in config.metrics:
        return False
    return group != "cbs" or config.bert_datasets is None or dataset in config.bert_datasets


def group_params(group: str, config: Any, items: Sequence[Item]) -> dict[str, Any]:
    """Parameters a group computes once per dataset (CrystalBLEU's ignored n-grams)."""
    if group == "crystalbleu":
        from .signals import crystal_params

        return crystal_params(items, config.normalise == "all")
    return {}


def plan(config: Any, data: Mapping[str, Sequence[Item]], store: ScoreStore) -> Plan:
    """Tasks for every (dataset, group, context) whose items are not all in ``store``."""
    out = Plan()
    for dataset, items in data.items():
        distinct: dict[str, Item] = {}
        for item in items:
            distinct.setdefault(item_key(item), item)
        out.params[dataset] = {}
        for group in sorted(config.metrics, key=ORDER.index):
            if not wants_group(config, group, dataset):
                continue
            params = out.params[dataset][group] = group_params(group, config, items)
            for context in (config.contexts if group == "cbs" else [False]):
                specs = units(group, config, params, context)
                missing: dict[str, None] = {}
                for spec in specs:
                    missing.update(dict.fromkeys(store.missing(spec.name, spec.columns, distinct)))
                out.cached[f"{dataset}/{group}"] = len(distinct) - len(missing)
                todo = sorted(missing, key=lambda k: distinct[k].problem)
                todo_items = [distinct[k] for k in todo]
                for run in chunks(group, todo_items):
                    out.tasks.append(Task(group, dataset, [todo[i] for i in run],
                                          [todo_items[i] for i in run], context, params))
    # cheap groups first, then CodeBERTScore without context everywhere before any with context
    out.tasks.sort(key=lambda t: (ORDER.index(t.group), t.context))
    return out


# -- the time left: each group's own measured cost per item -----------------------------------------
# The groups differ by orders of magnitude (chrF in microseconds an item, CodeBERTScore a
# transformer pass) and the cheap ones run first, so one rate over all items promised a minute
# when ten were left. Each (group, context) is timed from its own finished tasks (once a second one
# is in, without the first: it carries the model's load); a group not timed yet borrows its other
# context's rate, else its items are named as not counted.


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


def _store_result(store: ScoreStore, task: Task, config: Any,
                  result: Mapping[str, Mapping[str, Sequence[float]]]) -> None:
    for spec in units(task.group, config, task.params, task.context):
        store.put(spec.name, spec.columns, task.keys, result[spec.name])


def execute(work: Plan, config: Any, store: ScoreStore, checkpoint_s: float,
            meta: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run every task (in ``config.jobs`` processes), storing results as they arrive and
    checkpointing the store; returns timing notes per dataset and group. On an interrupt the
    finished work is saved before the interrupt propagates."""
    notes: dict[str, Any] = {"cached_items": dict(work.cached), "seconds": {}, "failures": {}}
    total = sum(len(t.items) for t in work.tasks)
    if not total:
        return notes
    _log(f"scoring {total} item-groups in {len(work.tasks)} tasks with {config.jobs} process(es)")
    start = last_save = time.monotonic()
    done = 0
    remaining = Remaining(work.tasks)

    def finished(task: Task, result: Any, task_notes: Mapping[str, Any]) -> None:
        nonlocal done, last_save
        _store_result(store, task, config, result)
        key = f"{task.dataset}/{task.group}"
        notes["seconds"][key] = notes["seconds"].get(key, 0.0) + task_notes["seconds"]
        store.seconds[key] = store.seconds.get(key, 0.0) + task_notes["seconds"]
        if task_notes.get("failures"):
            notes["failures"][key] = notes["failures"].get(key, 0) + task_notes["failures"]
        done += len(task.items)
        remaining.finished(task, task_notes["seconds"])
        elapsed = time.monotonic() - start
        _log(f"  {done}/{total} ({key}, {elapsed:.0f}s, {describe(*remaining.estimate(elapsed))})")
        if store.path is not None and time.monotonic() - last_save > checkpoint_s:
            store.save(meta())
            last_save = time.monotonic()

    try:
        if getattr(config, "engine", "local") == "ray":
            _run_on_ray(work.tasks, config, finished)
        elif config.jobs > 1 and len(work.tasks) > 1:
            _run_pool(work.tasks, config, finished)
        else:
            for task in work.tasks:
                result, task_notes = run_task(task, config)
                finished(task, result, task_notes)
        store.runs.append(_run_record(config, done, start, interrupted=False))
    except BaseException:
        store.runs.append(_run_record(config, done, start, interrupted=True))
        if store.path is not None:
            store.save(meta())
            _log(f"interrupted: {store.rows()} cached rows saved to {store.path}; run the same "
                 "command again to continue")
        raise
    return notes


def _run_record(config: Any, items: int, start: float, interrupted: bool) -> dict[str, Any]:
    """What one scoring run did (kept in the scores file; the report states it)."""
    import datetime

    return {"date": datetime.date.today().isoformat(), "wall_s": round(time.monotonic() - start, 1),
            "jobs": config.jobs, "metrics": list(config.metrics), "item_groups": items,
            "interrupted": interrupted}


def _run_pool(tasks: Sequence[Task], config: Any, finished: Callable[..., None]) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(config.jobs, mp_context=context) as pool:
        pending = {}
        queue = list(tasks)
        try:
            while queue or pending:
                while queue and len(pending) < 2 * config.jobs:  # bounded: results stream in
                    task = queue.pop(0)
                    pending[pool.submit(run_task, task, config)] = task
                ready, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in ready:
                    task = pending.pop(future)
                    result, task_notes = future.result()
                    finished(task, result, task_notes)
        except BaseException:  # interrupted: stop the workers now, their chunks are rescored later
            for future in pending:
                future.cancel()
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
            raise


def _run_on_ray(tasks: Sequence[Task], config: Any, finished: Callable[..., None]) -> None:
    """``--engine ray``: each task is a Ray task running ``run_task`` (the code one machine runs,
    so the tables and the analysis are the same) on the cluster at ``config.ray_address``;
    ``finished(task, result, notes)`` as each completes (at most ``IN_FLIGHT_PER_CPU`` per cluster
    CPU in flight). CodeBERTScore tasks take one GPU each when the cluster has GPUs; a task whose
    worker dies is retried by Ray. An interrupt cancels what is still running."""
    import ray

    from ..scale.cluster import connect

    cluster = connect(getattr(config, "ray_address", None))
    cpus = max(1, int(config.threads or 1))
    plain = ray.remote(num_cpus=cpus)(run_task)
    on_gpu = ray.remote(num_cpus=cpus, num_gpus=1)(run_task) if cluster.gpus >= 1 else plain
    limit = max(2, IN_FLIGHT_PER_CPU * int(cluster.cpus))
    queue = list(tasks)
    pending: dict[Any, Any] = {}
    try:
        while queue or pending:
            while queue and len(pending) < limit:
                task = queue.pop(0)
                remote = on_gpu if task.group == "cbs" else plain
                pending[remote.remote(task, config)] = task
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                task = pending.pop(ref)
                result, notes = ray.get(ref)
                finished(task, result, notes)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
