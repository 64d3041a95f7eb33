"""Planning and running the scoring work of an evaluation: what is missing from the store, in
which chunks, in how many processes, with checkpoints into the scores file."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .data import Item
from .eta import Remaining, describe
from .store import ScoreStore, item_key
from .tasks import Task, chunks, run_task, units

#: Groups scored first (cheap ones give early, checkpointed results).
ORDER = ("chrf", "crystalbleu", "codebleu", "canon", "errors", "tsed", "cbs")


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
            from .ray_tasks import run_tasks_on_ray

            run_tasks_on_ray(work.tasks, config, finished)
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
