"""The CodeBLEU paper's two worked examples (CodeXGLUE, Code-Code/code-to-code-trans/CodeBLEU.MD,
its example.png) with today's grammars: the compat rule, the native rule and the installed
`codebleu` 0.7.0 package (the oracle) agree on every component, and the numbers are those that
docs/correlation-paper.md gives beside the figure's (real tree-sitter-java)."""

from __future__ import annotations

import pytest

import refscore
from refscore.compat import calc_codebleu
from tests.support import codebleu_oracle

# the figure's text, tokens separated by spaces as CodeXGLUE's evaluator reads them
REFERENCE = "public static int Sign ( double d ) { return ( int ) ( ( d == 0 ) ? 0 : ( d < 0 ) ? -1 : 1 ) ; }"
EXAMPLES = {
    # cast and literal changed, one use of d renamed: the figure gives BLEU 78.46, CodeBLEU 72.38
    1: "public static int Sign ( double d ) { return ( float ) ( ( d == 0 ) ? 0 : ( c < 0.0 ) ? -1 : 1 ) ; }",
    # d renamed c everywhere: the figure gives BLEU 68.14, CodeBLEU 83.97
    2: "public static int Sign ( double c ) { return ( int ) ( ( c == 0 ) ? 0 : ( c < 0 ) ? -1 : 1 ) ; }",
}
# (codebleu, ngram, weighted ngram, syntax, dataflow) with today's tree-sitter-java
TODAY = {1: (0.7019, 0.7846, 0.7775, 11 / 19, 2 / 3), 2: (0.8804, 0.7571, 0.7646, 1.0, 1.0)}
KEYS = ("codebleu", "ngram_match_score", "weighted_ngram_match_score", "syntax_match_score", "dataflow_match_score")
#: the same five numbers of refscore.score under the native rule's own names
NATIVE_KEYS = ("codebleu_native", "ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match")


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_compat_native_and_the_package_agree_on_the_worked_examples(example: int) -> None:
    candidate = EXAMPLES[example]
    ours = calc_codebleu([REFERENCE], [candidate], "java")
    package = codebleu_oracle.calc_codebleu([REFERENCE], [candidate], "java")
    native = refscore.score([candidate], [REFERENCE], language="java", metrics=("codebleu",))[0]
    for key, native_key, value in zip(KEYS, NATIVE_KEYS, TODAY[example]):
        assert ours[key] == pytest.approx(package[key], abs=1e-12), key
        assert getattr(native, native_key) == pytest.approx(package[key], abs=1e-12), key
        assert package[key] == pytest.approx(value, abs=5e-5), key


def test_example_one_bleu_is_the_figures_and_its_codebleu_needs_a_different_syntax_match() -> None:
    result = calc_codebleu([REFERENCE], [EXAMPLES[1]], "java")
    assert round(100 * result["ngram_match_score"], 2) == 78.46  # the figure's BLEU, exactly
    # the figure's 72.38 is what a syntax match of 2/3 (not today's 11/19) would give
    parts = (result["ngram_match_score"], result["weighted_ngram_match_score"], 2 / 3, result["dataflow_match_score"])
    assert round(100 * sum(parts) / 4, 2) == pytest.approx(72.38, abs=0.015)


def test_example_two_differs_only_in_the_ngram_components() -> None:
    result = calc_codebleu([REFERENCE], [EXAMPLES[2]], "java")
    assert (result["syntax_match_score"], result["dataflow_match_score"]) == (1.0, 1.0)
    # the figure's 83.97 with syntax and dataflow 1 leaves 135.88 for BLEU + weighted BLEU; ours give 152.17
    assert 100 * (result["ngram_match_score"] + result["weighted_ngram_match_score"]) == pytest.approx(152.17, abs=0.01)
