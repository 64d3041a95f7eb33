"""The in-process engine: score a run's pending blocks here, through any Scorer (this process's
``LocalScorer`` or the shared daemon's), one part per batch.

Pass two over the inputs: the blocks are read again in order and only the items no part holds are
scored. Each batch is written as a part as soon as it is scored, so Ctrl-C loses at most the batch
in flight; the run then reports what it has (``EngineRun.interrupted``) and a rerun resumes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputFileError
from ..scoring.scorer import Scorer
from .block_score import score_batches
from .parts import PartStore
from .plan import Plan, Sources
from .progress import Progress


@dataclass
class EngineRun:
    """What an engine did: items scored now, and whether Ctrl-C stopped it."""

    scored: int = 0
    interrupted: bool = False


def run_local(plan: Plan, sources: Sources, store: PartStore, scorer: Scorer, progress: Progress) -> EngineRun:
    """Score every pending block in this process (Ctrl-C: the parts written stay)."""
    pending = {block.index: block for block in plan.pending}
    run = EngineRun()
    if not pending:
        return run
    last = max(pending)
    try:
        for spec, items in sources.scan():
            block = pending.get(spec.index)
            if block is not None:
                if spec.key != block.spec.key:
                    raise InputFileError(f"{spec.name or 'the inputs'}: changed while grading (block "
                                         f"{spec.index}); rerun")
                todo = [(offset, item) for offset, item in items if offset not in (block.before or ())]
                for staged in score_batches(todo, plan.work, scorer):
                    store.write(spec.index, block.key, [s.entry(plan.work.detail) for s in staged])
                    run.scored += len(staged)
                    progress.update(scored=len(staged))
            if spec.index >= last:
                break
    except KeyboardInterrupt:
        run.interrupted = True
    return run
