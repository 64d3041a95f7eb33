"""A block-wise grading job, and the in-process engine that runs it.

Large JSONL/Parquet inputs are graded block by block (``blocks``): each block is scored, written
as a part (``parts``), and the reports are assembled from the parts at the end (``assemble``).
Memory stays bounded whatever the input size, and a rerun scores only the items no part holds.
``run_local`` scores the blocks in this process through any Scorer; ``ray_engine`` runs the
same blocks on a Ray cluster. Parts are shared: a job begun on one engine can finish on the other.
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..errors import InputFileError
from ..safe_read import open_regular
from .assemble import BlockRef
from .blocks import DEFAULT_BLOCK_LINES, is_parquet, items_of, scan_blocks
from .block_score import score_block
from .parts import PartStore
from .progress import Progress
from .runner import GradeSettings
from ..scoring.scorer import Scorer


@dataclass
class BlockJob:
    """What to grade and how; ``work`` holds the parts (and spooled input blocks)."""

    inputs: Sequence[Path]
    settings: GradeSettings
    work: Path
    language: str | None = None
    block_lines: int = DEFAULT_BLOCK_LINES
    device_kind: str = "cpu"  # "cuda" when CodeBERTScore runs on GPUs (half precision): other parts

    def tag(self) -> str:
        """Everything besides a block's bytes that decides its rows (part of each block key)."""
        extra = {"lang": self.language,
                 "device": self.device_kind if "codebertscore" in self.settings.metrics else None}
        return self.settings.cache_tag() + json.dumps(extra, sort_keys=True)

    @property
    def store(self) -> PartStore:
        return PartStore(self.work / "parts")


@dataclass
class BlockRun:
    """How a block-wise run went: its blocks (for ``assemble``) and counts."""

    blocks: list[BlockRef] = field(default_factory=list)
    items: int = 0
    scored: int = 0
    from_before: int = 0
    notes: list[str] = field(default_factory=list)


def count_lines(path: Path) -> int:
    """Physical lines of a JSONL (or .gz) file, or rows of a Parquet file (for progress)."""
    try:
        if is_parquet(path):
            import pyarrow.parquet as pq

            with open_regular(path) as handle:
                return int(pq.ParquetFile(handle).metadata.num_rows)
        lines, last = 0, b"\n"
        with open_regular(path) as handle:
            stream = gzip.GzipFile(fileobj=handle) if path.suffix == ".gz" else handle
            while True:
                chunk = stream.read(1 << 20)
                if not chunk:
                    break
                lines += chunk.count(b"\n")
                last = chunk[-1:]
        return lines + (last != b"\n")
    except ImportError:
        raise InputFileError(f"{path}: reading Parquet needs pyarrow (pip install 'refscore[ray]')") from None
    except (OSError, EOFError, zlib.error, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise InputFileError(f"{path}: cannot read ({error})") from None


def run_local(job: BlockJob, scorer: Scorer, progress: Progress) -> BlockRun:
    """Score every block not already in parts, in this process (Ctrl-C: the parts written stay)."""
    store, run = job.store, BlockRun()
    try:
        for spec, lines in scan_blocks(job.inputs, job.block_lines, job.tag()):
            run.items += spec.items
            done = store.done_offsets(spec.index, spec.key, spec.items)
            blank = spec.lines - spec.items
            if done is None:
                run.blocks.append(BlockRef(spec.index, spec.key, spec.items, None))
                run.from_before += spec.items
                progress.update(cached=spec.items, skipped=blank)
                continue
            items = [(o, item) for o, item in items_of(spec.name, spec.first_line, lines, job.language)
                     if o not in done]
            staged = score_block(items, job.settings, scorer)
            store.write(spec.index, spec.key, [(s.offset, s.row()) for s in staged])
            run.blocks.append(BlockRef(spec.index, spec.key, spec.items, frozenset(done)))
            run.scored += len(staged)
            run.from_before += len(done)
            progress.update(scored=len(staged), cached=len(done), skipped=blank)
    finally:
        progress.close()
    return run
