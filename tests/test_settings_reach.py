"""How far a setting reaches: ``layer``, ``idf`` and ``backend`` are named (as a parameter, a
keyword argument, a dataclass field or a bare variable) only in the modules that decide or use
them; everywhere else they travel inside ``ScoreSettings`` / ``EncoderChoice`` and are read as
attributes (``request.encoder.layer``), which this count leaves out, as it leaves out strings and
docstrings. A loose parameter added again (``def f(model, layer, device, idf, backend)``) fails here.

The whole package is counted, the research package (``refscore.eval``) included: its layer sweep
travels as ``eval.metrics.BertColumns`` (a layer and its ``cbs_f1_L6`` column names), not as a loose
``layer``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "refscore"
NAMES = ("layer", "idf", "backend")
#: at most this many modules of the package may name each setting
LIMIT = 8


def named(tree: ast.AST, name: str) -> list[int]:
    """Lines where ``name`` is a parameter, a keyword argument, or a variable or field name."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.arg == name:
            lines.append(node.lineno)
        elif isinstance(node, ast.keyword) and node.arg == name:
            lines.append(node.value.lineno)
        elif isinstance(node, ast.Name) and node.id == name:  # variables, and dataclass fields (AnnAssign)
            lines.append(node.lineno)
    return lines


def reach(name: str) -> dict[str, list[int]]:
    """Module (relative path) -> lines naming ``name``, over the whole package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = named(ast.parse(path.read_text(encoding="utf-8")), name)
        if lines:
            out[path.relative_to(PACKAGE).as_posix()] = lines
    return out


@pytest.mark.parametrize("name", NAMES)
def test_each_setting_is_named_in_few_modules(name: str) -> None:
    modules = reach(name)
    assert len(modules) <= LIMIT, f"{name} is named in {len(modules)} modules (at most {LIMIT}): {modules}"


def test_the_count_sees_a_loose_parameter_and_not_an_attribute() -> None:
    loose = ast.parse("def score(text, layer=None):\n    return run(text, layer=layer)\n")
    carried = ast.parse("def score(text, settings):\n    '''layer, idf'''\n    return run(text, settings.encoder.layer)\n")
    assert named(loose, "layer") == [1, 2, 2] and named(carried, "layer") == []
