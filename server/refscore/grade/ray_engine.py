"""Grading on a Ray cluster with Ray Data: the same blocks, requests and Scorer as one machine.

The driver reads the inputs once to plan blocks (``blocks.scan_blocks``; gzip and Parquet blocks
are spooled to ``<work>/input`` so any worker can read them) and skips blocks whose parts exist.
Ray Data then runs, per pending block:

1. a CPU task: read the block, build the requests, CodeBLEU (``LocalScorer.score_codebleu``)
   and warnings (``block_score.cpu_stage``);
2. with CodeBERTScore, an actor of a pool (one loaded model per actor; ``num_gpus=1`` and half
   precision when the cluster has GPUs): ``LocalScorer.add_codebertscore`` per batch;
3. the last stage writes the block's part atomically (``parts.PartStore``), keyed by the block's
   content hash, and returns only counts.

A task or actor killed mid-block is retried by Ray; its part is written whole or not at all, under
the same name, so items are neither lost nor doubled. The driver then assembles the reports from
the parts (``assemble``). ``work`` (and the inputs) must be on storage every node sees.

From Python::

    from refscore.grade.ray_engine import grade_dataset
    grade_dataset(["completions.jsonl.gz"], "out/", metrics=("codebleu",), address="auto")
"""

from __future__ import annotations

import json
import os
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..errors import RefScoreError
from ..scale.cluster import Cluster, RayUnavailable, connect
from .assemble import Assembled, BlockRef, assemble
from .block_run import BlockJob, BlockRun
from .block_score import Staged, bert_stage, cpu_stage, settings_from_dict, settings_to_dict
from .blocks import DEFAULT_BLOCK_LINES, BlockSpec, items_of, read_block, scan_blocks
from .parts import PartStore
from .progress import Progress
from .runner import GradeSettings, scorer_tag


class RayJobFailed(RefScoreError):
    """The Ray job stopped; the parts written so far are kept for a rerun."""


def device_kind(cluster: Cluster, settings: GradeSettings) -> str:
    """Where CodeBERTScore runs on this cluster: ``cuda`` when it has GPUs (and no device is set)."""
    if settings.device:
        return "cuda" if settings.device.startswith("cuda") else settings.device
    return "cuda" if cluster.gpus >= 1 else "cpu"


def run_ray(job: BlockJob, cluster: Cluster, progress: Progress, actors: int | None = None,
            actors_per_gpu: int = 1) -> BlockRun:
    """Plan, skip what parts hold, score the rest on the cluster; the run's blocks and counts.
    ``actors``: size of the model's actor pool (default: one per GPU, else one per CPU);
    ``actors_per_gpu`` > 1 shares each GPU between that many actors (each actor's CPU-side work,
    tokenizing and matching, would otherwise leave a fast GPU waiting)."""
    store, run = job.store, BlockRun()
    pending: list[dict[str, str]] = []
    for spec, _ in scan_blocks(job.inputs, job.block_lines, job.tag(), spool_dir=job.work / "input"):
        run.items += spec.items
        done = store.done_offsets(spec.index, spec.key, spec.items)
        if done is None:
            run.blocks.append(BlockRef(spec.index, spec.key, spec.items, None))
            run.from_before += spec.items
            progress.update(cached=spec.items, skipped=spec.lines - spec.items)
            continue
        run.blocks.append(BlockRef(spec.index, spec.key, spec.items, frozenset(done)))
        run.from_before += len(done)
        progress.update(cached=len(done), skipped=spec.lines - spec.items)
        pending.append({"spec": spec.to_json(), "skip": json.dumps(sorted(done))})
    try:
        if pending:
            for count in _execute(pending, job, cluster, actors, max(1, actors_per_gpu)):
                run.scored += count
                progress.update(scored=count)
    finally:
        progress.close()
    return run


def _execute(pending: list[dict[str, str]], job: BlockJob, cluster: Cluster, actors: int | None,
             per_gpu: int) -> Iterable[int]:
    """Run the pipeline; yields the number of items of each part written."""
    with warnings.catch_warnings():  # Ray Data's deprecation notes and advice on concurrency
        warnings.simplefilter("ignore")
        ds = _dataset(pending, job, cluster, actors, per_gpu)
        try:
            for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
                for count in batch["items"]:
                    yield int(count)
        except Exception as error:  # noqa: BLE001 - RayError, Ray Data's UserCodeException...: one line
            text = str(error).strip().splitlines()
            raise RayJobFailed(f"the Ray job failed ({type(error).__name__}: {text[-1] if text else ''}); "
                               f"rerun the same command to resume (scored blocks are kept in {job.work})") from None


def _dataset(pending: list[dict[str, str]], job: BlockJob, cluster: Cluster, actors: int | None,
             per_gpu: int) -> Any:
    """The Ray Data pipeline: read + CodeBLEU tasks, then (with CodeBERTScore) the model's actors."""
    import ray

    common = {"settings": settings_to_dict(job.settings), "language": job.language,
              "parts": str((job.work / "parts").resolve())}
    bert = "codebertscore" in job.settings.metrics
    gpus = cluster.gpus >= 1 and not (job.settings.device or "cuda").startswith("cpu")
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


def read_and_codebleu(batch: dict[str, Any], settings: dict[str, Any], language: str | None, parts: str,
                      final: bool) -> dict[str, Any]:
    """Stage one (a CPU task per block): read, build requests, CodeBLEU and warnings; the block's
    part when nothing else is to be scored, else the staged items for the model's actors."""
    import numpy as np

    from ..scoring.scorer import LocalScorer

    grade_settings = settings_from_dict(settings)
    out: dict[str, list[Any]] = {"block": [], "key": [], "staged": []}
    written: dict[int, int] = {}
    for spec_text, skip_text in zip(batch["spec"], batch["skip"]):
        spec = BlockSpec.from_json(str(spec_text))
        skip = set(json.loads(str(skip_text)))
        items = [(o, item) for o, item in items_of(spec.name, spec.first_line, read_block(spec), language)
                 if o not in skip]
        staged = cpu_stage(items, grade_settings, LocalScorer())
        if final:
            PartStore(parts).write(spec.index, spec.key, [(s.offset, s.row()) for s in staged])
            written[spec.index] = len(staged)
            continue
        for s in staged:
            out["block"].append(spec.index)
            out["key"].append(spec.key)
            out["staged"].append(s.to_json())
    if final:
        return _counts(written)
    return {"block": np.array(out["block"], dtype=np.int64), "key": np.array(out["key"], dtype=object),
            "staged": np.array(out["staged"], dtype=object)}


class BertStage:
    """Stage two (an actor holding one model): CodeBERTScore per batch, then the block's part."""

    def __init__(self, settings: dict[str, Any], language: str | None, parts: str) -> None:
        from ..scoring.scorer import LocalScorer

        self.settings = settings_from_dict(settings)
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
            bert_stage(staged, self.settings, self.scorer)
            self.parts.write(block, key, [(s.offset, s.row()) for s in staged])
            written[block] = written.get(block, 0) + len(staged)
        return _counts(written)


def _stage_with(common: dict[str, Any]) -> type:
    """``BertStage`` bound to this job's settings (shipped with the class, not as constructor
    arguments in the object store, which a restarted actor could find gone)."""

    class JobBertStage(BertStage):
        def __init__(self) -> None:
            super().__init__(**common)

    return JobBertStage


def grade_dataset(inputs: Sequence[str | Path], out_dir: str | Path, *, metrics: Sequence[str] = ("codebleu",),
                  language: str | None = None, address: str | None = None, work: str | Path | None = None,
                  block_lines: int = DEFAULT_BLOCK_LINES, batch_size: int = 32, model: str | None = None,
                  layer: int | None = None, device: str | None = None, idf: str | None = None,
                  codebleu_rule: str = "native", actors: int | None = None, actors_per_gpu: int = 1,
                  title: str = "RefScore grade report") -> Assembled:
    """Grade JSONL / JSONL.gz / Parquet inputs on the cluster at ``address`` and write
    ``grade.{csv,json,jsonl,parquet,html}`` into ``out_dir`` (parts in ``work``, default
    ``out_dir/grade.parts``). Rerunning resumes. Returns the assembled summary."""
    from .. import __version__
    from ..metrics.codebleu import DEFAULT_WEIGHTS

    out = Path(out_dir).resolve()
    settings = GradeSettings(tuple(metrics), DEFAULT_WEIGHTS, batch_size, scorer_tag(model, layer, device, idf),
                             codebleu_rule, model, layer, device, idf, explain=False)  # blocks keep no detail
    cluster = connect(address)
    job = BlockJob([Path(p).resolve() for p in inputs], settings, Path(work or out / "grade.parts").resolve(),
                   language, block_lines, device_kind(cluster, settings))
    run = run_ray(job, cluster, Progress(0, enabled=False), actors, actors_per_gpu)
    outputs = {kind: out / f"grade.{kind}" for kind in ("csv", "json", "jsonl", "parquet", "html")}
    info = {"refscore_version": __version__, "engine": "ray", "metrics": list(metrics),
            "weights": list(settings.weights), "codebleu_rule": codebleu_rule, "scorer": settings.scorer_tag,
            "scored_now": run.scored, "from_cache": run.from_before}
    job.store.refresh()
    rank = "codebleu" if "codebleu" in metrics else "codebertscore_f1"
    return assemble(run.blocks, PartStore(job.work / "parts"), outputs, info, title, rank)


__all__ = ["RayUnavailable", "RayJobFailed", "grade_dataset", "run_ray"]
