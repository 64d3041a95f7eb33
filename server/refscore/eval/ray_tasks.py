"""``refscore eval --engine ray``: the evaluation's scoring tasks run on a Ray cluster.

The evaluation plans its work as tasks (``eval.execute.plan``: one metric group on a chunk of
distinct items); here each task is a Ray task running ``eval.tasks.run_task``, the code one
machine runs, so the tables and the analysis are the same. Results stream back as tasks finish
(at most ``IN_FLIGHT_PER_CPU`` tasks per cluster CPU are submitted at once) and go through the
same ``finished`` callback as the local process pool: stored, checkpointed, resumable. A task
whose worker dies is retried by Ray. CodeBERTScore tasks take one GPU each when the cluster has
GPUs (a worker keeps its encoder between tasks, as a pool process does).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..scale.cluster import connect

IN_FLIGHT_PER_CPU = 2


def _run(task: Any, config: Any) -> Any:
    from .tasks import run_task

    return run_task(task, config)


def run_tasks_on_ray(tasks: Sequence[Any], config: Any, finished: Callable[..., None]) -> None:
    """Run ``tasks`` on the cluster at ``config.ray_address``; ``finished(task, result, notes)``
    as each completes. An interrupt cancels what is still running."""
    import ray

    cluster = connect(getattr(config, "ray_address", None))
    cpus = max(1, int(config.threads or 1))
    plain = ray.remote(num_cpus=cpus)(_run)
    on_gpu = ray.remote(num_cpus=cpus, num_gpus=1)(_run) if cluster.gpus >= 1 else plain
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
