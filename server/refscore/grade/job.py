"""A grading job as typed, frozen data: what the command line asked for, checked at the edge.

``commands/grade.py`` turns argv into a ``GradeJob``; everything below it (``grade.run`` and the
modules it calls) reads this object, never an argparse namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from .blocks import DEFAULT_BLOCK_LINES
from .hooks import PLAIN, GradeHooks
from .rows import threshold_failures
from .settings import GradeSettings

#: The engines a job can run on: this process, the shared scoring daemon, a Ray cluster.
ENGINES = ("local", "daemon", "ray")
#: The reports a job can ask for by name (``-o`` names all three).
REPORT_KINDS = ("csv", "json", "html")
#: The HTML report's title without ``--title``.
DEFAULT_TITLE = "RefScore grade report"
#: Runs of up to this many input lines get each submission's detail in the HTML page
#: (``html_report``; here so ``run`` needs no HTML builder unless it writes HTML).
DETAIL_LIMIT = 20_000
#: ...and of up to this many lines each submission's code beside its reference(s), heat-mapped:
#: a pane costs 6 to 12 kB of HTML, so 20,000 of them made a page of 120 to 240 MB.
PANES_LIMIT = 5_000


@dataclass(frozen=True)
class Inputs:
    """Where the submissions come from."""

    submissions: tuple[str, ...] = ()  # files, folders, globs graded against ``references``
    references: tuple[str, ...] = ()
    mappings: tuple[str, ...] = ()  # TOML / CSV mapping files
    jsonl: tuple[str, ...] = ()  # JSONL, JSONL.gz or Parquet files of pairs, streamed block by block
    language: str | None = None
    context: str | None = None
    context_file: str | None = None
    pattern: str | None = None
    per_folder: bool = False
    fields: tuple[tuple[str, str], ...] = ()  # --fields: (field, its name in the JSONL/Parquet rows)
    layout: str | None = None  # --layout: how a class archive or folder is laid out (None: recognised)
    roster: str | None = None  # --roster: the students expected
    starter: tuple[str, ...] = ()  # --starter: code handed out, which earns no credit
    allow_outside: tuple[str, ...] = ()  # --allow-outside: folders outside a mapping's own it may name
    resubmissions: str = "latest"  # --resubmissions: which version of a Canvas file handed in again counts
    idf_file: str | None = None  # --idf: CodeBERTScore's IDF weights
    behaviour_inputs: str | None = None  # --inputs: behaviour's inputs file

    def named_files(self) -> list[str]:
        """Every file the inputs name (no report may overwrite one)."""
        return [*self.references, *self.mappings, *self.jsonl, *self.submissions,
                *([self.context_file] if self.context_file else []), *([self.roster] if self.roster else []),
                *self.starter, *([self.idf_file] if self.idf_file else []),
                *([self.behaviour_inputs] if self.behaviour_inputs else [])]


@dataclass(frozen=True)
class Threshold:
    """``--fail-under``: every submission must reach ``value`` on ``metric`` (``refscore``: on
    ``fallback`` where the combined number does not apply to a scored submission) and parse (a
    submission that does not fails whatever its score, unless ``allow_syntax_errors``)."""

    metric: str
    value: float
    fallback: str | None = None
    allow_syntax_errors: bool = False

    def failures(self, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows that fail this threshold."""
        return threshold_failures(rows, self.metric, self.value, self.fallback, self.allow_syntax_errors)


@dataclass(frozen=True)
class Engine:
    """Where pass two runs (scoring is the only engine-specific step of a run)."""

    kind: str = "local"  # one of ENGINES
    ray_address: str | None = None
    block_lines: int = DEFAULT_BLOCK_LINES  # items per block: the unit of scoring and resuming
    progress: str = "auto"  # auto, bar, lines or none
    actors: int | None = None  # Ray: model actors (None: one per GPU, else one)
    actors_per_gpu: int = 1


@dataclass(frozen=True)
class Reports:
    """What the run writes and says: the reports, their row files, the verdict."""

    paths: tuple[tuple[str, Path], ...] = ()  # (kind, path) for kinds in REPORT_KINDS
    #: The kinds whose file the user named (``--json X``): a link or a stream there is written
    #: through; every other output (``-o DIR``'s reports, the row files, the parts) must be a
    #: missing or regular file, never a link.
    named: frozenset[str] = frozenset()
    title: str = DEFAULT_TITLE
    rank_by: str = "codebleu_native"  # the column the summary page ranks by
    parquet: bool = False  # also the Parquet rows file beside the first report (``--parquet``)
    similarity: float | None = None  # --similarity: flag pairs of students at or above this score
    threshold: Threshold | None = None
    quiet: bool = False  # -q: no progress, no summary or "wrote" lines (notes, errors and verdicts only)


@dataclass(frozen=True)
class Cache:
    """The scored parts a rerun resumes from."""

    folder: Path | None = None  # --cache (default: beside the first report)
    off: bool = False  # --no-cache: score everything again, remember nothing


@dataclass(frozen=True)
class GradeJob:
    """One ``refscore grade`` run: what to read, how to score it, where, what to write, and
    what plugs in above the grader (``hooks``: the classroom, from the command layer)."""

    inputs: Inputs
    settings: GradeSettings
    engine: Engine = Engine()
    reports: Reports = Reports()
    cache: Cache = Cache()
    hooks: GradeHooks = PLAIN

    @property
    def report_paths(self) -> dict[str, Path]:
        """kind -> path of every report asked for, in order."""
        return dict(self.reports.paths)
