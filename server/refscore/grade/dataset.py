"""Grade JSONL / JSONL.gz / Parquet files on a Ray cluster from Python (the ``grade`` command's
one path, ``run.execute``, with ``--engine ray``)::

    from refscore.grade.dataset import grade_dataset
    grade_dataset(["completions.jsonl.gz"], "out/", metrics=("codebleu",), address="auto")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ..settings_schema import BadSetting, ScoreSettings, shown
from ..vocabulary import codebleu_name
from .blocks import DEFAULT_BLOCK_LINES
from .job import DEFAULT_TITLE, Cache, Engine, GradeJob, Inputs, Reports
from .run import Outcome, execute
from .settings import GradeSettings, scorer_tag

#: What ``grade_dataset`` computes unless told: CodeBLEU (a cluster of CPUs needs no model).
DATASET_SETTINGS = ScoreSettings(metrics=("codebleu",))


def grade_dataset(inputs: Sequence[str | Path], out_dir: str | Path, *, language: str | None = None,
                  address: str | None = None, work: str | Path | None = None, block_lines: int = DEFAULT_BLOCK_LINES,
                  batch_size: int | None = None, per_function: bool = False, actors: int | None = None,
                  actors_per_gpu: int = 1, title: str = DEFAULT_TITLE, behaviour_inputs: str | None = None,
                  settings: ScoreSettings = DATASET_SETTINGS, **by_name: Any) -> Outcome:
    """Grade JSONL / JSONL.gz / Parquet inputs on the cluster at ``address`` and write
    ``grade.{csv,json,html}`` and the row files (``grade.jsonl``, ``grade.parquet``) into
    ``out_dir`` (parts in ``work``, default ``out_dir/grade.parts``). Rerunning resumes. Returns
    the run's ``run.Outcome``. The settings that change a number: ``settings``, or named one by
    one over it and checked (``metrics=("codebleu",)``, ``weights``, ``model``, ``layer``,
    ``device``, ``idf``, ``backend``, ``codebleu_rule``, ``unsandboxed``: ``settings_schema.SETTINGS``;
    a bad value raises ValueError naming it). ``behaviour_inputs``: behaviour's inputs file, its
    text (with ``behaviour`` in the metrics; a row's own ``inputs`` field comes first);
    ``unsandboxed``: run candidates without a sandbox (only process limits: never for code you do
    not trust)."""
    out = Path(out_dir).resolve()
    named = {**by_name, **({} if behaviour_inputs is None else {"inputs": behaviour_inputs})}
    unknown = sorted(set(named) - set(settings.flat()))
    if unknown:
        raise TypeError(f"grade_dataset() got an unexpected keyword argument {unknown[0]!r}")
    try:
        given = ScoreSettings.checked(named).flat()
    except BadSetting as error:
        raise ValueError(f"{error.name} {shown(error.value)}: {error}") from None
    chosen = settings.changed(**{name: given[name] for name in named})
    grade = GradeSettings(chosen, batch_size=batch_size, scorer_tag=scorer_tag(chosen.encoder),
                          per_function=per_function)
    job = GradeJob(Inputs(jsonl=tuple(str(p) for p in inputs), language=language), grade,
                   Engine("ray", address, block_lines, "none", actors, actors_per_gpu),
                   Reports(tuple((kind, out / f"grade.{kind}") for kind in ("csv", "json", "html")), title=title,
                           rank_by=codebleu_name(chosen.codebleu_rule) if "codebleu" in chosen.metrics else "codebertscore_f1", parquet=True),
                   Cache(Path(work).resolve() if work else None))
    return execute(job)
