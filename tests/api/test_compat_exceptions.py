"""Drop-in exceptions: where ``codebleu.calc_codebleu`` / ``code_bert_score.score`` raise
AssertionError, ``refscore.compat`` raises an error that is an AssertionError, a ValueError and a
RefScoreError, so old and new ``except`` clauses both catch it. Each case is checked against the
installed package too, so the test says what the package really does."""

from __future__ import annotations

import pytest

import codebleu
from refscore.compat import calc_codebleu
from refscore.errors import RefScoreError, ScoreInputError

REF, PRED = "def f(x):\n    return x + 1\n", "def f(a):\n    return a + 1\n"

CODEBLEU_CASES = {
    "unknown language": lambda f: f([REF], [PRED], "klingon"),
    "length mismatch": lambda f: f([REF, REF], [PRED], "python"),
    "three weights": lambda f: f([REF], [PRED], "python", weights=(0.5, 0.25, 0.25)),
}


@pytest.mark.parametrize("case", sorted(CODEBLEU_CASES))
def test_calc_codebleu_raises_what_the_package_raises(case: str) -> None:
    call = CODEBLEU_CASES[case]
    with pytest.raises(AssertionError):  # the package's documented behaviour
        call(codebleu.calc_codebleu)
    for kind in (AssertionError, ValueError, RefScoreError):
        with pytest.raises(kind) as caught:
            call(calc_codebleu)
        assert type(caught.value) is ScoreInputError


def test_old_and_new_except_clauses_both_catch() -> None:
    try:
        calc_codebleu([REF], [PRED], "klingon")
    except AssertionError as error:  # a drop-in user's code
        assert "klingon" in str(error)
    else:  # pragma: no cover
        pytest.fail("no error")
    try:
        calc_codebleu([REF, REF], [PRED], "python")
    except ValueError as error:  # RefScore's documented type
        assert "Number of references and predictions should be the same" in str(error)
    else:  # pragma: no cover
        pytest.fail("no error")


def test_missing_keywords_dir_is_an_assertion_as_in_the_package(tmp_path) -> None:
    with pytest.raises(AssertionError, match="does not exist"):
        codebleu.calc_codebleu([REF], [PRED], "python", keywords_dir=tmp_path / "nowhere")
    with pytest.raises(AssertionError, match="does not exist"):
        calc_codebleu([REF], [PRED], "python", keywords_dir=tmp_path / "nowhere")


def test_code_bert_score_argument_errors_are_assertions_too() -> None:
    from refscore.compat import score

    # code_bert_score.score asserts both (score.py: "Different number of candidates and
    # references", "Either lang or model_type should be specified"); checked before any model loads
    for call in (lambda: score(["a", "b"], ["a"], lang="python"), lambda: score(["a"], ["a"])):
        for kind in (AssertionError, ValueError):
            with pytest.raises(kind) as caught:
                call()
            assert isinstance(caught.value, ScoreInputError)


def test_a_keywords_dir_without_the_language_file_is_a_file_not_found_error_as_in_the_package(tmp_path) -> None:
    """The package opens ``<keywords_dir>/<lang>.txt`` (FileNotFoundError); RefScore raised its
    own InputFileError, which ``except FileNotFoundError`` / ``except OSError`` missed."""
    (tmp_path / "java.txt").write_text("return\n", encoding="utf-8")
    with pytest.raises(FileNotFoundError):
        codebleu.calc_codebleu([REF], [PRED], "python", keywords_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="python.txt"):
        calc_codebleu([REF], [PRED], "python", keywords_dir=tmp_path)
