"""Python CodeBLEU on the CodeBERTScore paper's protocol: which difference between codebleu 0.7.0
and the CodeXGLUE evaluator the paper ran moves Python's tau (docs/correlation.md).

    PYTHONPATH=server .venv/bin/python benchmarks/paper_codebleu_python.py CONSTANTS_PY [VARIANT ...]

CONSTANTS_PY is the paper's evaluation/constants.py (neulab/code-bert-score), read, never run.
Each HumanEval Python item is scored on the paper's files' text (newlines to spaces) with
``codebleu.calc_codebleu`` per item, combined by the CodeXGLUE rule (mean of the four components,
dataflow 0 counts 0). Variants: ``base``; ``java_remover`` (comments removed with the Java rule for
every language, as CodeXGLUE's syntax_match.py and dataflow_match.py do); ``cxg_keywords`` (the 35
keywords of CodeXGLUE's keywords/python.txt: codebleu 0.7.0 adds case, match and type); ``both``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

CXG_PYTHON_KEYWORDS = (
    "False None True and as assert async await break class continue def del elif else except finally "
    "for from global if import in is lambda nonlocal not or pass raise return try while with yield").split()


def main(argv: list[str]) -> int:
    """Print one JSON line per variant."""
    import codebleu
    from codebleu import dataflow_match, syntax_match

    from refscore.eval.correlation import grouped_kendall_tau
    from refscore.eval.data import default_data_dir, load
    from refscore.eval.paper import load_folds, paper_files_text, paper_tau

    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    folds = load_folds(Path(argv[0]))
    items = load(Path(default_data_dir()), ["python"], None, None, 8)["python"]
    target = np.array([i.target for i in items])
    problem = np.array([i.problem for i in items])
    original = syntax_match.remove_comments_and_docstrings
    keywords = Path(tempfile.mkdtemp()) / "python.txt"
    keywords.write_text("\n".join(CXG_PYTHON_KEYWORDS) + "\n", encoding="utf-8")
    for variant in argv[1:] or ["base", "java_remover", "cxg_keywords", "both"]:
        java = variant in ("java_remover", "both")
        remover = (lambda s, lang: original(s, "java")) if java else original
        syntax_match.remove_comments_and_docstrings = remover
        dataflow_match.remove_comments_and_docstrings = remover
        kw_dir = keywords.parent if variant in ("cxg_keywords", "both") else codebleu.codebleu.PACKAGE_DIR / "keywords"
        parts = np.array([[r["ngram_match_score"], r["weighted_ngram_match_score"], r["syntax_match_score"],
                           r["dataflow_match_score"]]
                          for r in (codebleu.calc_codebleu([paper_files_text(i.references[0])],
                                                           [paper_files_text(i.candidate)], "python",
                                                           keywords_dir=kw_dir) for i in items)])
        score = parts.mean(axis=1)
        print(json.dumps({"variant": variant, "paper_folds_tau": round(paper_tau(target, score, problem, folds)[0], 4),
                          "pooled_tau": round(grouped_kendall_tau(target, score, problem).tau, 4),
                          "zero_dataflow": round(float((parts[:, 3] == 0).mean()), 4)}), flush=True)
    return 0


if __name__ == "__main__":
    import logging

    logging.disable(logging.WARNING)  # codebleu warns once per item without reference dataflow
    raise SystemExit(main(sys.argv[1:]))
