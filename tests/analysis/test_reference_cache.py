"""A reference's analyses are cached apart from the candidates' (``analysis.document``,
``reference_tokens`` and ``reference_structure``), within bounds of their own: in an editing
process, whose text caches hold a few dozen entries (``lsp.phases.serve_edits``), the versions of
an edited document never evict its reference; and a reference analysed either way is the same
analysis."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from refscore.analysis import document
from refscore.scoring.codebleu import score_codebleu
from tests.support.timing import hang_guard

ROOT = Path(__file__).resolve().parents[2]

#: In a child process (the caches' bounds are the process's): an editor's bounds, a reference of
#: 80 functions, and three rounds of edits, each version of a candidate function scored against its
#: reference function (as the lenses do); then how often the reference analyses were made.
EDITING = """
from refscore.lsp.phases import serve_edits
from refscore.analysis import document
from refscore.scoring.codebleu import score_codebleu
serve_edits()
functions = [f"def step_{k}(values):\\n    return [v + {k} for v in values]\\n" for k in range(80)]
for version in range(3):
    for k, reference in enumerate(functions):
        score_codebleu([reference], f"def step_{k}(values):\\n    return [v * {version} for v in values]\\n", "python")
print(document.analyse_structure.cache_info().maxsize, document.reference_structure.cache_info().misses,
      document.reference_tokens.cache_info().misses)
"""


def test_an_edited_documents_versions_never_evict_its_reference() -> None:
    done = subprocess.run([sys.executable, "-c", EDITING], capture_output=True, text=True, timeout=hang_guard(),
                          env={**os.environ, "PYTHONPATH": str(ROOT / "server")})
    assert done.returncode == 0, done.stderr
    limit, structure_made, tokens_made = map(int, done.stdout.split())
    assert limit < 80  # the candidates' cache holds fewer than the reference's functions
    assert (structure_made, tokens_made) == (80, 80)  # each reference function was analysed once


def test_a_reference_analysed_as_either_is_the_same_analysis() -> None:
    text = "def mean(xs):\n    return sum(xs) / len(xs)\n# a reference also scored as a candidate\n"
    as_candidate = document.analyse_structure(text, "python", "native")
    assert document.reference_structure(text, "python", "native") is as_candidate  # taken, not made again
    fresh = "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n"
    assert document.reference_tokens(fresh) == document.analyse_tokens(fresh)
    assert document.reference_structure(fresh, "python", "native") == document.analyse_structure(fresh, "python", "native")
    candidate = "def mean(values):\n    return sum(values) / len(values)\n"
    for cache in (document.reference_tokens, document.reference_structure):
        cache.cache_clear()
    via_general = score_codebleu([fresh], candidate, "python")  # its analyses taken from the candidates' cache
    for cache in (document.reference_tokens, document.reference_structure, document.analyse_tokens,
                  document.analyse_structure):
        cache.cache_clear()
    made_apart = score_codebleu([fresh], candidate, "python")  # made for the references' cache
    assert made_apart == via_general
    assert document.reference_structure.cache_info().misses == 1
