"""Parity: refscore.dataflow (compat mode) equals the codebleu 0.7.0 package, patched for order.

Each snippet is stripped with the package's ``remove_comments_and_docstrings`` and the same text
is fed to both sides. Compared: the edges (d[0], d[1], d[2], list(d[3]), list(d[4])), in order;
the normalised edges; and the per-pair match counts of ``corpus_dataflow_match``.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for _path in (str(ROOT), str(ROOT / "server")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from refscore import languages  # noqa: E402
from refscore.dataflow import extract_dataflow, normalize_dataflow  # noqa: E402
from refscore.eval.data import default_data_dir
from refscore.metrics.dataflow import match_dataflow  # noqa: E402

from tests.support import codebleu_oracle  # noqa: E402

#: HumanEval completions (gzipped JSONL, fields ``hyp`` and ``ref``); read in place, never copied.
HUMANEVAL_DIR = default_data_dir() / "humaneval"
HUMANEVAL_FILES = {"python": "python", "java": "java", "javascript": "js", "cpp": "cpp"}
HUMANEVAL_SNIPPETS = 300
HANDWRITTEN_DIR = ROOT / "tests" / "data" / "dataflow"
SEPARATOR = "-----8<-----"
HANDWRITTEN_LANGS = ("c_sharp", "c", "go", "ruby", "php", "rust")
#: The other parity corpus of this project (pairs), used as extra snippets where present.
PAIR_CORPUS_DIR = ROOT / "tests" / "data" / "parity"


@lru_cache(maxsize=1)
def _oracle():
    module = codebleu_oracle.dataflow_module()
    codebleu_oracle.load()
    from codebleu_ordered.parser import remove_comments_and_docstrings  # type: ignore
    from codebleu_ordered.utils import get_tree_sitter_language  # type: ignore
    return module, remove_comments_and_docstrings, get_tree_sitter_language


@lru_cache(maxsize=None)
def _oracle_parser(lang: str):
    from tree_sitter import Parser
    module, _, get_language = _oracle()
    return [Parser(get_language(lang)), module.dfg_function[lang]]


def strip(code: str, lang: str) -> str:
    """The package's comment/docstring removal (kept as-is when it fails, like the package)."""
    try:
        return _oracle()[1](code, lang)
    except Exception:
        return code


def oracle_edges(code: str, lang: str) -> list[tuple]:
    dfg = _oracle()[0].get_data_flow(code, _oracle_parser(lang))
    return [(d[0], d[1], d[2], list(d[3]), list(d[4])) for d in dfg]


def our_flow(code: str, lang: str):
    root = languages.get(lang).parse(code.encode("utf8")).root_node
    return extract_dataflow(root, code, lang)


def as_tuples(edges) -> list[tuple]:
    return [(e.name, e.token, e.relation, list(e.parent_names), list(e.parent_tokens)) for e in edges]


def assert_same(code: str, lang: str) -> None:
    ours = our_flow(code, lang)
    expected = oracle_edges(code, lang)
    assert as_tuples(ours) == expected, f"{lang} snippet:\n{code}"
    theirs_norm = _oracle()[0].normalize_dataflow(_oracle()[0].get_data_flow(code, _oracle_parser(lang)))
    assert [(a, b, list(c)) for a, b, c in normalize_dataflow(ours)] == [
        (a, b, list(c)) for a, b, c in theirs_norm]


def package_counts(ref: str, hyp: str, lang: str) -> tuple[int, int]:
    """The package's per-pair counting (corpus_dataflow_match's inner loop)."""
    module = _oracle()[0]
    cand = module.normalize_dataflow(module.get_data_flow(hyp, _oracle_parser(lang)))
    refs = module.normalize_dataflow(module.get_data_flow(ref, _oracle_parser(lang)))
    matched = 0
    for item in refs:
        if item in cand:
            matched += 1
            cand.remove(item)
    return matched, len(refs)


# ----------------------------------------------------------------------------- corpora

def humaneval_pairs(lang: str) -> list[tuple[str, str]]:
    path = HUMANEVAL_DIR / f"{HUMANEVAL_FILES[lang]}.jsonl.gz"
    if not path.exists():
        pytest.skip(f"HumanEval data not found at {path} (the shared evaluation data)")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    step = max(1, len(rows) // HUMANEVAL_SNIPPETS)
    pairs = [(strip(r["ref"], lang), strip(r["hyp"], lang)) for r in rows[::step]]
    return pairs[:HUMANEVAL_SNIPPETS]


def handwritten(lang: str) -> list[str]:
    text = (HANDWRITTEN_DIR / f"{lang}.txt").read_text(encoding="utf-8")
    snippets = [s.strip("\n") + "\n" for s in text.split(SEPARATOR + "\n")]
    extra = PAIR_CORPUS_DIR / f"{lang}.jsonl"
    if extra.exists():
        for line in extra.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                snippets += [row["reference"], row["candidate"]]
    return [strip(s, lang) for s in snippets]


# ----------------------------------------------------------------------------- tests

@pytest.mark.parametrize("lang", sorted(HUMANEVAL_FILES))
def test_humaneval_parity(lang: str) -> None:
    pairs = humaneval_pairs(lang)
    assert len(pairs) >= 200
    nonempty = 0
    for ref, hyp in pairs:
        for code in (ref, hyp):
            assert_same(code, lang)
        result = match_dataflow(our_flow(ref, lang), our_flow(hyp, lang))
        matched, total = package_counts(ref, hyp, lang)
        assert (result.matched, result.total) == (matched, total), f"{lang} pair:\n{ref}\n---\n{hyp}"
        assert len(result.unmatched) == total - matched
        nonempty += total > 0
    assert nonempty > len(pairs) // 2


@pytest.mark.parametrize("lang", HANDWRITTEN_LANGS)
def test_handwritten_parity(lang: str) -> None:
    snippets = handwritten(lang)
    assert len(snippets) >= 25
    for code in snippets:
        assert_same(code, lang)
    for ref, hyp in zip(snippets, snippets[1:]):
        result = match_dataflow(our_flow(ref, lang), our_flow(hyp, lang))
        assert (result.matched, result.total) == package_counts(ref, hyp, lang)
    if lang == "rust":  # the package's Rust rules never walk a function body (no parameters here)
        assert not oracle_edges(snippets[0], lang)
    else:
        assert sum(bool(oracle_edges(code, lang)) for code in snippets) >= len(snippets) // 2


def _python_nest(depth: int, rng: random.Random) -> str:
    lines = ["def f(n, a):", "    s = 0", "    t = a"]
    for level in range(depth):
        pad = "    " * (level + 1)
        kind = rng.choice(["for", "for", "while"])
        lines.append(f"{pad}{'for i%d in range(n):' % level if kind == 'for' else 'while s < n:'}")
        inner = pad + "    "
        lines.append(f"{inner}{rng.choice(['s', 't'])} = {rng.choice(['s', 't', 'a'])} + {level}")
        if rng.random() < 0.7:
            lines += [f"{inner}if s > t:", f"{inner}    t = s - i{max(level - 1, 0)}",
                      f"{inner}elif t > a:", f"{inner}    s += t",
                      f"{inner}else:", f"{inner}    a = t"]
    body = "    " * (depth + 1)
    lines += [f"{body}s, t = t, s", f"{body}a = a * s", "    return s + t"]
    return "\n".join(lines) + "\n"


def _java_nest(depth: int, rng: random.Random) -> str:
    lines = ["class A {", "int f(int n, int a) {", "int s = 0;", "int t = a;"]
    for level in range(depth):
        kind = rng.choice(["for", "for", "while", "each"])
        if kind == "for":
            lines.append(f"for (int i{level} = 0; i{level} < n; i{level}++) {{")
        elif kind == "each":
            lines.append(f"for (int i{level} : arr) {{")
        else:
            lines.append("while (s < n) {")
        lines.append(f"{rng.choice(['s', 't'])} = {rng.choice(['s', 't', 'a'])} + {level};")
        if rng.random() < 0.7:
            lines.append("if (s > t) { t = s - 1; } else if (t > a) { s += t; } else { a = t; }")
    lines += ["s = t; a = a * s;"] + ["}"] * depth + ["return s + t;", "}", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang,make", [("python", _python_nest), ("java", _java_nest)])
def test_nested_loop_parity(lang: str, make) -> None:
    rng = random.Random(7)
    for depth in (2, 2, 3, 3, 4, 4, 4, 6):
        for _ in range(4):
            assert_same(make(depth, rng), lang)


@pytest.mark.parametrize("lang", ["python", "java"])
def test_ten_nested_loops_parity(lang: str) -> None:
    """2**10 passes in the package, a handful of memoised ones here: same edges."""
    if lang == "python":
        code = "def f(n):\n    s = 0\n" + "".join(
            "    " * (k + 1) + f"for i{k} in range(n):\n" + "    " * (k + 2) + f"s = s + i{k}\n"
            for k in range(10)) + "    return s\n"
    else:
        code = ("class A { int f(int n) { int s = 0;\n" + "".join(
            f"for (int i{k} = 0; i{k} < n; i{k}++) {{ s = s + i{k};\n" for k in range(10))
            + "}" * 10 + " return s; } }\n")
    assert_same(code, lang)


@pytest.mark.parametrize("lang,code", [
    ("python", "x = 'é'\ny = x + 'ü'\nz = y\n"),
    ("java", "class A { void f() { String s = \"日本\"; String t = s + \"x\"; t = s; } }"),
    ("python", "a, b, c = 'xyz'\nd = a\n"),  # the package fails inside the string: no dataflow
    ("python", "x = f'{y}'\nz = x\n"),
    ("javascript", "let a = 1; var b = a + 2; a += b; for (var i = 0; i < b; i++) { a = i; }"),
    ("php", "<?php foreach ($a as $k => $v) { $s = $v; }"),  # the package fails: no dataflow
])
def test_quirk_parity(lang: str, code: str) -> None:
    assert_same(strip(code, lang), lang)


def test_score_equals_package_corpus_match() -> None:
    module = _oracle()[0]
    pairs = [("def f(a):\n    b = a + 1\n    return b\n", "def g(x):\n    y = x + 1\n    return y\n"),
             ("x = 1\ny = x\n", "y = 2\n")]
    for ref, hyp in pairs:
        result = match_dataflow(our_flow(strip(ref, "python"), "python"),
                                our_flow(strip(hyp, "python"), "python"))
        expected = module.corpus_dataflow_match([[ref]], [hyp], "python")
        assert result.matched / result.total == pytest.approx(expected)
