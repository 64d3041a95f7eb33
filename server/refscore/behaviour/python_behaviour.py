"""Behaviour of Python code: the reference's inputs made and run once (cached), then the
candidate run on the kept ones in a sandbox of its own, outcome by outcome."""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import replace
from functools import lru_cache
from typing import Any, Callable

from .calls import Call, Plan
from .compare import outcomes_agree, shown
from .inputs.guess import guessed_annotation
from .inputs.python_examples import Shapes, read_shapes
from .inputs.python_inputs import candidate_calls
from .inputs.teacher_file import InputsFileError, read_calls, read_stdins
from .result import KEPT_DISAGREEMENTS, BehaviourResult, Disagreement, FunctionAgreement
from .runners import python as runner
from .sandbox import Sandbox
from .select import choose, expected_outcome, promising
from .settings import BehaviourSettings
from . import program_mode

#: How long the reference may take over all of its candidate inputs.
REFERENCE_WALL = 60.0


@lru_cache(maxsize=256)
def plan(sandbox: Sandbox, reference: str, settings: BehaviourSettings) -> Plan:
    """The inputs of ``reference`` and its outcomes (made once per reference and settings)."""
    try:
        shapes = with_guessed_types(read_shapes(reference), reference)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        line = getattr(error, "lineno", None)
        return Plan(skipped="the reference does not parse" + (f" (line {line})" if line else ""))
    if not shapes.functions:
        stdins = read_stdins(settings.inputs) if settings.inputs else [""]
        return program_mode.plan(sandbox, reference, stdins)
    try:
        extra = read_calls(settings.inputs, set(shapes.functions)) if settings.inputs else []
    except InputsFileError as error:
        return Plan(skipped=str(error))
    calls = candidate_calls(shapes, extra, settings.seed)
    if settings.functions is not None:
        calls = [c for c in calls if c.function in settings.functions]
    if not calls:
        return Plan(skipped="no inputs: the reference shows no example call or type hint; give an inputs file")
    load, records = runner.run_calls(sandbox, reference, calls, call_seconds=1.0, wall_seconds=REFERENCE_WALL)
    return plan_of_run(calls, load, records, settings, promising(shapes.functions))


def plan_of_run(calls: list[Call], load: dict[str, Any] | None, records: list[dict[str, Any]],
                settings: BehaviourSettings, promised: frozenset[str] = frozenset()) -> Plan:
    """The plan made from the reference's run over ``calls`` (its load line and one record per
    call): why it does not run, or the inputs ``select`` keeps, its outcome on each, the
    candidate's time per call and a digest of the inputs (``promised``: the functions whose
    docstring narrows their inputs, ``select.promising``)."""
    if load is None or load.get("load") != "ok":
        why = (load or {}).get("e", "crash")
        return Plan(skipped=f"the reference does not run ({why}: {str((load or {}).get('m', ''))[:80]})")
    kept = choose(calls, records, settings.per_function, settings.seed, promised)
    if not kept:
        return Plan(skipped="no inputs: the reference failed or ran long on every input made")
    chosen = tuple(calls[i] for i in kept)
    outcomes = tuple(expected_outcome(calls[i], records[i]) for i in kept)
    slowest = max(float(o.get("s", 0.0)) for o in outcomes)
    digest = hashlib.sha256(json.dumps([c.text for c in chosen]).encode()).hexdigest()[:12]
    return Plan(chosen, outcomes, min(2.0, max(0.5, 20 * slowest)), digest)


def with_guessed_types(shapes: Shapes, reference: str) -> Shapes:
    """``shapes`` with a guessed hint for each unannotated parameter (``inputs.guess``)."""
    nodes = {n.name: n for n in ast.parse(reference).body if isinstance(n, ast.FunctionDef)}
    for name, shape in list(shapes.functions.items()):
        node = nodes.get(name)
        if node is None or all(a is not None for a in shape.annotations):
            continue
        hints = tuple(a if a is not None else guessed_annotation(node, p)
                      for p, a in zip(shape.parameters, shape.annotations))
        shapes.functions[name] = replace(shape, annotations=hints)
    return shapes


def defined_names(tree: ast.Module) -> set[str]:
    """Names a module binds at its top level."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        else:  # names bound inside if/try/for blocks at the top level
            names.update(n.name for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
    return names


def judge(sandbox: Sandbox, the_plan: Plan, candidate: str) -> list[tuple[Call, dict, dict]]:
    """Each kept input with the reference's and the candidate's outcome."""
    try:
        names = defined_names(ast.parse(candidate))
    except SyntaxError as error:
        failure = {"load_error": f"does not parse: SyntaxError at line {error.lineno}"}
        return [(c, o, failure) for c, o in zip(the_plan.calls, the_plan.outcomes)]
    except (ValueError, RecursionError, MemoryError) as error:
        failure = {"load_error": f"does not parse: {type(error).__name__}"}
        return [(c, o, failure) for c, o in zip(the_plan.calls, the_plan.outcomes)]
    shared = [(c, o) for c, o in zip(the_plan.calls, the_plan.outcomes) if c.function in names]
    missing = [(c, o, {"missing": True}) for c, o in zip(the_plan.calls, the_plan.outcomes) if c.function not in names]
    if not shared:
        return missing
    wall = the_plan.wall_seconds(o for _, o in shared)
    load, records = runner.run_calls(sandbox, candidate, [c for c, _ in shared], the_plan.call_seconds, wall)
    if load is None or load.get("load") != "ok":
        error = load or {}
        text = f"does not load: {error.get('e', 'crash')}" + (f" at line {error['line']}" if error.get("line") else "")
        records = [{"load_error": text + (f" ({error.get('m')})" if error.get("m") and not error.get("line") else "")}
                   for _ in shared]
    return [(c, o, r) for (c, o), r in zip(shared, records)] + missing


def result_of(judged: list[tuple[Call, dict, dict]], mode: str, signature: str,
              show: Callable[[dict], str] = shown) -> BehaviourResult:
    """Agreement, per function counts and the first disagreements (outcomes as ``show`` writes
    them: Python's notation unless a language gives its own)."""
    per_function: dict[str, list[int]] = {}
    disagreements: list[Disagreement] = []
    for call, expected, actual in judged:
        counts = per_function.setdefault(call.function, [0, 0])
        counts[0] += 1
        if "load_error" in actual:
            agree, reason = False, actual["load_error"]
        else:
            agree, reason = outcomes_agree(expected, actual)
        if agree:
            counts[1] += 1
        elif len(disagreements) < KEPT_DISAGREEMENTS:
            disagreements.append(Disagreement(call.text, show(expected), show(actual) if "load_error" not in actual
                                              else reason, reason, call.function))
    total = sum(c[0] for c in per_function.values())
    agreed = sum(c[1] for c in per_function.values())
    functions = tuple(FunctionAgreement(name, c[0], c[1]) for name, c in per_function.items())
    return BehaviourResult(agreed / total if total else 0.0, total, agreed, functions, tuple(disagreements),
                           mode=mode, signature=signature)


def function_signature(sandbox: Sandbox, the_plan: Plan, settings: BehaviourSettings, runtime: str,
                       language: str) -> str:
    """``behaviour|lang:<language>|mode:function|inputs:<digest>|n:<count>|seed:<seed>|sandbox:...|<runtime>|version:1``."""
    return (f"behaviour|lang:{language}|mode:function|inputs:{the_plan.digest or 'none'}|n:{len(the_plan.calls)}"
            f"|seed:{settings.seed}|sandbox:{sandbox.kind}|{runtime}|version:1")


def python_behaviour(sandbox: Sandbox, reference: str, candidate: str, settings: BehaviourSettings) -> BehaviourResult:
    """Run both and compare; the signature says how the inputs were made and where they ran.
    A candidate text already judged against the same reference and settings is not run again."""
    return _python_behaviour(sandbox, reference, candidate, settings)


@lru_cache(maxsize=512)
def _python_behaviour(sandbox: Sandbox, reference: str, candidate: str, settings: BehaviourSettings) -> BehaviourResult:

    the_plan = plan(sandbox, reference, settings)
    version = runner.python_version()
    if the_plan.stdins is not None:
        return program_mode.behaviour(sandbox, the_plan, candidate, f"python:{version}")
    signature = function_signature(sandbox, the_plan, settings, f"python:{version}", "python")
    if the_plan.skipped is not None:
        return BehaviourResult.skipped(the_plan.skipped, signature)
    return result_of(judge(sandbox, the_plan, candidate), "function", signature)
