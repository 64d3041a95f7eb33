"""Edits of a large document, each after a pause longer than the debounce (a slow typist in a
900,000-character file): each edit starts a scoring run and cancels the one before, but a run
already inside a CPU thread cannot be stopped. Before, every such run kept its worker until it
ended, so two stale runs of one document took both CPU workers: every other document's edits
waited seconds for their diagnostics, and the large document's last version waited behind all
its stale ones. Now a document has at most one run in the CPU pool: the next waits for it
(a queued one is dropped), so other documents keep a worker."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.harness import session

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(240)]


def large_candidate(chars: int) -> str:
    copies = chars // len(samples.CANDIDATE)
    return "".join(samples.CANDIDATE.replace("fizzbuzz", f"fizz{i}").replace("add_all", f"add{i}")
                   for i in range(copies))


async def test_stale_runs_of_one_document_leave_a_worker_to_the_others(tmp_path: Path) -> None:
    (tmp_path / "big.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    big = tmp_path / "big.py"
    big.write_text(large_candidate(900_000), encoding="utf-8")
    small = samples.write_pair(tmp_path, "small")
    async with session(tmp_path) as s:
        other = s.open(small)
        await s.wait_summary(other)
        started = time.monotonic()
        doc = s.open(big)
        await s.wait_summary(doc, version=1)
        one_run = time.monotonic() - started
        for _ in range(6):
            version = s.insert(doc, 0, 0, "#\n")
            await asyncio.sleep(0.3)
        edited = time.monotonic()
        small_version = s.insert(other, 0, 0, "#\n")
        await s.wait_summary(other, version=small_version)
        waited = time.monotonic() - edited
        assert waited < one_run, (waited, one_run)  # before: a whole run or more (both workers taken); loose for a busy CI
        await s.wait_summary(doc, version=version)  # the last version is still scored


async def test_two_large_documents_leave_a_worker_to_the_small_ones(tmp_path: Path) -> None:
    """Two documents whose references are large (800,000 characters each) are scored at once:
    an edit of a small document is scored meanwhile, not after them (they took both CPU
    workers). Large work has its own lane, as in the daemon."""
    reference = large_candidate(800_000).replace("elif", "if")
    for stem in ("one", "two"):
        (tmp_path / f"{stem}.ref.py").write_text(reference, encoding="utf-8")
        (tmp_path / f"{stem}.py").write_text(samples.CANDIDATE, encoding="utf-8")
    small = samples.write_pair(tmp_path, "small")
    async with session(tmp_path) as s:
        other = s.open(small)
        await s.wait_summary(other)
        started = time.monotonic()
        docs = [s.open(tmp_path / "one.py"), s.open(tmp_path / "two.py")]
        await asyncio.sleep(0.5)
        small_version = s.insert(other, 0, 0, "#\n")
        await s.wait_summary(other, version=small_version)
        waited = time.monotonic() - started - 0.5
        for doc in docs:
            await s.wait_summary(doc, version=1)
        took = time.monotonic() - started
        assert waited < max(0.2 * took, 0.5), (waited, took)
