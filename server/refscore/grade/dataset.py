"""Grade JSONL / JSONL.gz / Parquet files on a Ray cluster from Python (the ``grade`` command's
one path, ``run.execute``, with ``--engine ray``)::

    from refscore.grade.dataset import grade_dataset
    grade_dataset(["completions.jsonl.gz"], "out/", metrics=("codebleu",), address="auto")
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..metrics.codebleu import DEFAULT_WEIGHTS
from .blocks import DEFAULT_BLOCK_LINES
from .job import DEFAULT_TITLE, Cache, Engine, GradeJob, Inputs, Reports
from .run import Outcome, execute
from .settings import GradeSettings, scorer_tag


def grade_dataset(inputs: Sequence[str | Path], out_dir: str | Path, *, metrics: Sequence[str] = ("codebleu",),
                  language: str | None = None, address: str | None = None, work: str | Path | None = None,
                  block_lines: int = DEFAULT_BLOCK_LINES, batch_size: int | None = None, model: str | None = None,
                  layer: int | None = None, device: str | None = None, idf: str | None = None,
                  codebleu_rule: str = "native", per_function: bool = False, actors: int | None = None,
                  actors_per_gpu: int = 1, title: str = DEFAULT_TITLE, behaviour_inputs: str | None = None,
                  unsandboxed: bool = False) -> Outcome:
    """Grade JSONL / JSONL.gz / Parquet inputs on the cluster at ``address`` and write
    ``grade.{csv,json,html}`` and the row files (``grade.jsonl``, ``grade.parquet``) into
    ``out_dir`` (parts in ``work``, default ``out_dir/grade.parts``). Rerunning resumes. Returns
    the run's ``run.Outcome``. ``behaviour_inputs``: behaviour's inputs file, its text (with ``behaviour``
    in ``metrics``; a row's own ``inputs`` field comes first); ``unsandboxed``: run candidates
    without a sandbox (only process limits: never for code you do not trust)."""
    out = Path(out_dir).resolve()
    settings = GradeSettings(tuple(metrics), DEFAULT_WEIGHTS, batch_size, scorer_tag(model, layer, device, idf),
                             codebleu_rule, model, layer, device, idf, per_function, inputs=behaviour_inputs,
                             unsandboxed=unsandboxed)
    job = GradeJob(Inputs(jsonl=tuple(str(p) for p in inputs), language=language), settings,
                   Engine("ray", address, block_lines, "none", actors, actors_per_gpu),
                   Reports(tuple((kind, out / f"grade.{kind}") for kind in ("csv", "json", "html")), title=title,
                           rank_by="codebleu" if "codebleu" in metrics else "codebertscore_f1", parquet=True),
                   Cache(Path(work).resolve() if work else None))
    return execute(job)
