"""Code tokens and prose spans read per top-level part (each part's kept by its text, shifted to
its new place) are those of the whole tree, exactly: on many edited versions of documents in
Python, JavaScript and Java, after the parts of earlier versions were kept."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refscore.analysis import leaves
from refscore.analysis.leaves import code_tokens, whole_code_tokens
from refscore.parsing.prose import prose_spans, whole_prose_spans

PYTHON_PARTS = [
    '"""Module docstring."""\n',
    "import os\n",
    "# a comment at the top level\n",
    "def mean(values):\n    \"\"\"Average.\"\"\"\n    total = 0\n    for v in values:\n        total += v\n"
    "    return total / len(values)\n",
    "@decorator(1)\ndef f(x, y=2):\n    return [i * y for i in range(x) if i]\n",
    "class Box:\n    \"\"\"A box.\"\"\"\n    size = 3\n\n    def area(self):\n        return self.size ** 2\n",
    "name = 'café ☕'  # non-ASCII: code points are not bytes\n",
    "x = 1; y = 2\n",
    "if __name__ == '__main__':\n    print(mean([1, 2, 3]))\n",
    "text = '''\nmany\nlines\n'''\n",
]
JAVASCRIPT_PARTS = [
    "// a comment\n",
    "function mean(values) {\n  let total = 0;\n  for (const v of values) { total += v; }\n"
    "  return total / values.length;\n}\n",
    "const f = (x) => x * 2;\n",
    "class Box {\n  area() { return this.size ** 2; }\n}\n",
    "const s = `template ${1 + 2} ☕`;\n",
    "let re = /a+b/g;\n",
]
JAVA_PARTS = [
    "import java.util.List;\n",
    "/** A doc comment. */\n",
    "class Mean {\n  static double mean(int[] v) {\n    int t = 0;\n    for (int x : v) t += x;\n"
    "    return (double) t / v.length;\n  }\n}\n",
    "interface Shape { double area(); }\n",
    "enum Color { RED, GREEN }\n",
]
CORPORA = {"python": PYTHON_PARTS, "javascript": JAVASCRIPT_PARTS, "java": JAVA_PARTS}


def _edit(text: str, rng: random.Random) -> str:
    """One random edit: a character typed, a span deleted, a line copied or a blank line."""
    at = rng.randrange(len(text) + 1)
    kind = rng.randrange(4)
    if kind == 0:
        return text[:at] + rng.choice("x1 (_=\n") + text[at:]
    if kind == 1:
        return text[:at] + text[at + rng.randrange(1, 4):]
    lines = text.splitlines(keepends=True)
    if not lines:
        return text + "\n"
    k = rng.randrange(len(lines))
    return "".join(lines[:k] + [lines[k] if kind == 2 else "\n"] + lines[k:])


@pytest.mark.parametrize("language", sorted(CORPORA))
def test_edited_documents_read_per_part_equal_the_whole_tree(language: str) -> None:
    rng = random.Random(43)
    parts = CORPORA[language]
    checked = per_part = 0
    for _ in range(12):
        base = "".join(rng.choice(parts) for _ in range(rng.randrange(1, 9)))
        for index in range(15):  # one edit, or two: the other parts are kept from earlier versions
            text = _edit(base, rng) if index % 2 else _edit(_edit(base, rng), rng)
            assert code_tokens(text, language) == whole_code_tokens(text, language), text
            spec = leaves.languages.get(language)
            assert prose_spans(text, spec) == whole_prose_spans(text, spec), text
            checked += 1
            per_part += not leaves.languages.get(language).parse(text.encode()).root_node.has_error
    assert checked == 180 and per_part > 45  # error-free versions were read per part


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PYTHON_PARTS), min_size=1, max_size=8), st.integers(0, 10_000))
def test_reordered_and_shifted_parts_give_the_whole_trees_tokens(chosen: list[str], seed: int) -> None:
    text = "".join(chosen)
    assert code_tokens(text, "python") == whole_code_tokens(text, "python")
    shifted = "\n" * (seed % 3) + "".join(reversed(chosen))  # the same parts in new places
    assert code_tokens(shifted, "python") == whole_code_tokens(shifted, "python")
    spec = leaves.languages.get("python")
    assert prose_spans(shifted, spec) == whole_prose_spans(shifted, spec)
    assert [shifted[a:b] for a, b in prose_spans(shifted, spec)].count("# a comment at the top level") == \
        chosen.count(PYTHON_PARTS[2])


def test_a_kept_part_is_reused_not_read_again() -> None:
    text = "".join(PYTHON_PARTS[3:6])
    code_tokens(text, "python")
    edited = text.replace("total = 0", "total = 10")  # only the first function changed
    calls: list[object] = []
    original = leaves._relative

    def counting(part, *args):  # type: ignore[no-untyped-def]
        calls.append(part.type)
        return original(part, *args)

    leaves._relative = counting
    try:
        assert code_tokens(edited, "python") == whole_code_tokens(edited, "python")
    finally:
        leaves._relative = original
    assert calls == ["function_definition"]  # the decorated function and the class were kept


def test_over_the_limit_is_the_number_of_tokens_compared_without_placing_them() -> None:
    text = "".join(PYTHON_PARTS) * 3
    broken = text + "def (:\n"
    total = len(whole_code_tokens(text, "python"))
    assert total > 100
    for limit in (0, 1, total // 2, total - 1, total, total + 1):
        assert leaves.code_tokens_over(text, "python", limit) is (total > limit)
        assert leaves.code_tokens_over(broken, "python", limit) is (len(whole_code_tokens(broken, "python")) > limit)
    assert leaves.code_tokens.peek(text, "python") is None  # counted, never built
    assert not leaves.code_tokens_over("x = 1\n", "no-such-language", 0)


def test_a_count_past_the_limit_stops_reading_parts() -> None:
    """A text far over the limit is not read to its end: its last parts are never tokenized."""
    text = "".join(f"def stop_probe_{i}(x):\n    return x + {i}\n\n" for i in range(400))  # parts no test keeps
    calls: list[str] = []
    original = leaves._relative

    def counting(part, *args):  # type: ignore[no-untyped-def]
        calls.append(part.text.decode().split("(")[0])
        return original(part, *args)

    leaves._relative = counting
    try:
        assert leaves.code_tokens_over(text, "python", 100)
    finally:
        leaves._relative = original
    assert 0 < len(calls) < 50 and "def stop_probe_399" not in calls
