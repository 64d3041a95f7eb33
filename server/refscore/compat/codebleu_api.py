"""Drop-in replacement for ``codebleu.calc_codebleu`` (codebleu 0.7.0): same arguments, keys, numbers."""

from __future__ import annotations

import errno
import numbers
import os
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple, Union

from ..errors import ScoreInputError, refuse_one_string
from ..analysis.text import MAX_INPUT_BYTES
from ..languages import CODEBLEU_PACKAGE_LANGUAGES
from ..safe_read import read_capped
from ..scoring.corpus import corpus_codebleu_compat

AVAILABLE_LANGS = list(CODEBLEU_PACKAGE_LANGUAGES)


def calc_codebleu(
    references: Union[List[str], List[List[str]]],
    predictions: List[str],
    lang: str,
    weights: Tuple[float, float, float, float] = (0.25, 0.25, 0.25, 0.25),
    tokenizer: Optional[Callable] = None,
    keywords_dir: Optional[Union[str, os.PathLike]] = None,
    *,
    workers: int = 1,
) -> Dict[str, float]:
    """Corpus CodeBLEU with the package's final-score rule, in a deterministic dataflow order.

    Returns the keys ``codebleu``, ``ngram_match_score``, ``weighted_ngram_match_score``,
    ``syntax_match_score`` and ``dataflow_match_score``. ``workers`` (not in the package): score
    a large corpus in that many processes (at least 100 pairs each); the numbers are the same up
    to floating-point rounding. ``keywords_dir``: as in the package, a folder holding
    ``<lang>.txt``, one keyword per line, for the weighted n-gram match (default: the package's
    lists, which RefScore carries).
    """
    refuse_one_string("prediction", references=references, predictions=predictions)
    if len(references) != len(predictions):
        raise ScoreInputError("Number of references and predictions should be the same")
    if lang not in AVAILABLE_LANGS:
        raise ScoreInputError(f"Language {lang} is not supported (yet). Available languages: {AVAILABLE_LANGS}")
    if len(weights) != 4:
        raise ScoreInputError("weights should be a tuple of 4 floats (alpha, beta, gamma, theta)")
    workers = _process_count(workers)
    keywords = _keywords(keywords_dir, lang) if keywords_dir is not None else None
    nested = [list(ref) if isinstance(ref, (list, tuple)) else [ref] for ref in references]
    empty = next((index for index, refs in enumerate(nested) if not refs), None)
    if empty is not None:
        raise ScoreInputError(f"prediction {empty} has no reference: give it one or more reference strings")
    return corpus_codebleu_compat(nested, predictions, lang, weights, tokenizer, workers,
                                  keywords).as_package_dict()


def _process_count(workers: object) -> int:
    """``workers`` as an int (any integer type, numpy's too; not a bool), 1 or more."""
    if not isinstance(workers, numbers.Integral) or isinstance(workers, bool) or int(workers) < 1:
        raise ScoreInputError(f"workers {workers!r}: a number of processes, 1 or more")
    return int(workers)


def _keywords(folder: Union[str, os.PathLike], lang: str) -> frozenset[str]:
    """``<folder>/<lang>.txt`` read as the package reads it (each line stripped)."""
    folder = Path(folder)
    if not folder.exists():
        raise ScoreInputError(f"keywords_dir {folder} does not exist")
    path = folder / f"{lang}.txt"
    if not path.is_file():  # the package's open() fails with FileNotFoundError here
        raise FileNotFoundError(errno.ENOENT, f"keywords_dir {folder} has no {lang}.txt (one keyword per line)",
                                str(path))
    text = read_capped(path, MAX_INPUT_BYTES).decode("utf-8")
    return frozenset(line.strip() for line in text.splitlines(keepends=True))
