"""The live scoring loop: debounced, one task per document, superseded versions cancelled,
stale results dropped. CodeBLEU is published as soon as it is ready; CodeBERTScore is added when
the daemon answers. Blocking work runs in this module's own thread pools, so the server keeps
reading messages and answering hovers from the last result meanwhile; a large document's CPU
phases run in a worker process of their own (they would hold this process's GIL for seconds)."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from ..parsing.gc_pause import hold
from ..scoring.parts import CpuScores, ModelScores
from ..scoring.per_function import with_bert
from ..scoring.report import ScoreReport, ScoreRequest
from ..service.worker import ProcessWorker, WorkerDied, WorkerStopped
from . import phases, snapshot
from .current import carried_tokens, keeping_ranked, kept_message, renumber
from .lazy_lenses import model_requests
from .memo import ReportMemo
from .open_files import OpenFiles, Results
from .results import Result
from .scorers import ScorerUnavailable, Superseded
from .status import LOADING, daemon_gone_message, died, no_reference, report_status, tick_progress
from .uris import fs_path

if TYPE_CHECKING:
    from .server import RefScoreServer

log = logging.getLogger(__name__)
T = TypeVar("T")


#: CodeBERTScore reports kept by the loop (a whole document's is a few hundred kB, a function's
#: a few kB): bounded by entries and by the characters they were asked for.
BERT_MEMO_ENTRIES = 4096
BERT_MEMO_CHARS = 3_000_000
#: The debounce's maximum wait (seconds): a document rescheduled without a pause for this long
#: (typing every 50 ms, a reference rewritten on disk every 100 ms) gets a scoring run that later
#: changes no longer cancel; what changed meanwhile is scored right after it.
MAX_WAIT_S = 3.0
#: How long a lens request waits for the functions a summary left to its ranking (seconds).
FUNCTIONS_WAIT_S = 2.0


def live_updates() -> bool:
    """Whether the editor's CodeBERTScore encodes top-level definitions one by one (live updates,
    embed/incremental.py), for every text alike, saved or not, so that a save changes no number
    ($REFSCORE_LIVE_CODEBERTSCORE=0: the exact encode, a window of the model per edit at least)."""
    return os.environ.get("REFSCORE_LIVE_CODEBERTSCORE", "1").strip() != "0"


class ScoringLoop:
    """Schedules and runs scoring for open documents."""

    def __init__(self, server: "RefScoreServer") -> None:
        self.server = server
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.results: dict[str, Result] = Results()  # with who names which reference (open_files)
        self.open_files = OpenFiles()  # open documents by real path, each resolved once
        self.insertions: dict[str, tuple[int, int, int]] = {}  # uri -> (version, start, end)
        self.cpu = ThreadPoolExecutor(max_workers=2, thread_name_prefix="refscore-cpu")
        self.large = ThreadPoolExecutor(max_workers=1, thread_name_prefix="refscore-large")
        self.worker = ProcessWorker("RefScore large-document worker")  # the large lane's process
        self.closing = False
        self.daemon = ThreadPoolExecutor(max_workers=1, thread_name_prefix="refscore-daemon")
        self.reader = snapshot.ReferenceReader()
        self.last_schedule: dict[str, float] = {}
        #: uri -> the settings its stored result was scored with (``current.same_inputs``: same inputs, no rescoring)
        self.scored_with: dict[str, Any] = {}
        #: CodeBERTScore reports by request (used from the daemon thread only): an edit asks the
        #: daemon only for what it changed (the document, the function it touched)
        self.bert_memo = ReportMemo(BERT_MEMO_ENTRIES, BERT_MEMO_CHARS)
        #: uri -> when it was first scheduled since its last publish (the maximum wait runs from it)
        self.waiting: dict[str, float] = {}
        #: uri -> a run past the maximum wait, which a later change does not cancel; ``again``: the
        #: documents changed while one ran (scheduled once it ends)
        self.overdue: dict[str, asyncio.Task[None]] = {}
        self.again: set[str] = set()
        #: the pid of the daemon that answered last (its death is said once, ``status.died``)
        self.daemon_seen: int | None = None
        #: uri -> its job in the CPU pool (``in_cpu``: at most one per document)
        self.cpu_jobs: dict[str, Future[Any]] = {}
        #: uri -> who waits for its functions' scores (``scored_functions``)
        self.function_waiters: dict[str, list[asyncio.Future[None]]] = {}

    def schedule(self, uri: str, immediate: bool = False) -> None:
        """(Re)start the document's scoring task; a running one for an older version is cancelled.

        Debouncing has a leading edge: a change after a quiet spell (longer than the debounce) is
        scored at once; changes that follow each other closely wait for the typing to pause.
        """
        loop = asyncio.get_running_loop()
        if self._current(uri) is not None:
            self.open_files.opened(uri)
        now = loop.time()
        previous = self.last_schedule.get(uri)
        self.last_schedule[uri] = now
        quiet = previous is None or (now - previous) * 1000 >= self.server.settings.debounce_ms
        overdue = now - self.waiting.setdefault(uri, now) >= MAX_WAIT_S
        old = self.tasks.get(uri)
        if old is not None and not old.done():
            if self.overdue.get(uri) is old:  # past the maximum wait: let it publish, then go again
                self.again.add(uri)
                return
            old.cancel()
        task = loop.create_task(self._run(uri, immediate or quiet or overdue))
        self.tasks[uri] = task
        if overdue:
            self.overdue[uri] = task
            task.add_done_callback(lambda done: self._release(uri, done))

    def _release(self, uri: str, task: "asyncio.Task[None]") -> None:
        """An overdue run published (or ended): later changes cancel it again, and what changed
        meanwhile is scheduled now."""
        if self.overdue.get(uri) is task:
            del self.overdue[uri]
            if uri in self.again:
                self.again.discard(uri)
                asyncio.get_running_loop().call_soon(self.schedule, uri)

    def forget(self, uri: str) -> None:
        """The document was closed: stop its work and drop its result."""
        self.open_files.closed(uri)
        self._functions_scored(uri)
        task = self.tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        self.last_schedule.pop(uri, None)
        self.waiting.pop(uri, None)
        self.overdue.pop(uri, None)
        self.again.discard(uri)
        self.results.pop(uri, None)
        self.scored_with.pop(uri, None)
        self.insertions.pop(uri, None)

    async def scored_functions(self, uri: str, timeout: float = FUNCTIONS_WAIT_S) -> None:
        """Wait, at most ``timeout`` seconds, until the document's result has its functions'
        scores: a summary leaves those its edit touched to the ranking that follows it within
        milliseconds, and a lens never shows a function without its score."""
        result = self.results.get(uri)
        if result is None or not result.functions_pending:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.function_waiters.setdefault(uri, []).append(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:
            pass  # typing without a pause: the pending functions are shown as pending

    def _functions_scored(self, uri: str) -> None:
        for waiter in self.function_waiters.pop(uri, ()):
            if not waiter.done():
                waiter.set_result(None)

    def dependents(self, path: str) -> list[str]:
        """Open candidates whose references include ``path``."""
        return self.results.dependents(path)  # type: ignore[attr-defined]

    def shutdown(self) -> None:
        """Cancel every task and end the pools; the large lane's process is killed (idempotent)."""
        self.closing = True
        for task in self.tasks.values():
            task.cancel()
        self.cpu.shutdown(wait=False, cancel_futures=True)
        self.large.shutdown(wait=False, cancel_futures=True)
        self.daemon.shutdown(wait=False, cancel_futures=True)
        self.worker.kill()

    async def in_cpu(self, uri: str, fn: Callable[..., T], *args: Any, large: bool = False) -> T:
        """``fn(*args)`` in the CPU pool, at most one job per document at a time. A superseded
        run's job still runs in its thread (a thread cannot be cancelled): the next one waits
        for it instead of taking a second worker, which would leave none to other documents. A
        job not started yet when its run is cancelled is dropped (``wrap_future`` cancels it).
        ``large``: in the large lane (``phases.LARGE_CHARS``): ``fn`` and ``args`` are pickled to its
        worker process, which is killed when the run is cancelled (the next one waits no longer)."""
        busy = self.cpu_jobs.get(uri)
        if busy is not None and not busy.done():
            await asyncio.wait([asyncio.wrap_future(busy)])
        stop = threading.Event()
        job = self.large.submit(self._in_worker, stop, fn, *args) if large else self.cpu.submit(fn, *args)
        self.cpu_jobs[uri] = job
        loop = asyncio.get_running_loop()
        job.add_done_callback(lambda _: _call_soon(loop, self._job_done, uri, job))
        try:
            return await asyncio.wrap_future(job)
        except asyncio.CancelledError:
            stop.set()
            raise

    def _in_worker(self, stop: threading.Event, fn: Callable[..., T], *args: Any) -> T | None:
        """``fn(*args)`` in the large lane's process (in its thread); None once stopped (nobody waits)."""
        try:
            return self.worker.call(fn, *args, stop=lambda: stop.is_set() or self.closing)
        except WorkerStopped:
            return None

    def _with_codec(self, result: Result) -> Result:
        """A result back from the large lane's process, with the session's codec object (its
        position tables, made there, hold a pickled copy: the same encoding)."""
        result.codec = self.server.workspace.position_codec
        return result

    def _job_done(self, uri: str, job: Future[Any]) -> None:
        if self.cpu_jobs.get(uri) is job:
            del self.cpu_jobs[uri]

    def _current(self, uri: str) -> Any:
        return self.server.document(uri)

    def _stale(self, uri: str, version: int) -> bool:
        """The document moved on, or this task was superseded (a cancellation that Python 3.11's
        ``asyncio.wait_for`` swallowed must not publish twice)."""
        document = self._current(uri)
        task = asyncio.current_task()
        superseded = self.tasks.get(uri) is not task
        if document is None or superseded:
            return True
        return document.version != version and self.overdue.get(uri) is not task  # overdue: publish it

    async def _run(self, uri: str, immediate: bool) -> None:
        """Score the document's current version and publish what it gets, as it gets it. The
        cyclic collector is paused for the run (``gc_pause.hold``): the collections its
        allocations call for come after its last publish, while the user reads it, not inside
        the update (a 2,000-line edit spent 40-60 ms in them, on the cores the daemon encodes on)."""
        release = hold()
        try:
            await self._score(uri, immediate)
        finally:
            release()

    async def _score(self, uri: str, immediate: bool) -> None:
        try:
            await self.server.wait_for_settings()
            settings = self.server.settings
            if not immediate:
                await asyncio.sleep(settings.debounce_ms / 1000)
            document = self._current(uri)
            if document is None:
                return
            version, text = document.version, document.source
            insertion = self.insertions.get(uri)  # kept: a rescoring of this version shows it too
            inserted = insertion if insertion and insertion[0] == version else None
            # one job finds the references and, for a document of the CPU pool, scores its summary
            find = partial(snapshot.prepare, uri, text, document.language_id, settings,
                           self.server.explicit_references.get(uri), self.server.folders(),
                           self.open_files.texts(self._current), self.reader)
            start = partial(Result, uri, version, text, codec=self.server.workspace.position_codec,
                            sends_token_scores=self.server.token_scores)
            opened = await self.in_cpu(
                uri, phases.open_phase, text, find, start, settings, self.results.get(uri), self.scored_with.get(uri),
                inserted, self.server.scorers)
            if self._stale(uri, version):
                return
            if opened.prepared is None:  # no reference: no diagnostics, no noise
                self.waiting.pop(uri, None)
                self.results.pop(uri, None)
                self.server.publish(uri, version, None)
                no_reference(self.server, uri, version)
                return
            if opened.kept is not None:  # the shown result answers these inputs already
                shown = opened.kept
                if shown.version != version:  # the same text under a newer version: one publish
                    renumbered = await self.in_cpu(uri, phases.ready_to_publish, renumber(shown, version))
                    if not self._stale(uri, version):
                        self._store(renumbered, settings)
                else:
                    self.waiting.pop(uri, None)
                self.server.window_log_message(types.LogMessageParams(
                    type=types.MessageType.Log, message=kept_message(uri, version)))
                return
            result, ranked_later = opened.result, opened.summarised
            assert result is not None
            large = result.problem is None and not ranked_later
            if large:  # the large lane: its summary and ranking in one hop to its process, its pairs' scores in a second
                result = self._with_codec(await self.in_cpu(
                    uri, phases.codebleu_phase, result, settings, inserted, None, True, large=True))
                if self._stale(uri, version):
                    return
            wants_bert = settings.codebertscore_on and result.problem is None and result.report is not None
            runtime = self.server.scorers.runtime
            if wants_bert and self.server.scorers.allow_daemon and not runtime.ready:
                # no torch here: the summary says so and how to set it up; the client shows it
                wants_bert, result.bert_state, result.bert_note = False, "setup", runtime.reason
            else:
                result.bert_state = "pending" if wants_bert else "off"
            verdict = phases.bert_size_verdict(result, settings) if wants_bert else None
            if verdict is not None:  # over CodeBERTScore's limit: said with the first summary, and
                # no model work follows (the functions' lenses show CodeBLEU): a finish stage would
                # rank a huge file's differences again for nothing the summary shows
                result.bert_state, result.bert_note, wants_bert = "skipped", verdict, False
            if not ranked_later and wants_bert:  # the weak tokens the edit did not touch stay until
                # CodeBERTScore replaces them (the summary phase carried them in the CPU pool)
                result.carried = carried_tokens(self.results.get(uri), result)
            elif not wants_bert:
                result.carried = ()
            self._store(result, settings)
            if large and result.functions_pending:
                result = await self._pairs_scored(result, settings)
                if result is None:
                    return
            if wants_bert:  # the daemon encodes while this process ranks the differences
                await self._bert_phase(result, settings, ranked_later)
            elif ranked_later:
                await self._ranked(result, settings)
        except asyncio.CancelledError:
            raise
        except WorkerDied as error:  # killed (out of memory, by hand): one line, no traceback
            self.server.notice(f"RefScore could not score {(fs_path(uri) or Path(uri)).name}: {error}; "
                               "it is scored again at its next change")
        except Exception as error:  # noqa: BLE001 - one message, never a dead loop
            log.exception("scoring %s failed", uri)
            self.server.notice(f"RefScore could not score {(fs_path(uri) or Path(uri)).name}: "
                               f"{type(error).__name__}: {error}")

    def _store(self, result: Result, settings: Any) -> None:
        """Publish ``result``, scored with ``settings``, as the document's latest."""
        self.waiting.pop(result.uri, None)
        self.results[result.uri] = result
        self.scored_with[result.uri] = settings
        self.server.publish(result.uri, result.version, result)
        if not result.functions_pending:
            self._functions_scored(result.uri)
        task = asyncio.current_task()
        if task is not None:
            self._release(result.uri, task)

    async def _pairs_scored(self, result: Result, settings: Any) -> Result | None:
        """``result`` (the large lane's summary, published) with its pending pairs scored there,
        published (None: superseded)."""
        assert result.spec is not None
        pairs = await self.in_cpu(result.uri, phases.scored_pairs, result.functions, result.text,
                                  result.reference_texts, result.spec, settings, large=True)
        if pairs is None or self._stale(result.uri, result.version):
            return None
        scored = keeping_ranked(result, functions=pairs)
        self._store(scored, settings)
        return scored

    async def _ranked(self, result: Result, settings: Any) -> Result | None:
        """``result`` (its summary published) with its own differences, published (None: superseded)."""
        ranked = await self.in_cpu(result.uri, phases.ranking_phase, result, settings, self.server.scorers)
        if self._stale(result.uri, result.version):
            return None
        self._store(ranked, settings)  # this version's CodeBERTScore result is stored after it (``_bert_phase``)
        return ranked

    def _bert_reports(self, requests: list[ScoreRequest], uri: str) -> list[ScoreReport]:
        """The daemon's reports for ``requests`` (those asked before from ``bert_memo``), in its thread."""
        return self.bert_memo.answer(requests, lambda missing: self.server.scorers.codebertscore(missing, uri))

    async def _bert_phase(self, result: Result, settings: Any, ranked_later: bool = False) -> None:
        """Ask the daemon for CodeBERTScore of the document, its functions and insertion, then
        publish a new result (the published one is never changed). ``ranked_later``: ``result``'s
        differences are ranked (and published) while the daemon works (``_ranked``), and the
        answer is added to that result."""
        scorers = self.server.scorers
        whole, per_function, requests = model_requests(result, settings, live_updates())
        gone = self.daemon_seen if died(self.daemon_seen) else None
        if gone is not None:  # killed or crashed since its last answer: the next call starts a new one
            self.daemon_seen = None
            self.server.notice(daemon_gone_message(gone))
        progress = None if scorers.model_ready(whole) and gone is None else await self.server.begin_progress(
            "RefScore", LOADING)
        ticker = tick_progress(self.server, progress)
        try:
            asked = asyncio.get_running_loop().run_in_executor(self.daemon, self._bert_reports, requests, result.uri)
            both = replace(whole, metrics=("codebleu", "codebertscore") if settings.codebleu_on else ("codebertscore",),
                           live=False)
            if ranked_later:
                asked.add_done_callback(_retrieved)  # left unawaited when a newer version supersedes this one
                ranked = await self._ranked(result, settings)
                if ranked is None:
                    return
                result = ranked
                if not asked.done():  # what the finish stage reads of the texts, made while the daemon encodes
                    await self.in_cpu(result.uri, phases.warm_finish, result, both)
            reports = await asked
        except Superseded:
            return  # a newer version of this document is on its way
        except ScorerUnavailable as error:
            report_status(self.server)
            self.server.notice(str(error))
            if not self._stale(result.uri, result.version):
                self._store(result.derive(bert_state="unavailable", bert_note=str(error)), settings)
            return
        finally:
            if ticker is not None:
                ticker.cancel()
            if progress is not None:
                self.server.end_progress(progress)
        self.daemon_seen = scorers.daemon_pid or self.daemon_seen
        report_status(self.server)
        if self._stale(result.uri, result.version):
            return
        insertion = result.insertion
        if insertion is not None:
            bert = reports[-1].codebertscore
            insertion = replace(insertion, f3=bert.f3 if bert is not None else None)
        bert, errors = reports[0].codebertscore, list(reports[0].errors)
        # the daemon answered but could not score: skipped (a text over its limit, said at once), or
        # unavailable (a layer outside the model, a model not on disk)
        state, note = ("done", None) if bert is not None or not errors else (
            "skipped" if errors[0].startswith("CodeBERTScore skipped") else "unavailable", errors[0])
        # the finish stage on both halves (the combined number's inputs), then the ranked differences,
        # which read the token similarities: in the CPU pool, not on the event loop
        cpu, model = CpuScores.of(result.report), ModelScores.of(reports[0])
        functions = with_bert(result.functions, reports[1:1 + len(per_function)]) if per_function else result.functions
        # ``derive``: without the CodeBLEU ranking's differences and weak tokens, which the finish
        # stage makes again (in the large lane they would be pickled to its process for nothing)
        updated = self._with_codec(await self.in_cpu(
            result.uri, phases.finish_phase, result.derive(), both, cpu, model, state, note, insertion, functions,
            large=phases.large(result)))
        if self._stale(result.uri, result.version):
            return
        self._store(updated, settings)


def _retrieved(future: "asyncio.Future[Any]") -> None:
    """Mark a future's outcome as seen (asyncio logs an exception nobody retrieved)."""
    if not future.cancelled():
        future.exception()


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
    """``fn(*args)`` on ``loop`` from another thread; nothing once the loop is closed (exit)."""
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:
        pass
