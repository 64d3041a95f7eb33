"""Grading on a Ray cluster with Ray Data: the same blocks, requests and Scorer as one machine.

The driver reads the inputs once to plan blocks (``plan.plan_run`` with a spool folder: gzip and
Parquet blocks and submissions read into memory are spooled to ``<work>/input`` so any worker can
read them) and skips blocks whose parts exist. Ray Data then runs, per pending block:

1. a CPU task: read the block, build the requests, the pipeline's CPU stage (CodeBLEU, chrF,
   TSED; ``block_score.cpu_stage``); without CodeBERTScore it runs every stage (CrystalBLEU and
   ``finish`` included), annotates the items (warnings, per-function scores) and writes the
   block's part;
2. with CodeBERTScore, an actor of a pool (one loaded model per actor; ``num_gpus=1`` and half
   precision when the cluster has GPUs): the remaining stages on the CPU stage's results
   (``pipeline.run_stages``: the model batched, CrystalBLEU, ``finish``; ``block_score.bert_stage``),
   the same annotations, then the block's part, written atomically (``parts.PartStore``) under the
   block's key; only counts come back.

A task or actor killed mid-block is retried by Ray; its part is written whole or not at all, under
the same name, so items are neither lost nor doubled. The driver then assembles the reports from
the parts (``assemble``). ``work`` (and the inputs) must be on storage every node sees.

From Python: ``refscore.grade.dataset.grade_dataset``.
"""

from __future__ import annotations

import json
import os
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable

from ..errors import RefScoreError
from ..scale.cluster import Cluster, RayUnavailable
from .block_score import Staged, bert_stage, cpu_stage
from .blocks import BlockSpec, read_items
from .local_engine import EngineRun
from .parts import PartStore
from .plan import BlockWork, Plan
from .progress import Progress
from .settings import GradeSettings


class RayJobFailed(RefScoreError):
    """The Ray job stopped; the parts written so far are kept for a rerun."""


def device_kind(cluster: Cluster, settings: GradeSettings) -> str:
    """Where CodeBERTScore runs on this cluster: ``cuda`` when it has GPUs (and no device is set)."""
    if settings.device:
        return "cuda" if settings.device.startswith("cuda") else settings.device
    return "cuda" if cluster.gpus >= 1 else "cpu"


def run_ray(plan: Plan, work_dir: Path, cluster: Cluster, progress: Progress, actors: int | None = None,
            actors_per_gpu: int = 1) -> EngineRun:
    """Score the plan's pending blocks on the cluster. ``actors``: size of the model's actor pool
    (default: one per GPU, else one per CPU); ``actors_per_gpu`` > 1 shares each GPU between that
    many actors (each actor's CPU-side work, tokenizing and matching, would otherwise leave a fast
    GPU waiting). Ctrl-C stops the driver; the parts written stay."""
    run = EngineRun()
    pending = [{"spec": b.spec.to_json(), "key": b.key, "skip": json.dumps(sorted(b.before or ()))}
               for b in plan.pending]
    if not pending:
        return run
    try:
        for count in _execute(pending, plan.work, work_dir, cluster, actors, max(1, actors_per_gpu)):
            run.scored += count
            progress.update(scored=count)
    except KeyboardInterrupt:
        run.interrupted = True
    return run


def _execute(pending: list[dict[str, str]], work: BlockWork, work_dir: Path, cluster: Cluster,
             actors: int | None, per_gpu: int) -> Iterable[int]:
    """Run the pipeline; yields the number of items of each part written."""
    with warnings.catch_warnings():  # Ray Data's deprecation notes and advice on concurrency
        warnings.simplefilter("ignore")
        ds = _dataset(pending, work, work_dir, cluster, actors, per_gpu)
        try:
            for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
                for count in batch["items"]:
                    yield int(count)
        except Exception as error:  # noqa: BLE001 - RayError, Ray Data's UserCodeException...: one line
            text = str(error).strip().splitlines()
            raise RayJobFailed(f"the Ray job failed ({type(error).__name__}: {text[-1] if text else ''}); "
                               f"rerun the same command to resume (scored blocks are kept in {work_dir})") from None


def _dataset(pending: list[dict[str, str]], work: BlockWork, work_dir: Path, cluster: Cluster,
             actors: int | None, per_gpu: int) -> Any:
    """The Ray Data pipeline: read + CodeBLEU tasks, then (with CodeBERTScore) the model's actors."""
    import ray

    common = {"work": work.to_dict(), "parts": str((work_dir / "parts").resolve())}
    bert = "codebertscore" in work.settings.metrics
    gpus = cluster.gpus >= 1 and not (work.settings.device or "cuda").startswith("cpu")
    ds = ray.data.from_items(pending, override_num_blocks=len(pending))
    # with CodeBERTScore on CPUs, CodeBLEU (a tenth of the work) takes a quarter CPU beside each actor
    ds = ds.map_batches(read_and_codebleu, batch_size=1, batch_format="numpy",
                        fn_kwargs={**common, "final": not bert}, num_cpus=1 if (gpus or not bert) else 0.25)
    if bert:
        size = min(len(pending), actors or max(1, int(cluster.gpus * per_gpu if gpus else cluster.cpus)))
        ds = ds.map_batches(_stage_with(common), batch_size=None, batch_format="numpy", concurrency=size,
                            num_gpus=1 / per_gpu if gpus else 0, num_cpus=1 if gpus else 0.75)
    return ds


def _counts(done: dict[int, int]) -> dict[str, Any]:
    import numpy as np

    return {"block": np.array(list(done), dtype=np.int64), "items": np.array(list(done.values()), dtype=np.int64)}


def read_and_codebleu(batch: dict[str, Any], work: dict[str, Any], parts: str, final: bool) -> dict[str, Any]:
    """Stage one (a CPU task per block): read, build requests, CodeBLEU; the block's part when
    nothing else is to be scored, else the staged items for the model's actors."""
    import numpy as np

    from ..scoring.scorer import LocalScorer

    block_work = BlockWork.from_dict(work)
    out: dict[str, list[Any]] = {"block": [], "key": [], "staged": []}
    written: dict[int, int] = {}
    for spec_text, key, skip_text in zip(batch["spec"], batch["key"], batch["skip"]):
        spec = BlockSpec.from_json(str(spec_text))
        skip = set(json.loads(str(skip_text)))
        items = [(o, item) for o, item in read_items(spec, block_work.language, block_work.fields) if o not in skip]
        staged = cpu_stage(items, block_work, LocalScorer(), final)
        if final:
            PartStore(parts).write(spec.index, str(key), [s.entry(block_work.detail) for s in staged])
            written[spec.index] = len(staged)
            continue
        for s in staged:
            out["block"].append(spec.index)
            out["key"].append(str(key))
            out["staged"].append(s.to_json(explain=block_work.detail))
    if final:
        return _counts(written)
    return {"block": np.array(out["block"], dtype=np.int64), "key": np.array(out["key"], dtype=object),
            "staged": np.array(out["staged"], dtype=object)}


class BertStage:
    """Stage two (an actor holding one model): CodeBERTScore per batch, then the block's part."""

    def __init__(self, work: dict[str, Any], parts: str) -> None:
        from ..scoring.scorer import LocalScorer

        self.work = BlockWork.from_dict(work)
        self.parts = PartStore(parts)
        self.scorer = LocalScorer()
        threads = int(os.environ.get("OMP_NUM_THREADS") or 1)
        try:
            import torch

            torch.set_num_threads(max(1, threads))
        except ImportError:  # scoring reports the missing model per item
            pass

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        groups: "OrderedDict[tuple[int, str], list[Staged]]" = OrderedDict()
        for block, key, text in zip(batch["block"], batch["key"], batch["staged"]):
            groups.setdefault((int(block), str(key)), []).append(Staged.from_json(str(text)))
        written: dict[int, int] = {}
        for (block, key), staged in groups.items():
            bert_stage(staged, self.work, self.scorer)
            self.parts.write(block, key, [s.entry(self.work.detail) for s in staged])
            written[block] = written.get(block, 0) + len(staged)
        return _counts(written)


def _stage_with(common: dict[str, Any]) -> type:
    """``BertStage`` bound to this job's settings (shipped with the class, not as constructor
    arguments in the object store, which a restarted actor could find gone)."""

    class JobBertStage(BertStage):
        def __init__(self) -> None:
            super().__init__(**common)

    return JobBertStage


__all__ = ["RayUnavailable", "RayJobFailed", "run_ray"]
