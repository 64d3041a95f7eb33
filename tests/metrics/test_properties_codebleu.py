"""Property: CodeBLEU never crashes on damaged real code and its numbers stay in [0, 1].

For every registered language, a real text (examples/, tests/data, HumanEval completions) is
randomly edited (deletions, insertions of brackets, quotes, line endings, NUL, BOM, bidi controls,
splices of other code, truncation) into a candidate, and the reference is lightly damaged too;
both rules must score the pair: native (with explanations, whose spans must lie in the
reference) and compat (the package's numbers).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[2]
for _path in (str(ROOT), str(ROOT / "server")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from refscore import languages  # noqa: E402
from refscore.metrics.codebleu import CodeBleuResult  # noqa: E402
from refscore.scoring.codebleu import score_codebleu  # noqa: E402
from refscore.scoring.corpus import corpus_codebleu_compat  # noqa: E402

from tests.support.real_code import apply_edits, edits, texts  # noqa: E402

LANGUAGES = languages.names()
EXAMPLES = 30  # per language: about a second each

_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_in_range(result: CodeBleuResult, where: str) -> None:
    assert math.isfinite(result.score) and 0.0 <= result.score <= 1.0, (where, result.score)
    for component in result.components:
        if component.score is not None:
            assert 0.0 <= component.score <= 1.0, (where, component)
        assert 0 <= component.matched <= component.total or component.total == 0, (where, component)


def draw_pair(language: str, data: st.DataObject) -> tuple[str, str]:
    corpus = texts(language)
    reference = data.draw(st.sampled_from(corpus), label="reference")
    source = data.draw(st.sampled_from(corpus), label="candidate source")
    donor = data.draw(st.sampled_from(corpus), label="donor")
    candidate = apply_edits(source, data.draw(edits(), label="candidate edits"), donor)
    reference = apply_edits(reference, data.draw(edits(2), label="reference edits"), donor)
    return reference, candidate


@pytest.mark.parametrize("language", LANGUAGES)
@_SETTINGS
@given(data=st.data())
def test_native_rule_scores_damaged_code(language: str, data: st.DataObject) -> None:
    reference, candidate = draw_pair(language, data)
    result = score_codebleu([reference], candidate, language, explain=True)
    assert_in_range(result, "native")
    assert result.rule == "native"
    for note in result.explanations:
        assert note.reference_index == 0
        assert 0 <= note.start <= note.end <= len(reference), note


@pytest.mark.parametrize("language", LANGUAGES)
@_SETTINGS
@given(data=st.data())
def test_compat_rule_scores_damaged_code(language: str, data: st.DataObject) -> None:
    reference, candidate = draw_pair(language, data)
    result = corpus_codebleu_compat([[reference]], [candidate], language)
    assert_in_range(result, "compat")
    assert result.rule == "compat"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_copy_scores_one(language: str) -> None:
    """The anchor of the range: real code against itself scores 1 (given 4 tokens: a shorter
    text has no 4-grams, and BLEU gives it less)."""
    for text in [t for t in texts(language) if len(t.split()) >= 4][:5]:
        native = score_codebleu([text], text, language, explain=False)
        assert native.score == pytest.approx(1.0), (language, text)
