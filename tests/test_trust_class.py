"""Issue 28 on a hand-written class (tests/data/handclass): several references, a copy of the
reference, a renamed copy and files that do not parse, scored as a teacher would score them."""

from __future__ import annotations

import pytest

from refscore.scoring.codebleu import score_codebleu
from refscore.scoring.report import ScoreRequest
from refscore.scoring.scorer import LocalScorer
from tests.handclass import PROBLEMS, STUDENTS

pytest.importorskip("sacrebleu")
pytest.importorskip("apted")


@pytest.fixture(scope="module")
def scorer():
    return LocalScorer()


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_an_acceptable_second_reference_never_lowers_native_codebleu(problem) -> None:
    reference, alternative = problem.reference.read_text(), problem.alternative.read_text()
    for student in STUDENTS:
        candidate = problem.text(student)
        one = score_codebleu([reference], candidate, problem.language)
        both = score_codebleu([reference, alternative], candidate, problem.language)
        other = score_codebleu([alternative], candidate, problem.language)
        assert both.score == pytest.approx(max(one.score, other.score)), student
        assert both.score >= one.score - 1e-12, student
    copy = score_codebleu([reference, alternative], problem.text("frank"), problem.language)
    assert copy.score == pytest.approx(1.0)
    assert all(c.score in (None, pytest.approx(1.0)) for c in copy.components)


def test_explanations_name_the_reference_that_was_used() -> None:
    problem = PROBLEMS[0]
    reference, alternative = problem.reference.read_text(), problem.alternative.read_text()
    result = score_codebleu([reference, alternative], problem.text("alice"), problem.language)
    assert result.explanations and {e.reference_index for e in result.explanations} == {1}
    runs = [e for e in result.explanations if e.component == "ngram_match"]
    assert runs and all(alternative[e.start:e.end].split()[0] == e.text.split()[0] for e in runs)


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_an_acceptable_second_reference_never_lowers_codebertscore(problem, scorer) -> None:
    reference, alternative = problem.reference.read_text(), problem.alternative.read_text()
    for student in ("alice", "carol", "frank", "grace"):
        one, both = (scorer.score(ScoreRequest(problem.text(student), refs, problem.language,
                                               metrics=("codebertscore",)))
                     for refs in ((reference,), (reference, alternative)))
        assert both.codebertscore.f1 >= one.codebertscore.f1 - 1e-6, student
