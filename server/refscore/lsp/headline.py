"""The document's behaviour for its summary: the per-function runs the editor kept (``lsp.behaviour``)
added up, so that where behaviour ran it leads the summary and its hover ("behaves like the
reference on 37 of 40 inputs (average 17/20, median 20/20)")."""

from __future__ import annotations

from typing import Any

from ..behaviour.result import BehaviourResult, FunctionAgreement
from .results import Result


def document_behaviour(runs: Any, result: Result | None) -> BehaviourResult | None:
    """The kept behaviour of ``result``'s paired functions as one result (``runs``: the server's
    ``lsp.behaviour.Behaviour``, which has ``found(result, pair)``); None where none ran."""
    if result is None or runs is None or result.problem is not None:
        return None
    functions = []
    for pair in result.functions:
        found = runs.found(result, pair)
        if found is not None and found.ran and found.inputs:
            functions.append(FunctionAgreement(pair.function.name, found.inputs, found.agreed))
    if not functions:
        return None
    inputs, agreed = sum(f.inputs for f in functions), sum(f.agreed for f in functions)
    return BehaviourResult(agreed / inputs, inputs, agreed, functions=tuple(functions))
