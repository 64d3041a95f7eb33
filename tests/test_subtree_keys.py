"""The fast compat subtree keys are equal exactly when tree-sitter's S-expressions are."""

from __future__ import annotations

import json
from pathlib import Path

from refscore import languages
from refscore.analysis.comments import strip_compat
from refscore.analysis.trees import _shape_keys, compat_subtree_keys

PARITY = Path(__file__).parent / "data" / "parity"


def _post_order_sexps(node) -> list[str]:
    out: list[str] = []
    for child in node.children:
        if child.child_count:
            out.extend(_post_order_sexps(child))
    out.append(str(node))
    return out


def test_shape_keys_are_a_bijection_with_sexps_across_documents() -> None:
    key_to_sexp: dict[int, str] = {}
    sexp_to_key: dict[str, int] = {}
    checked = 0
    for path in sorted(PARITY.glob("*.jsonl")):
        lang = path.stem
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for text in (row["reference"], row["candidate"]):
                root = languages.get(lang).parse(strip_compat(text, lang).encode()).root_node
                keys = _shape_keys(root)
                if root.has_error or keys is None:
                    continue
                checked += 1
                for key, sexp in zip(keys, _post_order_sexps(root)):
                    assert key_to_sexp.setdefault(key, sexp) == sexp
                    assert sexp_to_key.setdefault(sexp, key) == key
    assert checked > 300


def test_trees_with_errors_use_sexps() -> None:
    root = languages.get("python").parse(b"def f(:\n  return").root_node
    assert root.has_error
    assert all(isinstance(k, str) for k in compat_subtree_keys(root))
