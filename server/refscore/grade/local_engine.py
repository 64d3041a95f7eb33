"""The in-process engine: score a run's pending blocks here, through any Scorer (this process's
``LocalScorer`` or the shared daemon's), one part per batch.

Pass two over the inputs: the blocks are read again in order and only the items no part holds are
scored. Each batch is written as a part as soon as it is scored, so Ctrl-C loses at most the batch
in flight; the run then reports what it has (``EngineRun.interrupted``) and a rerun resumes.

A run with the detailed HTML page keeps the items and reports it scored now in memory
(``EngineRun.details``) for the assembler, which then need not read them back from the parts; a
temporary parts folder (``--no-cache``), which no later run reads, then holds the rows only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputFileError
from ..scoring.report import ScoreReport
from ..scoring.scorer import Scorer
from .block_score import score_batches
from .items import GradeItem
from .parts import PartStore
from .plan import Plan, Sources
from .progress import Progress


@dataclass
class EngineRun:
    """What an engine did: items scored now, and whether Ctrl-C stopped it."""

    scored: int = 0
    interrupted: bool = False
    #: (block, offset) -> the item and report scored now, for the detailed HTML page
    details: dict[tuple[int, int], tuple[GradeItem, ScoreReport | None]] = field(default_factory=dict)


def run_local(plan: Plan, sources: Sources, store: PartStore, scorer: Scorer, progress: Progress) -> EngineRun:
    """Score every pending block in this process (Ctrl-C: the parts written stay)."""
    pending = {block.index: block for block in plan.pending}
    run = EngineRun()
    if not pending:
        return run
    last = max(pending)
    keep = plan.work.detail
    try:
        for spec, items in sources.scan():
            block = pending.get(spec.index)
            if block is not None:
                if spec.key != block.spec.key:
                    raise InputFileError(f"{spec.name or 'the inputs'}: changed while grading (block "
                                         f"{spec.index}); rerun")
                todo = [(offset, item) for offset, item in items if offset not in (block.before or ())]
                for staged in score_batches(todo, plan.work, scorer):
                    store.write(spec.index, block.key, [s.entry(keep and store.durable) for s in staged])
                    if keep:
                        run.details.update(((spec.index, s.offset), (s.item, s.report)) for s in staged)
                    run.scored += len(staged)
                    progress.update(scored=len(staged))
            if spec.index >= last:
                break
    except KeyboardInterrupt:
        run.interrupted = True
    return run
