"""The daemon's engine: the stages of ``scoring.pipeline``, CPU metrics in a thread pool and
CodeBERTScore coalesced into device batches, then ``finish``.

A ``Job`` is one score request, ``prepare``d when it arrives. It has up to two stages that run at
the same time:

* the CPU stage (``pipeline.cpu_metrics``: CodeBLEU, chrF, TSED), in a ``ThreadPoolExecutor``
  (``workers`` threads);
* the model stage (``pipeline.model_metrics``), queued for the one batcher thread, which takes
  everything queued from every client (after waiting ``batch_wait`` seconds for stragglers) up to
  ``max_batch`` requests and scores them in one call, so the model sees large batches even when
  each client sends one request at a time.

When both are done, ``pipeline.finish`` builds the report (the combined number included), so the
daemon answers finished reports; the corpus stage (CrystalBLEU) is the client's.

Large requests (over ``large_chars`` characters) take lanes of their own (``lanes``): CodeBLEU in
worker processes (``large_workers`` at once), CodeBERTScore in a batcher thread of their own, so
they never hold up small ones.

A job that is superseded (a newer job with the same key: client + document) or cancelled (its
client asked, or disconnected) fails with ``Cancelled`` at once; stages not yet started never run,
and a large CodeBLEU stage already running is stopped (its worker process is killed).

Model loading happens in the batcher thread, so requests that arrive while the model loads simply
wait in the queue. A model that fails to load is remembered (per model and layer, ``model_loads``)
and reported in each CodeBERTScore result with what to do, once per request, without retrying the
load; CodeBLEU is unaffected.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Hashable

from ..scoring.bert import model_error
from ..scoring.parts import NO_CPU, NO_MODEL, CpuScores, ModelScores
from ..scoring.pipeline import cpu_metrics, finish, model_metrics, wants_cpu, wants_model
from ..scoring.report import ScoreRequest
from ..settings_schema import NO_ENCODER_CHOICE, EncoderChoice
from .lanes import DEFAULT_LARGE_CHARS, Cancelled, Job, LargeCodeBleuLane, request_chars
from .model_loads import ModelLoads, cache_sizes, loaded_models

log = logging.getLogger(__name__)


@dataclass
class EngineConfig:
    workers: int = 2
    max_batch: int = 64
    #: Seconds the batcher waits for more requests before a batch; None: 0 on a CPU (batches
    #: do not make a CPU faster, waiting only idles it), 2 ms on a GPU.
    batch_wait: float | None = None
    #: Batcher threads, each running its own model calls; None: on a CPU min(4, cores) lanes of
    #: cores // lanes torch threads each (independent model calls use cores better than one call
    #: split across them), on a GPU 1 lane (one big batch at a time).
    lanes: int | None = None
    #: the encoder for requests that leave a part of their choice unset (``daemon run --model/--layer/--device``)
    encoder: EncoderChoice = field(default=NO_ENCODER_CHOICE)
    preload: bool = False
    #: Requests with more characters than this (all texts together) take the large lanes.
    large_chars: int = DEFAULT_LARGE_CHARS
    #: Large CodeBLEU requests run at once, each in a worker process; None: half the cores, 1 to 4.
    large_workers: int | None = None


class Engine:
    """Runs jobs; thread-safe; ``submit`` returns at once."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.defaults = config.encoder
        self.pool = ThreadPoolExecutor(max(1, config.workers), thread_name_prefix="refscore-codebleu")
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._bert_queue: deque[Job] = deque()
        self._bert_large: deque[Job] = deque()  # served by a lane of its own, one job at a time
        self._large_bert_lane: threading.Thread | None = None
        self.large_codebleu = LargeCodeBleuLane(self._large_codebleu_done, config.large_workers)
        self._latest: dict[Hashable, Job] = {}
        self._unfinished = 0
        self._codebleu_waiting = 0
        self._closing = False
        self.models = ModelLoads(config.encoder, self._configure)
        self._batch_wait = config.batch_wait or 0.0
        self.lanes = 1
        self.torch_threads: int | None = None
        self._configured = False
        self.stats = {"received": 0, "served": 0, "cancelled": 0, "superseded": 0,
                      "stages_skipped": 0, "batches": 0, "batched_requests": 0,
                      "batch_seconds": 0.0}
        self._lanes = [threading.Thread(target=self._batch_loop, args=(config.preload,), name="refscore-lane-0",
                                        daemon=True)]
        self._lanes[0].start()

    # -- submitting and cancelling --------------------------------------------------------------

    def submit(self, request: ScoreRequest, key: Hashable | None = None) -> Job:
        """Queue ``request``; a pending job with the same ``key`` is superseded."""
        job = Job(request, key, large=request_chars(request) > self.config.large_chars)
        wants_codebleu = wants_cpu(request)
        wants_bert = wants_model(request)
        stages = job._pending = int(wants_codebleu) + int(wants_bert)
        with self._lock:
            self.stats["received"] += 1
            self._unfinished += 1
            if key is not None:
                previous = self._latest.get(key)
                self._latest[key] = job
            else:
                previous = None
            if wants_bert:
                (self._bert_large if job.large else self._bert_queue).append(job)
                if job.large and self._large_bert_lane is None:
                    self._large_bert_lane = threading.Thread(target=self._batch_loop, kwargs={"large": True},
                                                             name="refscore-lane-large", daemon=True)
                    self._large_bert_lane.start()
                self._cond.notify_all()  # the lane for this queue is among the waiters
            if wants_codebleu and not job.large:
                self._codebleu_waiting += 1
        if previous is not None:
            self._cancel(previous, "superseded by a newer request for the same document", superseded=True)
        if wants_codebleu:
            if job.large:
                self.large_codebleu.put(job)
            else:
                self.pool.submit(self._run_codebleu, job)
        if stages == 0:
            self._finish(job)
        return job

    def cancel(self, job: Job, reason: str = "cancelled by the client") -> bool:
        """Cancel ``job`` if it has not finished; stages not yet started never run, a running
        large CodeBLEU stage is stopped."""
        return self._cancel(job, reason)

    def _cancel(self, job: Job, reason: str, superseded: bool = False) -> bool:
        with job._lock:
            if job.cancelled or job.future.done():
                return False
            job.cancelled = True
            with self._lock:
                self.stats["cancelled"] += 1
                self.stats["superseded"] += int(superseded)
            job.future.set_exception(Cancelled(reason))
        return True

    # -- stages ---------------------------------------------------------------------------------

    def _run_codebleu(self, job: Job) -> None:
        with self._lock:
            self._codebleu_waiting -= 1
        if not job.begin_stage():
            self._stage_done(job, skipped=True)
            return
        try:
            job.cpu = cpu_metrics(job.prepared)
        except Exception as error:  # noqa: BLE001 - cpu_metrics reports its own errors; belt and braces
            log.exception("CPU stage failed")
            job.cpu = CpuScores(errors=(f"codebleu: {type(error).__name__}: {error}",))
        self._stage_done(job)

    def _large_codebleu_done(self, job: Job, scores: CpuScores | None) -> None:
        if scores is None:
            self._stage_done(job, skipped=True)
            return
        job.cpu = scores
        self._stage_done(job)

    def _batch_loop(self, preload: bool = False, large: bool = False) -> None:
        """A CodeBERTScore lane: small jobs in shared batches, or (``large``) one large job at a time."""
        queue = self._bert_large if large else self._bert_queue
        if preload:
            self.models.ready(None)
        while True:
            with self._lock:
                while not queue and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                short = len(queue) < self.config.max_batch
            if short and self._batch_wait > 0 and not large:
                time.sleep(self._batch_wait)  # let concurrent clients' requests join the batch
            batch: list[Job] = []
            with self._lock:
                # A fair share: one lane must not take two requests while another lane idles.
                share = 1 if large else min(self.config.max_batch, -(-len(queue) // self.lanes))
                while queue and len(batch) < share:
                    batch.append(queue.popleft())
            runnable = []
            for job in batch:
                if job.begin_stage():
                    runnable.append(job)
                else:
                    self._stage_done(job, skipped=True)
            if runnable:
                self._run_bert(runnable)

    def _run_bert(self, jobs: list[Job]) -> None:
        ready: list[Job] = []
        for job in jobs:
            problem = self.models.ready(job.request)
            if problem:
                job.model = ModelScores(errors=(f"codebertscore unavailable: {problem}",))
            else:
                job.model = NO_MODEL
                ready.append(job)
        if ready:
            started = time.perf_counter()
            try:
                for job, scores in zip(ready, model_metrics([j.prepared for j in ready], self.defaults)):
                    job.model = scores
            except Exception:  # noqa: BLE001 - handled below like a batch that reported failures
                log.exception("CodeBERTScore batch of %d failed", len(ready))
            failed = [j for j in ready if j.model is None or j.model.codebertscore is None]
            if failed and len(ready) > 1:
                # One bad request must not fail its batch-mates from other clients: score the
                # failed ones alone, so each error lands on the request that caused it.
                log.warning("%d of a CodeBERTScore batch of %d failed; scoring them one by one",
                            len(failed), len(ready))
                for job in failed:
                    self._score_alone(job)
            elif failed:
                for job in failed:
                    if job.model is None or not job.model.errors:
                        job.model = ModelScores(errors=("codebertscore: no result",))
            with self._lock:
                self.stats["batches"] += 1
                self.stats["batched_requests"] += len(ready)
                self.stats["batch_seconds"] += time.perf_counter() - started
        for job in jobs:
            self._model_stage_done(job)

    def _model_stage_done(self, job: Job) -> None:
        """A job's model stage is done; its ``finish`` (the combined number's inputs, a few ms of
        CPU) runs in the CPU pool when it has one to compute, so the lane goes on to its next batch."""
        if wants_cpu(job.request):
            try:
                self.pool.submit(self._stage_done, job)
                return
            except RuntimeError:  # the pool is shut down (the daemon is stopping): finish here
                pass
        self._stage_done(job)

    def _score_alone(self, job: Job) -> None:
        try:
            job.model = model_metrics([job.prepared], self.defaults)[0]
        except Exception as error:  # noqa: BLE001
            job.model = ModelScores(errors=(model_error(error),))
        if job.model.codebertscore is None and not job.model.errors:
            job.model = ModelScores(errors=("codebertscore: no result",))

    def _stage_done(self, job: Job, skipped: bool = False) -> None:
        if skipped:
            with self._lock:
                self.stats["stages_skipped"] += 1
        with job._lock:
            job._pending -= 1
            last = job._pending == 0
        if last:
            self._finish(job)

    def _finish(self, job: Job) -> None:
        with self._lock:
            self._unfinished -= 1
            if job.key is not None and self._latest.get(job.key) is job:
                del self._latest[job.key]
        with job._lock:
            if job.cancelled or job.future.done():
                return
            report = finish(job.prepared, job.cpu or NO_CPU, job.model or NO_MODEL)
            with self._lock:
                self.stats["served"] += 1  # counted first: a client reading status after its answer sees it
            job.future.set_result(report)

    # -- the model's lanes ----------------------------------------------------------------------

    def _configure(self, device: str) -> None:
        """Once the first model is loaded (and the device known): lanes, torch threads, waits."""
        if self._configured:
            return
        self._configured = True
        cpus = _available_cpus()
        on_cpu = device.startswith("cpu")
        self.lanes = max(1, self.config.lanes or (min(4, cpus) if on_cpu else 1))
        if self.config.batch_wait is None:
            self._batch_wait = 0.0 if on_cpu else 0.002
        if on_cpu:
            import torch

            self.torch_threads = max(1, cpus // self.lanes)
            torch.set_num_threads(self.torch_threads)
            from ..embed.backends import set_compute_threads

            set_compute_threads(self.torch_threads)  # ONNX Runtime forward passes: the same per lane
        for index in range(1, self.lanes):
            lane = threading.Thread(target=self._batch_loop, name=f"refscore-lane-{index}", daemon=True)
            self._lanes.append(lane)
            lane.start()
        log.info("CodeBERTScore on %s: %d lane(s)%s, batch wait %.1f ms", device, self.lanes,
                 f" of {self.torch_threads} torch thread(s)" if self.torch_threads else "", self._batch_wait * 1000)

    # -- state ----------------------------------------------------------------------------------

    def in_flight(self) -> int:
        """Jobs received and not finished."""
        with self._lock:
            return self._unfinished

    def status(self) -> dict[str, Any]:
        """Counters, queue depths, models and caches (see ``refscore daemon status``)."""
        with self._lock:
            stats = dict(self.stats, stopped=self.large_codebleu.stopped)
            queue = {"codebleu": self._codebleu_waiting, "codebertscore": len(self._bert_queue),
                     "codebleu_large": self.large_codebleu.waiting(), "codebertscore_large": len(self._bert_large),
                     "large_running": self.large_codebleu.running_count(), "in_flight": self._unfinished}
        batches = stats.pop("batches")
        batched = stats.pop("batched_requests")
        batch_seconds = stats.pop("batch_seconds")
        return {
            "requests": stats,
            "queue": queue,
            "batches": batches,
            "mean_batch_size": round(batched / batches, 2) if batches else None,
            "batch_seconds": round(batch_seconds, 2),
            "models": loaded_models(),
            "model_errors": sorted(set(self.models.errors.values())),
            "caches": cache_sizes(),
            "workers": self.config.workers,
            "lanes": self.lanes,
            "torch_threads": self.torch_threads,
            "max_batch": self.config.max_batch,
            "large_chars": self.config.large_chars,
            "large_workers": len(self.large_codebleu.workers),
        }

    def close(self) -> None:
        """Stop the batchers, the pool and the large lane (its running work killed); unfinished
        jobs fail with Cancelled."""
        with self._lock:
            self._closing = True
            pending = list(self._bert_queue) + list(self._bert_large)
            self._bert_queue.clear()
            self._bert_large.clear()
            self._cond.notify_all()
        for job in pending + self.large_codebleu.close():
            self._cancel(job, "the daemon is shutting down")
        self.pool.shutdown(wait=False, cancel_futures=True)


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1
