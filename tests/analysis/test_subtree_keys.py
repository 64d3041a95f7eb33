"""The fast compat subtree keys are equal exactly when tree-sitter's S-expressions are."""

from __future__ import annotations

import json
from pathlib import Path

from refscore import languages
from refscore.analysis.comments import strip_compat
from refscore.parsing.trees import _shape_keys, compat_subtree_keys

PARITY = Path(__file__).parent.parent / "data" / "parity"


def _post_order_sexps(node) -> list[str]:
    out: list[str] = []
    for child in node.children:
        if child.child_count:
            out.extend(_post_order_sexps(child))
    out.append(str(node))
    return out


def _texts() -> list[tuple[str, str]]:
    """The parity documents, each also with a bite taken out (trees with ERROR and MISSING nodes)."""
    found = []
    for path in sorted(PARITY.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for text in (row["reference"], row["candidate"]):
                cut = len(text) // 3
                found += [(path.stem, text), (path.stem, text[:cut] + text[cut + 5:]),
                          (path.stem, text[:2 * cut])]
    return found


def test_shape_keys_are_a_bijection_with_sexps_across_documents() -> None:
    key_to_sexp: dict[int, str] = {}
    sexp_to_key: dict[str, int] = {}
    checked = with_errors = 0
    for lang, text in _texts():
        root = languages.get(lang).parse(strip_compat(text, lang).encode()).root_node
        keys = _shape_keys(root)
        if keys is None:
            continue
        checked += 1
        with_errors += root.has_error
        for key, sexp in zip(keys, _post_order_sexps(root), strict=True):
            assert key_to_sexp.setdefault(key, sexp) == sexp
            assert sexp_to_key.setdefault(sexp, key) == key
    assert checked > 600 and with_errors > 200


def test_what_a_walk_cannot_tell_falls_back_to_sexps() -> None:
    python = languages.get("python")
    # two statements on one line: a hidden token (the newline) is MISSING, printed but never walked
    dedent = python.parse(b"def f(x):\n    if x:\n        return True  return False\n").root_node
    assert "(MISSING _newline)" in str(dedent)
    assert _shape_keys(dedent) is None
    assert all(isinstance(k, str) for k in compat_subtree_keys(dedent))
    unexpected = languages.get("java").parse(b"class A { void f() { int x = 1 @@ ; } }").root_node
    if "UNEXPECTED" in str(unexpected):
        assert _shape_keys(unexpected) is None
    # a visible MISSING ";" and ")": keyed by shape, told apart from the complete statement
    java = languages.get("java")
    missing = java.parse(b"class A { void f() { int x = 1 } }").root_node
    assert '(MISSING ";")' in str(missing)
    whole = java.parse(b"class A { void f() { int x = 1; } }").root_node
    assert all(isinstance(k, int) for k in compat_subtree_keys(missing))
    assert not set(compat_subtree_keys(missing)) >= set(compat_subtree_keys(whole))
    keys = compat_subtree_keys(missing)
    assert all(isinstance(k, int) for k in keys) and len(keys) == len(_post_order_sexps(missing))


def test_anonymous_nodes_with_keyword_children_are_keyed_without_sexps() -> None:
    """Python's ``not in`` / ``is not`` are anonymous nodes with children: keyed by shape (no
    S-expression of the whole tree), still a bijection with the S-expressions."""
    python = languages.get("python")
    texts = ["x = a not in b\n", "y = c is not d\n", "if k not in seen and v is not None:\n    seen.add(k)\n",
             "z = [i for i in xs if i not in ys]\n", "def f(a):\n    return a not in (1, 2) and a is not b\n",
             "def f(a):\n    return a in (1, 2) and a is b\n"]
    key_to_sexp: dict[int, str] = {}
    sexp_to_key: dict[str, int] = {}
    for text in texts + [t[:-4] for t in texts]:  # cut short: trees with errors too
        root = python.parse(text.encode()).root_node
        keys = _shape_keys(root)
        if text in texts:
            assert keys is not None, text
            assert all(isinstance(k, int) for k in compat_subtree_keys(root))
        if keys is None:
            continue
        for key, sexp in zip(keys, _post_order_sexps(root), strict=True):
            assert key_to_sexp.setdefault(key, sexp) == sexp
            assert sexp_to_key.setdefault(sexp, key) == key
    assert {"(not in(\"not\")(\"in\")", "(is not(\"is\")(\"not\")"} <= set(key_to_sexp.values())
