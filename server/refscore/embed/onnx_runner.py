"""Run an exported encoder with ONNX Runtime on the CPU.

A runner has ``threads`` (by default the torch thread count when it was made, i.e. the cores
torch would have used), or what ``backends.set_compute_threads`` says now (the daemon's per-lane
count). Several model calls (``map``) run side by side on that many worker threads, each call
single-threaded: HumanEval-sized windows split poorly across threads (measured on 2 cores: the
same wall time as one call on 2 threads, 10 % less CPU time). A lone call gets all the threads.
Sessions run concurrently from several threads (ONNX Runtime allows it and releases the GIL).
Idle threads sleep instead of spinning: spinning wins a little on an idle machine and loses a lot
on a shared one (the daemon's lanes, other processes), in wall and CPU time alike.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def new_session(path: Path, threads: int) -> Any:
    """An ONNX Runtime CPU session for ``path`` with ``threads`` intra-op threads."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = max(1, int(threads))
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def feeds(session: Any, ids: Any, mask: Any) -> dict[str, Any]:
    """The inputs of one run, limited to those the graph has: a graph cut at layer 0 (the
    embeddings) never reads the attention mask, so the exporter leaves that input out."""
    names = {item.name for item in session.get_inputs()}
    return {name: value for name, value in (("input_ids", ids), ("attention_mask", mask)) if name in names}


class OnnxRunner:
    """``run(ids, mask) -> hidden states`` (numpy int64 in, float32 out) for one exported file."""

    def __init__(self, path: Path, threads: int | None = None) -> None:
        import torch

        self.path = Path(path)
        self.threads = threads or torch.get_num_threads()
        self._sessions: dict[int, Any] = {}
        self._lock = threading.Lock()
        self._local = threading.local()  # a worker of ``map`` runs its calls on one thread
        self._pool: ThreadPoolExecutor | None = None
        self._pool_size = 0
        self.session()  # load now: a broken file fails here, not on the first request

    def _thread_count(self) -> int:
        from .backends import compute_threads

        return getattr(self._local, "threads", None) or compute_threads(self.threads)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn`` over ``items`` (model calls) in order, side by side on the runner's threads."""
        from .backends import compute_threads

        work = list(items)
        threads = compute_threads(self.threads)
        if threads <= 1 or len(work) < 2 or getattr(self._local, "threads", None):
            return map(fn, work)
        return self._workers(threads).map(fn, work)

    def _workers(self, threads: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._pool_size != threads:
                if self._pool is not None:
                    self._pool.shutdown(wait=False)
                self._pool = ThreadPoolExecutor(threads, thread_name_prefix="refscore-onnx",
                                                initializer=lambda: setattr(self._local, "threads", 1))
                self._pool_size = threads
            return self._pool

    def session(self) -> Any:
        """The session for the current thread count (created on first use)."""
        threads = self._thread_count()
        found = self._sessions.get(threads)
        if found is None:
            with self._lock:
                found = self._sessions.get(threads)
                if found is None:
                    found = new_session(self.path, threads)
                    self._sessions[threads] = found
        return found

    def run(self, ids: Any, mask: Any) -> Any:
        """Hidden states of a batch: ``ids`` and ``mask`` are (rows, width) int64 arrays."""
        session = self.session()
        return session.run(["hidden"], feeds(session, ids, mask))[0]
