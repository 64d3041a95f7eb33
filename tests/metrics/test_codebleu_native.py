"""The native CodeBLEU API: its own rules where it differs from the package, explanations, caching."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from refscore import languages
from refscore.analysis.document import reference_structure
from refscore.dataflow import extract_dataflow
from refscore.compat import calc_codebleu
from refscore.scoring.codebleu import score_codebleu
from refscore.scoring.corpus import corpus_codebleu_compat

REFERENCE = """def total(values):
    result = 0
    for value in values:
        result = result + value
    return result
"""


def test_identical_code_scores_one() -> None:
    result = score_codebleu([REFERENCE], REFERENCE, "python")
    assert result.score == pytest.approx(1.0)
    assert result.explanations == ()


@pytest.mark.parametrize("code,language", [("x = 1", "python"), ("return x", "python"), ("f()", "python"),
                                           ("x = 1;", "java"), ("x++;", "javascript"), ("a", "go")])
def test_a_copy_of_a_short_text_scores_one_natively(code: str, language: str) -> None:
    """Texts shorter than four tokens have no 4-grams: the native rule leaves that order out
    (sacrebleu's effective order) instead of counting it 0.1 / 1, so a copy scores 1."""
    result = score_codebleu([code], code, language)
    assert result.component("ngram_match").score == pytest.approx(1.0)
    assert result.component("weighted_ngram_match").score == pytest.approx(1.0)
    assert result.score == pytest.approx(1.0)
    compat = calc_codebleu([code], [code], language)  # the package's numbers are kept for comparison
    assert compat["ngram_match_score"] < 1.0
    assert corpus_codebleu_compat([[code]], [code], language).score == pytest.approx(compat["codebleu"])


def test_effective_order_changes_nothing_from_four_tokens_on() -> None:
    candidate = "def total(values):\n    return sum(values)\n"
    native = score_codebleu([REFERENCE], candidate, "python")
    compat = corpus_codebleu_compat([[REFERENCE]], [candidate], "python")
    for name in ("ngram_match", "weighted_ngram_match"):
        assert native.component(name).score == pytest.approx(compat.component(name).score, abs=1e-12)


def test_no_matching_dataflow_scores_zero_not_full_credit() -> None:
    candidate = "def total(values):\n    return 42\n"
    native = score_codebleu([REFERENCE], candidate, "python")
    assert native.component("dataflow_match").score == 0.0
    package = calc_codebleu([REFERENCE], [candidate], "python")
    assert package["dataflow_match_score"] == 0
    # the package's final score gives the missing dataflow full credit; ours does not
    assert package["codebleu"] > native.score


def test_reference_without_dataflow_is_not_applicable_and_weights_renormalise() -> None:
    reference = "pass\n" * 6
    result = score_codebleu([reference], reference, "python")
    dataflow = result.component("dataflow_match")
    assert dataflow.score is None and dataflow.weight == 0.0
    weights = [c.weight for c in result.components if c.name != "dataflow_match"]
    assert sum(weights) == pytest.approx(1.0)
    assert result.score == pytest.approx(1.0)


def test_explanations_point_into_the_reference() -> None:
    candidate = "def total(values):\n    return sum(values)\n"
    result = score_codebleu([REFERENCE], candidate, "python")
    kinds = {e.component for e in result.explanations}
    assert {"ngram_match", "syntax_match", "dataflow_match"} <= kinds
    for item in result.explanations:
        assert 0 <= item.start < item.end <= len(REFERENCE)
    syntax = [REFERENCE[e.start:e.end] for e in result.explanations if e.component == "syntax_match"]
    assert "result + value" in syntax
    flow = [e for e in result.explanations if e.component == "dataflow_match"]
    assert any(REFERENCE[e.start:e.end] == "result" for e in flow)


def test_comments_do_not_change_the_structure_components() -> None:
    commented = REFERENCE.replace("result = 0", "result = 0  # start at zero").replace(
        "def total(values):", 'def total(values):\n    """Add up the values."""')
    result = score_codebleu([REFERENCE], commented, "python")
    assert result.component("syntax_match").score == pytest.approx(1.0)
    assert result.component("dataflow_match").score == pytest.approx(1.0)


def test_several_references_are_accepted() -> None:
    other = "def total(values):\n    return sum(values)\n"
    result = score_codebleu([REFERENCE, other], other, "python")
    assert result.score > score_codebleu([REFERENCE], other, "python").score


@pytest.mark.parametrize("language,reference,candidate", [
    ("rust", "fn f(x: i32) -> i32 {\n    let a = x + 1;\n    let b = a * 2;\n    b\n}\n",
     "fn f(y: i32) -> i32 {\n    let c = y + 1;\n    let d = c * 2;\n    d\n}\n"),
    ("typescript", "function f(x: number): number {\n  const a = x + 1;\n  const b = a * 2;\n  return b;\n}\n",
     "function f(y: number): number {\n  const c = y + 1;\n  const d = c * 2;\n  return d;\n}\n"),
])
def test_rust_and_typescript_have_dataflow(language: str, reference: str, candidate: str) -> None:
    result = score_codebleu([reference], candidate, language)
    dataflow = result.component("dataflow_match")
    assert dataflow.total > 0
    assert dataflow.score == pytest.approx(1.0)


def test_reference_analysis_is_reused_across_candidates() -> None:
    reference = REFERENCE + "\n# unique marker for this test\n"
    score_codebleu([reference], REFERENCE, "python")
    before = reference_structure.cache_info()
    for index in range(5):
        score_codebleu([reference], REFERENCE.replace("0", str(index)), "python")
    after = reference_structure.cache_info()  # the references' own cache (``analysis.document``)
    assert after.hits - before.hits >= 5 and after.misses == before.misses


def nested_loops(depth: int) -> str:
    lines = ["def f(n):", "    total = 0"]
    lines += ["    " * (level + 1) + f"for i{level} in range(n):" for level in range(depth)]
    lines += ["    " * (depth + 1) + "total += i0", "    return total"]
    return "\n".join(lines)


def test_sixteen_nested_loops_stay_fast() -> None:
    code = nested_loops(16)
    start = time.process_time()  # CPU time: not inflated by other processes on a busy machine
    result = score_codebleu([code], code, "python")
    assert time.process_time() - start < 3.0  # the package takes ~13 s (2^16 walks); bound is generous
    assert result.score == pytest.approx(1.0)


SCRIPT = """
import json, sys
from refscore.compat import calc_codebleu
pairs = json.loads(sys.stdin.read())
print(json.dumps([calc_codebleu([r], [c], lang)["dataflow_match_score"] for lang, r, c in pairs]))
"""

PAIRS = [
    ("python", "def f(a, b):\n    c, d = a + b, a * b\n    for i in range(c):\n        d = d + i + a\n    return c, d\n",
     "def f(x, y):\n    s, p = x + y, x * y\n    for k in range(p):\n        s = s + k + y\n    return p, s\n"),
    ("java", "int f(int a, int b) { int c = a + b; for (int i = 0; i < c; i++) { b = b + i + a; } return b; }",
     "int g(int x, int y) { int s = x * y; for (int k = 0; k < s; k++) { x = x + k + y; } return x; }"),
]


def test_dataflow_does_not_depend_on_the_hash_seed() -> None:
    outputs = set()
    for seed in ("0", "1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", SCRIPT], input=json.dumps(PAIRS), capture_output=True,
                              text=True, env=env, timeout=120, check=True)
        outputs.add(done.stdout.strip())
    assert len(outputs) == 1


def test_dataflow_explanations_are_exact_after_non_ascii_text() -> None:
    reference = "def f(values):\n    label = 'día ☺'\n    total = len(values)\n    return total, label\n"
    result = score_codebleu([reference], "def f(values):\n    return 0\n", "python")
    flow = [e for e in result.explanations if e.component == "dataflow_match"]
    assert flow
    names = {reference[item.start:item.end] for item in flow}
    assert {"label", "total", "values"} <= names
    for item in flow:
        assert item.text.startswith(reference[item.start:item.end] + " ")


@pytest.mark.parametrize("language,reference,candidate", [
    ("typescript", "function f(y: Item): Item {\n  const x = y;\n  return x;\n}\n",
     "function f(y: Item): Item {\n  const x = y as Item;\n  return x;\n}\n"),
    ("typescript", "function f(y: number[]) {\n  const x = g(y);\n  return x;\n}\n",
     "function f(y: number[]) {\n  const x = g<Array<Item>>(y) satisfies Item[];\n  return x;\n}\n"),
    ("tsx", "const A = (p: Props) => {\n  const x = p.items;\n  return <ul>{x}</ul>;\n};\n",
     "const A = (p: Props) => {\n  const x = p.items as Item[];\n  return <ul>{x}</ul>;\n};\n"),
])
def test_typescript_types_are_not_dataflow_variables(language: str, reference: str, candidate: str) -> None:
    """A type (``as T``, ``satisfies T``, ``f<T>()``) holds no value: adding one changes no edge."""
    dataflow = score_codebleu([reference], candidate, language).component("dataflow_match")
    assert dataflow.total > 0
    assert dataflow.score == pytest.approx(1.0)


def test_a_jsx_closing_tag_is_not_a_use_of_the_opening_tag() -> None:
    """``</li>`` names no variable: natively, no edge runs from a closing tag to its opening tag."""
    text = "const A = (a: string) => <ul><li>{a}</li></ul>;\n"
    root = languages.get("tsx").parse(text.encode()).root_node
    edges = extract_dataflow(root, text, "tsx", mode="native")
    assert [e for e in edges if e.name in ("ul", "li") and e.parent_names] == []
    assert any(e.name == "a" and e.parent_names == ("a",) for e in edges)
