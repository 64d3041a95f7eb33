"""The CodeBERTScore paper's HumanEval protocol (``refscore eval --protocol paper``).

What the paper's ``evaluation/calc_correlation.py`` (neulab/code-bert-score) reports, learned by
reading it and checked on its own score file (java, codebert-java L7 IDF: its per-fold taus are
reproduced to 1e-4): for each of five index arrays ``HUMANEVAL_CV_SUBSETS[k]`` (30 problem
positions each, in ``constants.py``), the "test" tau is taken on ``pairs[~subset]``. On an integer
array ``~i`` is ``-(i + 1)``, so each "test" fold is the 30 problems counted from the end
(position ``160 - i`` of 161), not the other 131; the table's number is the mean of the five.
Inside a fold tau is this project's grouped tau (pairs within a problem whose outcomes differ,
metric differences under 0.001 tie), which is the paper's variant B.

The fold arrays are read from the user's copy of ``constants.py`` with ``ast`` (never executed,
never copied here).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from .correlation import grouped_kendall_tau

HUMANEVAL_PROBLEMS = 161
#: the paper's Table (HumanEval, Kendall tau against tests), python / java / js / cpp
PAPER_TAU: dict[str, dict[str, float]] = {
    "bleu": {},  # the paper gives only the mean, 0.308
    "codebleu": {"python": 0.366, "java": 0.496, "js": 0.261, "cpp": 0.175},
    "chrf": {"python": 0.394, "java": 0.532, "js": 0.302, "cpp": 0.319},
    "codebertscore": {"python": 0.422, "java": 0.553, "js": 0.319, "cpp": 0.327},
}
PAPER_MEAN = {"bleu": 0.308, "codebleu": 0.325, "chrf": 0.387, "codebertscore": 0.405}


def paper_files_text(code: str) -> str:
    """The text the paper's ``humaneval_hyps.txt`` / ``humaneval_refs.txt`` hold: its
    ``process_data.py`` turns each newline into a space and nothing else (runs of spaces and
    quotes stay, and so do leading and trailing spaces: a reference's first line keeps its
    indentation); only its CodeBERTScore script (``run_score.py``) normalises further. Checked
    against the paper's own files: every line of ``humaneval_refs.txt`` and ``humaneval_hyps.txt``
    (Python, JavaScript) is this of its row's ``ref`` and ``hyp``; stripping changed every reference."""
    return code.replace("\n", " ")


class FoldsError(ValueError):
    """A constants file without the paper's HumanEval fold arrays."""


def load_folds(constants: Path) -> list[list[int]]:
    """``HUMANEVAL_CV_SUBSETS`` of the paper's ``constants.py``, read without running it."""
    try:
        tree = ast.parse(Path(constants).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise FoldsError(f"{constants}: cannot be read as Python ({type(error).__name__})") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "HUMANEVAL_CV_SUBSETS" for t in node.targets):
            value = node.value.args[0] if isinstance(node.value, ast.Call) and node.value.args else node.value
            try:
                folds = [[int(i) for i in row] for row in ast.literal_eval(value)]
            except (ValueError, TypeError):
                break
            if folds and all(0 <= i < HUMANEVAL_PROBLEMS for row in folds for i in row):
                return folds
    raise FoldsError(f"{constants}: no HUMANEVAL_CV_SUBSETS (neulab/code-bert-score evaluation/constants.py)")


def held_out_problems(fold: Sequence[int], problems: int = HUMANEVAL_PROBLEMS) -> list[int]:
    """The problems the paper's ``pairs[~subset]`` selects: position ``-(i + 1)`` for each ``i``."""
    return sorted((~int(i)) % problems for i in fold)


def paper_tau(target: Sequence[float], metric: Sequence[float], problem: Sequence[int],
              folds: Sequence[Sequence[int]]) -> tuple[float | None, list[float | None]]:
    """(mean over the folds, each fold's tau) of the paper's "test" taus."""
    target, metric, problem = np.asarray(target, float), np.nan_to_num(np.asarray(metric, float)), np.asarray(problem)
    taus: list[float | None] = []
    for fold in folds:
        keep = np.isin(problem, held_out_problems(fold))
        taus.append(grouped_kendall_tau(target[keep], metric[keep], problem[keep]).tau if keep.any() else None)
    present = [t for t in taus if t is not None]
    return (float(np.mean(present)) if present else None), taus


def codexglue_rule(columns: Mapping[str, Sequence[float]]) -> np.ndarray:
    """CodeBLEU as the original CodeXGLUE evaluator combines it (equal weights, a dataflow match
    of 0 counts 0), where codebleu 0.7.0 adds ``dataflow or 1`` (no matching dataflow scores 1)."""
    parts = ("bleu", "weighted_ngram_match", "syntax_match", "dataflow_match")
    return 0.25 * sum(np.asarray(columns[p], float) for p in parts)
