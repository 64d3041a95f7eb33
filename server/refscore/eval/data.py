"""Evaluation data (../shared/data): HumanEval completions with test outcomes, CoNaLa grades.

Every scored item is an ``Item``: a candidate, its references, an optional natural-language
context, the human/oracle value to agree with, and the problem it belongs to (correlations and
cross-validation group by problem, never by item).
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass
import os
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import InputFileError
from ..safe_read import open_regular, read_capped
from ..metrics.chrf import paper_normalise  # noqa: F401 - part of this module's API (eval.metrics, tests)

#: HumanEval languages as the data files name them.
HUMANEVAL_LANGUAGES = ("python", "java", "js", "cpp")
#: Systems graded in the CoNaLa study (the paper's five; ``snippet`` is the reference).
CONALA_SYSTEMS = ("baseline", "tranx-annot", "best-tranx", "best-tranx-rerank", "codex")
CONALA = "conala"
DEFAULT_SEED = 8


@dataclass(frozen=True)
class Item:
    """One candidate to score and the value a good metric should agree with."""

    dataset: str  # "python", "java", "js", "cpp" (HumanEval) or "conala"
    problem: int  # problem index (HumanEval ``sample_idx``, CoNaLa intent index)
    candidate: str
    references: tuple[str, ...]
    context: str
    target: float  # 1/0 passed (HumanEval) or mean human grade (CoNaLa)

    @property
    def language(self) -> str:
        """Programming language of the code."""
        return "python" if self.dataset == CONALA else self.dataset


def default_data_dir() -> Path:
    """``$REFSCORE_DATA_DIR``, else ``<repo>/../shared/data`` when it exists, else /work/shared/data."""
    explicit = os.environ.get("REFSCORE_DATA_DIR")
    if explicit:
        return Path(explicit)
    beside = Path(__file__).resolve().parents[3].parent / "shared" / "data"
    return beside if beside.is_dir() else Path("/work/shared/data")


#: The most a data file may hold (compressed, and each decompressed line): the real ones are a few MB.
MAX_DATA_BYTES = 256 * 1024 * 1024


class EvalDataError(InputFileError):
    """A data file that is missing, not a regular file, damaged or not shaped as expected (exit 3)."""


def _open_lines(path: Path) -> Iterable[str]:
    """The text lines of a (gzipped) regular file; a FIFO or a device is refused, never opened
    blocking (``safe_read``)."""
    handle = open_regular(path, MAX_DATA_BYTES)
    with handle, gzip.GzipFile(fileobj=handle, mode="rb") as unzipped:
        for raw in iter(lambda: unzipped.readline(MAX_DATA_BYTES + 1), b""):
            if len(raw) > MAX_DATA_BYTES:
                raise ValueError("a line over the limit")
            yield raw.decode("utf-8")


def load_humaneval(data_dir: Path, language: str) -> list[Item]:
    """All completions of one HumanEval language file, in file order."""
    if language not in HUMANEVAL_LANGUAGES:
        raise ValueError(f"unknown HumanEval language {language!r} ({', '.join(HUMANEVAL_LANGUAGES)})")
    path = Path(data_dir) / "humaneval" / f"{language}.jsonl.gz"
    items = []
    number = 0
    try:
        for number, line in enumerate(_open_lines(path), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            items.append(Item(language, int(row["sample_idx"]), _text(row, "hyp"), (_text(row, "ref"),),
                              row.get("nl") or "", float(row["passed"])))
    except InputFileError as error:
        raise EvalDataError(f"evaluation data file {error}") from None
    except (OSError, EOFError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError,
            RecursionError) as error:
        where = f"line {number}" if number else "start"
        raise EvalDataError(f"evaluation data file {path}: not a gzipped HumanEval JSONL file (at {where}: "
                            f"{_reason(error)})") from None
    return items


def load_conala(data_dir: Path) -> list[Item]:
    """The five graded system outputs per intent; target = mean grade over graders."""
    path = Path(data_dir) / "conala" / "conala-human-grades.json"
    try:
        rows = json.loads(read_capped(path, MAX_DATA_BYTES).decode("utf-8"))
        items = []
        for index, row in enumerate(rows):
            refs = row["snippet"]
            refs = (refs,) if isinstance(refs, str) else tuple(refs)
            if not refs or not all(isinstance(r, str) for r in refs):
                raise TypeError(f"intent {index}: snippet is not code")
            for system in CONALA_SYSTEMS:
                grades = row.get(f"grade-{system}") or {}
                if system not in row or not grades:
                    continue
                mean = sum(float(g) for g in grades.values()) / len(grades)
                items.append(Item(CONALA, index, str(row[system] or ""), refs, str(row.get("intent") or ""), mean))
    except InputFileError as error:
        raise EvalDataError(f"evaluation data file {error}") from None
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError, ZeroDivisionError,
            RecursionError) as error:
        raise EvalDataError(f"evaluation data file {path}: not the CoNaLa human-grades JSON "
                            f"({_reason(error)})") from None
    return items


def _text(row: dict, key: str) -> str:
    value = row[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} is not a string")
    return value


def _reason(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"no {error} field"
    return f"{type(error).__name__}: {error}"[:160]


def problems_of(items: Iterable[Item]) -> list[int]:
    """Distinct problem ids in first-seen order."""
    return list(dict.fromkeys(item.problem for item in items))


def sample_problems(items: Sequence[Item], count: int | None, seed: int = DEFAULT_SEED) -> list[Item]:
    """Items of ``count`` whole problems drawn with ``seed`` (all items when count is None or
    not smaller than the number of problems); the items keep their original order."""
    problems = sorted(problems_of(items))
    if count is None or count >= len(problems):
        return list(items)
    if count < 1:
        raise ValueError("--sample must be at least 1")
    chosen = set(random.Random(seed).sample(problems, count))
    return [item for item in items if item.problem in chosen]


def load(data_dir: Path, datasets: Sequence[str], sample: int | None, conala_sample: int | None,
         seed: int = DEFAULT_SEED) -> dict[str, list[Item]]:
    """The sampled items per dataset (HumanEval languages and/or ``conala``)."""
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise FileNotFoundError(f"evaluation data folder not found: {data_dir}")
    out: dict[str, list[Item]] = {}
    for name in datasets:
        if name == CONALA:
            out[name] = sample_problems(load_conala(data_dir), conala_sample, seed)
        else:
            out[name] = sample_problems(load_humaneval(data_dir, name), sample, seed)
    return out
