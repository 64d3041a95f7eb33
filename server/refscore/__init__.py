"""RefScore: score code against a reference solution (CodeBLEU, CodeBERTScore), live and in batch.

``refscore.score(candidates, references, language=...)`` gives per-sample scores and
``refscore.score_corpus(...)`` corpus scores (``refscore.api``), ``refscore.grade_dataset(...)``
grades a data set on Ray (``refscore.grade.dataset``); all load lazily, so ``import refscore``
stays cheap (no torch, no tree-sitter). Which entry point is for what: docs/api.md.
"""

from __future__ import annotations

TYPE_CHECKING = False  # nothing is imported here at run time: ``python -m refscore`` runs this module
if TYPE_CHECKING:  # before ``__main__``'s Ctrl-C handling, and ``typing`` would hold the signal for ~20 ms
    from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "score": "api", "score_corpus": "api", "grade_dataset": "grade.dataset",
    "SampleScore": "api_types", "CorpusScore": "api_types", "AGGREGATIONS": "api_types",
    "to_dicts": "api_types", "to_pandas": "api_types", "to_arrow": "api_types",
    "ScoreInputError": "errors", "RefScoreError": "errors",
}
__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'refscore' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)
