"""Behaviour of refscore.dataflow beyond package parity: native mode, bounds, robustness."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for _path in (str(ROOT), str(ROOT / "server")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from refscore import languages  # noqa: E402
from refscore.dataflow import FlowEdge, extract_dataflow, normalize_dataflow  # noqa: E402
from refscore.metrics.dataflow import match_dataflow  # noqa: E402


def flow(code: str, lang: str, mode: str = "native") -> list[FlowEdge]:
    root = languages.get(lang).parse(code.encode("utf8")).root_node
    return extract_dataflow(root, code, lang, mode=mode)


def links(edges: list[FlowEdge]) -> set[tuple[str, str, tuple[str, ...]]]:
    return {(e.name, e.relation, e.parent_names) for e in edges}


def flows(edges: list[FlowEdge], name: str, parent: str, relation: str = "") -> bool:
    """Some edge of ``name`` lists ``parent`` among its parents (with the given relation)."""
    return any(e.name == name and parent in e.parent_names and relation in ("", e.relation)
               for e in edges)


def shape(edges: list[FlowEdge]) -> list[tuple]:
    return [(e.name, e.token, e.relation, e.parent_names, e.parent_tokens) for e in edges]


RUST = "fn f(x: i32) -> i32 {\n    let a = x + 1;\n    let b = a * 2;\n    b\n}\n"


def test_rust_native_finds_let_chain() -> None:
    edges = flow(RUST, "rust")
    assert flows(edges, "a", "x", "comesFrom")
    assert flows(edges, "b", "a", "comesFrom")
    assert flows(edges, "b", "b", "comesFrom")  # the tail expression reads b
    compat = flow(RUST, "rust", mode="compat")  # the package never walks a function body
    assert {e.name for e in compat} == {"f", "x", "i32"}


def test_rust_native_statements() -> None:
    code = """
fn g(v: Vec<i32>, mut n: i32) -> i32 {
    let mut s = 0;
    s += n;
    for x in v.iter() { s = s + x; }
    while n > 0 { n -= 1; }
    loop { s = s * 2; break; }
    let h = |k: i32, m| k + m + s;
    let r = match n { 0 => s, _ => h(n, 1) };
    if s > r { s = r; } else { n = s; }
    s + n
}
"""
    edges = flow(code, "rust")
    assert flows(edges, "s", "n", "computedFrom")
    assert flows(edges, "x", "v", "computedFrom")
    assert flows(edges, "s", "x", "computedFrom")
    assert flows(edges, "n", "1", "computedFrom")
    assert flows(edges, "k", "k", "comesFrom")  # closure parameter flows into its body
    assert flows(edges, "m", "m", "comesFrom")
    assert flows(edges, "r", "s", "comesFrom")
    assert flows(edges, "s", "r", "computedFrom")
    # the loop feeds s back into itself: the read of s in the for body sees both definitions
    reads = [e for e in edges if e.name == "s" and e.relation == "comesFrom" and len(e.parent_tokens) > 1]
    assert reads


@pytest.mark.parametrize("lang", ["typescript", "tsx"])
def test_typescript_native(lang: str) -> None:
    code = ("function f(x: number, y: number = 2): number {\n"
            "  let a: number = x + 1;\n  const b = a * y;\n  a += b;\n"
            "  for (let i = 0; i < b; i++) { a = a + i; }\n  return a;\n}\n")
    edges = flow(code, lang)
    assert flows(edges, "a", "x", "comesFrom")
    assert flows(edges, "b", "a", "comesFrom")
    assert flows(edges, "b", "y", "comesFrom")
    assert flows(edges, "y", "2", "comesFrom")
    assert flows(edges, "a", "b", "computedFrom")
    assert flows(edges, "i", "i", "computedFrom")


@pytest.mark.parametrize("lang,plain,commented", [
    ("python", "x = 1\ny = x + 2\nfor i in range(y):\n    x = x + i\n",
     "# head\nx = 1  # one\ny = x + 2\nfor i in range(y):  # loop\n    # body\n    x = x + i\n"),
    ("java", "class A { void f() { int x = 1; int y = x + 2; x = y; } }",
     "class A { /* c */ void f() { int x = /* one */ 1; // two\n int y = x + 2; x = y; } }"),
    ("rust", RUST, "// lead\nfn f(x: i32) -> i32 {\n    let a = /* c */ x + 1; // t\n"
                   "    let b = a * 2;\n    b\n}\n"),
    ("javascript", "let a = 1; let b = a + 1;", "let a = 1; /* x */ let b = a // y\n + 1;"),
])
def test_native_ignores_comments(lang: str, plain: str, commented: str) -> None:
    expected = shape(flow(plain, lang))
    assert expected
    assert shape(flow(commented, lang)) == expected


def test_positions_are_tree_sitter_points() -> None:
    code = "x = 1\nyy = x + 2\n"
    edges = {e.token: e for e in flow(code, "python")}
    x_use = [e for e in edges.values() if e.name == "x" and e.relation == "comesFrom"][0]
    assert x_use.start == (1, 5) and x_use.end == (1, 6)


def _python_loops(depth: int) -> str:
    lines = ["def f(n, a):", "    s = 0", "    t = a"]
    for level in range(depth):
        pad = "    " * (level + 1)
        lines += [f"{pad}for i{level} in range(n):", f"{pad}    s = s + i{level}",
                  f"{pad}    if s > t:", f"{pad}        t = s", f"{pad}    else:", f"{pad}        a = t"]
    lines.append("    return s + t + a")
    return "\n".join(lines) + "\n"


def _java_loops(depth: int) -> str:
    head = "class A { int f(int n, int a) { int s = 0; int t = a;\n"
    loops = "".join(f"for (int i{k} = 0; i{k} < n; i{k}++) {{ s = s + i{k}; if (s > t) t = s; else a = t;\n"
                    for k in range(depth))
    return head + loops + "}" * depth + " return s + t + a; } }\n"


@pytest.mark.parametrize("lang,make", [("python", _python_loops), ("java", _java_loops)])
def test_sixteen_nested_loops_are_fast(lang: str, make) -> None:
    code = make(16)
    root = languages.get(lang).parse(code.encode()).root_node
    started = time.process_time()  # CPU time: not inflated by other processes on a busy machine
    edges = extract_dataflow(root, code, lang)
    assert time.process_time() - started < 3.0  # the package's 2^16 walks take ~13 s
    assert len(edges) > 16


@pytest.mark.parametrize("lang,code", [
    ("python", "x = " + "(" * 2000 + "1" + ")" * 2000 + "\ny = x\n"),
    ("java", "class A { void f() { int x = " + "(" * 2000 + "1" + ")" * 2000 + "; } }"),
    ("javascript", "{" * 2000 + "let a = 1; let b = a;" + "}" * 2000),
    ("c", "void f() {" + "{" * 2000 + "int a = 1; a = a + 1;" + "}" * 2000 + "}"),
])
def test_deep_nesting_returns(lang: str, code: str) -> None:
    for mode in ("compat", "native"):
        assert isinstance(flow(code, lang, mode), list)


def test_large_input_returns() -> None:
    unit = "def f{n}(a, b):\n    c = a + b\n    for i in range(c):\n        a = a * i\n    return a\n\n"
    code = "".join(unit.format(n=n) for n in range(2_000_000 // len(unit)))
    assert len(code) > 1_900_000
    edges = flow(code, "python", "compat")
    assert isinstance(edges, list) and edges


def test_unknown_language_and_mode() -> None:
    root = languages.get("python").parse(b"x = 1").root_node
    with pytest.raises(ValueError):
        extract_dataflow(root, "x = 1", "cobol")
    with pytest.raises(ValueError):
        extract_dataflow(root, "x = 1", "python", mode="fast")


def test_match_dataflow_reports_unmatched_reference_edges() -> None:
    ref = flow("a = 1\nb = a\nc = b + a\n", "python", "compat")
    cand = flow("x = 1\ny = x\n", "python", "compat")
    result = match_dataflow(ref, cand)
    assert result.total == len(normalize_dataflow(ref))
    assert result.matched + len(result.unmatched) == result.total
    assert 0 < result.matched < result.total
    assert all(isinstance(e, FlowEdge) for e in result.unmatched)
    assert match_dataflow([], cand).total == 0
