"""RefScore has one CodeBERTScore path: the model stage's ``embed.bertscorer.BertScorer.score_batch``.

The drop-in ``compat.score`` (code-bert-score's batch effects as a ``BatchRule``), ``refscore eval``'s
layer sweep (``embed.layer_stack``) and the pipeline's model stage all score through it. Each step
below it (preparing texts, the encoder's forward pass, greedy matching, the best over references)
is called from one module only; a second CodeBERTScore implementation would have to call one of them
from elsewhere (or load a model itself), and this test names it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "refscore"

#: Function or method called -> the modules (relative to server/refscore) allowed to call it.
ONE_CALLER = {
    "prepare_texts": {"embed/bertscorer.py"},  # texts embedded and cut to their matching rows
    "match_prepared": {"embed/bertscorer.py"},  # every pair matched
    "best_over_references": {"embed/bertscorer.py"},  # the best of several references
    "idf_from_references": {"embed/bertscorer.py"},
    "match_pairs": {"embed/prepared.py"},  # batched greedy matching (metrics.codebertscore_batch)
    "greedy_match": {"embed/prepared.py"},  # the one-pair reference form
    "match_bucket": {"metrics/codebertscore_batch.py"},
    "embed": {"embed/prepared.py", "embed/incremental.py", "embed/layer_stack.py"},  # Encoder.embed
    "embed_in_parts": {"embed/prepared.py"},
    "run_model": {"embed/encoder.py"},  # the forward pass
    "from_pretrained": {"embed/encoder.py", "embed/onnx_export.py"},  # a model loaded
}
#: A model's forward pass asked for its hidden layers: only the layer sweep's stack does.
HIDDEN_STATES = {"embed/layer_stack.py"}


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def offenders(package: Path) -> list[str]:
    """``module:line: name`` of each call of a step of the path outside its one module."""
    found = []
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = _called_name(node)
            if name in ONE_CALLER and module not in ONE_CALLER[name]:
                found.append(f"{module}:{node.lineno}: {name}")
            if module not in HIDDEN_STATES and any(k.arg == "output_hidden_states" for k in node.keywords):
                found.append(f"{module}:{node.lineno}: output_hidden_states")
    return found


def test_only_the_one_path_embeds_and_matches() -> None:
    assert offenders(PACKAGE) == []


def test_every_step_named_is_still_called_where_allowed() -> None:
    """A renamed step would make its rule check nothing: each is still called in its module."""
    called: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        module = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _called_name(node) in ONE_CALLER:
                called.setdefault(_called_name(node), set()).add(module)
    assert {name: called.get(name, set()) & allowed for name, allowed in ONE_CALLER.items()} == \
        {name: allowed for name, allowed in ONE_CALLER.items()}


def test_a_second_implementation_is_named(tmp_path: Path) -> None:
    """A copy of the drop-in's old private matching (prepare, match, best over references) in
    compat/, and an eval module that runs a model for its hidden layers, are both caught."""
    (tmp_path / "compat").mkdir()
    (tmp_path / "compat" / "second.py").write_text(
        "from ..embed.prepared import match_prepared, prepare_texts\n"
        "def score(encoder, items, flat):\n"
        "    prepared = prepare_texts(encoder, items)\n"
        "    return match_prepared(flat, None, set()).scores\n", encoding="utf-8")
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "layers.py").write_text(
        "def forward(model, ids, mask):\n"
        "    return model(input_ids=ids, attention_mask=mask, output_hidden_states=True)\n", encoding="utf-8")
    assert offenders(tmp_path) == ["compat/second.py:3: prepare_texts", "compat/second.py:4: match_prepared",
                                   "eval/layers.py:2: output_hidden_states"]
