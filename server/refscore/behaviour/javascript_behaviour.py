"""Behaviour of JavaScript and TypeScript code under node: the reference's inputs made and run
once (cached), then the candidate run on the kept ones in a sandbox of its own, outcome by
outcome, the same flow as ``python_behaviour`` (its ``Plan`` and ``result_of``, ``select`` and
``program_mode``). TypeScript is first turned into JavaScript (``js_typescript``). A reference
without top-level functions, or one that reads its standard input, runs in program mode
(``node program.js`` with the same standard input for both)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Callable, Mapping

from . import program_mode
from .calls import Call, Plan
from .compare import shown
from .inputs.javascript_examples import parse, read_calls, read_shapes
from .inputs.js_literals import js_arguments
from .inputs.python_inputs import candidate_calls
from .inputs.teacher_file import InputsFileError, read_stdins
from .js_script import commonjs, reads_stdin
from .js_typescript import TypeScriptError, strip_types
from .python_behaviour import function_signature, plan_of_run, result_of
from .result import BehaviourResult
from .select import promising
from .runners import javascript as runner
from .sandbox import Completed, Sandbox
from .. import languages
from .settings import BehaviourSettings

#: The runners of the registry (``LanguageSpec.runner``) this module runs: node, TypeScript first stripped.
KINDS = ("node", "node-typescript", "node-tsx")
LANGUAGES = tuple(spec.name for spec in languages.LANGUAGES if spec.runner in KINDS)
#: How long the reference may take over all of its candidate inputs.
REFERENCE_WALL = 60.0
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")


class _Unrunnable(Exception):
    """A program that cannot be given to node: ``reason`` (a disagreement's, for a candidate)
    or, when ``ours``, why behaviour does not run at all (a TypeScript form not handled)."""

    def __init__(self, reason: str, ours: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.ours = ours


def _javascript(source: str, language: str) -> tuple[str, dict[str, tuple[str | None, ...]]]:
    """``source`` as JavaScript, with the TypeScript parameter types of its top-level functions."""
    if languages.get(language).runner == "node":  # plain JavaScript: nothing to strip
        return source, {}
    try:
        stripped = strip_types(source, language)
    except TypeScriptError as error:
        if error.syntax:
            raise _Unrunnable(f"does not parse: SyntaxError at line {error.line}") from None
        raise _Unrunnable(f"could not turn TypeScript into JavaScript ({error})", ours=True) from None
    return stripped.javascript, stripped.types


def _program_runner(sandbox: Sandbox, program: str, stdin: str, seconds: float) -> Completed:
    return runner.run_program(sandbox, program, stdin, seconds)


@lru_cache(maxsize=256)
def plan(sandbox: Sandbox, reference: str, settings: BehaviourSettings, language: str = "javascript") -> Plan:
    """The inputs of ``reference`` and its outcomes (made once per reference, settings, language)."""
    try:
        javascript, hints = _javascript(reference, language)
    except _Unrunnable as error:
        return Plan(skipped=error.reason if error.ours else
                    f"could not turn TypeScript into JavaScript ({error.reason.removeprefix('does not parse: ')})")
    try:
        shapes = read_shapes(javascript, hints)
    except SyntaxError as error:
        return Plan(skipped="the reference does not parse" + (f" (line {error.lineno})" if error.lineno else ""))
    except (ValueError, RecursionError, MemoryError):
        return Plan(skipped="the reference does not parse")
    functions = {n: s for n, s in shapes.functions.items() if _IDENTIFIER.match(n)}
    if not functions or reads_stdin(javascript):
        stdins = read_stdins(settings.inputs) if settings.inputs else [""]
        return program_mode.plan(sandbox, javascript, stdins, _program_runner)
    shapes.functions = functions
    try:
        extra = read_calls(settings.inputs, set(functions)) if settings.inputs else []
    except InputsFileError as error:
        return Plan(skipped=str(error))
    calls = _javascript_calls(candidate_calls(shapes, extra, settings.seed))
    if settings.functions is not None:
        calls = [c for c in calls if c.function in settings.functions]
    if not calls:
        return Plan(skipped="no inputs: the reference shows no example call; give an inputs file")
    load, records = runner.run_calls(sandbox, commonjs(javascript), calls, call_seconds=1.0,
                                     wall_seconds=REFERENCE_WALL)
    return plan_of_run(calls, load, records, settings, promising(functions))


def _javascript_calls(calls: list[Call]) -> list[Call]:
    """``candidate_calls``' inputs with the made ones (Python literals) written as JavaScript,
    each once."""
    out: list[Call] = []
    seen: set[tuple[str, str]] = set()
    for call in calls:
        if call.origin in ("boundary", "typed", "mutant") and call.values is not None:
            try:
                call = Call(call.function, js_arguments(call.values), call.origin, call.values)
            except (TypeError, ValueError):
                continue
        key = (call.function, js_arguments(call.values) if call.values is not None else call.args)
        if key not in seen:
            seen.add(key)
            out.append(call)
    return out


def judge(sandbox: Sandbox, the_plan: Plan, candidate: str,
          language: str = "javascript") -> list[tuple[Call, dict, dict]]:
    """Each kept input with the reference's and the candidate's outcome (``_Unrunnable`` with
    ``ours`` when the candidate's TypeScript cannot be turned)."""
    pairs = list(zip(the_plan.calls, the_plan.outcomes))
    try:
        javascript, _ = _javascript(candidate, language)
    except _Unrunnable as error:
        if error.ours:
            raise
        return [(c, o, {"load_error": error.reason}) for c, o in pairs]
    wall = the_plan.wall_seconds(the_plan.outcomes)
    load, records = runner.run_calls(sandbox, commonjs(javascript), list(the_plan.calls), the_plan.call_seconds, wall)
    if load is None or load.get("load") != "ok":
        failure = _load_failure(load or {})
        records = [{"load_error": failure} for _ in pairs]
    return [(c, o, r) for (c, o), r in zip(pairs, records)]


def _load_failure(load: Mapping[str, Any]) -> str:
    """Why the candidate did not load, in one line."""
    kind = str(load.get("e", "crash"))
    message = " ".join(str(load.get("m") or "").split())[:120]
    if kind == "SyntaxError":
        return "does not parse: SyntaxError" + (f" at line {load['line']}" if load.get("line") else "") + (
            f" ({message})" if message else "")
    return f"does not load: {kind}" + (f" ({message})" if message else "")


def javascript_behaviour(language: str) -> Callable[[Sandbox, str, str, BehaviourSettings], BehaviourResult]:
    """The behaviour runner of ``javascript``, ``typescript`` or ``tsx``."""

    def behaviour(sandbox: Sandbox, reference: str, candidate: str, settings: BehaviourSettings) -> BehaviourResult:
        if runner.node_path() is None:
            return BehaviourResult.skipped(f"not available for {language}: node is not installed")
        the_plan = plan(sandbox, reference, settings, language)
        runtime = f"node:{runner.node_version(sandbox)}"
        if the_plan.stdins is not None:
            return _program_behaviour(sandbox, the_plan, candidate, runtime, language)
        signature = function_signature(sandbox, the_plan, settings, runtime, language)
        if the_plan.skipped is not None:
            return BehaviourResult.skipped(the_plan.skipped, signature)
        try:
            judged = judge(sandbox, the_plan, candidate, language)
        except _Unrunnable as error:
            return BehaviourResult.skipped(error.reason, signature)
        return result_of(judged, "function", signature, show=js_shown)

    behaviour.__name__ = f"{language}_behaviour"
    return behaviour


def _program_behaviour(sandbox: Sandbox, the_plan: Plan, candidate: str, runtime: str,
                       language: str) -> BehaviourResult:
    signature = program_mode.signature(sandbox, the_plan, runtime, language)
    try:
        javascript, _ = _javascript(candidate, language)
        if the_plan.skipped is None and parse(javascript).root_node.has_error:  # node has the last word
            refused = runner.syntax_error(sandbox, javascript)
            if refused is not None:
                raise _Unrunnable(f"does not parse: {refused}")
    except _Unrunnable as error:
        if error.ours or the_plan.skipped is not None:
            return BehaviourResult.skipped(the_plan.skipped or error.reason, signature)
        return program_mode.every_input_fails(the_plan, error.reason, signature)
    return program_mode.behaviour(sandbox, the_plan, javascript, runtime, _program_runner, language)


# --- how a reader sees a JavaScript outcome ------------------------------------------------


def js_shown(record: Mapping[str, Any], limit: int = 200) -> str:
    """An outcome in JavaScript's notation: ``[1, 2]``, ``throws TypeError: bad``, ``timeout``."""
    if "v" in record:
        text = js_render(record["v"])
        if record.get("out") and record["v"] == ["u"]:
            text = "prints " + json.dumps(record["out"], ensure_ascii=False)
    elif "e" in record:
        message = record.get("m") or ""
        text = f"throws {record['e']}" + (f": {message}" if message else "")
    else:
        return shown(record, limit)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def js_render(value: Any) -> str:
    """A tagged value (``harness/js_calls.js``) as JavaScript writes it."""
    tag = value[0]
    if tag == "n":
        return "null"
    if tag == "u":
        return "undefined"
    if tag == "b":
        return "true" if value[1] else "false"
    if tag == "i":
        return value[1]
    if tag == "f":
        raw = value[1]
        if isinstance(raw, str):
            return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(raw, raw)
        return repr(raw)
    if tag == "s":
        return json.dumps(value[1], ensure_ascii=False)
    if tag in ("l", "t"):
        return "[" + ", ".join(js_render(v) for v in value[1]) + "]"
    if tag == "d":
        return "{" + ", ".join(f"{_key(k)}: {js_render(v)}" for k, v in value[1]) + "}"
    if tag == "S":
        return f"Set({len(value[1])}) {{" + ", ".join(js_render(v) for v in value[1]) + "}"
    if tag == "g":
        return "[iterator: " + ", ".join(js_render(v) for v in value[1]) + "]"
    if tag == "h":
        return f"<large value {value[1][:12]}>"
    if tag == "o":
        return value[2]
    from .compare import render

    return render(value)


def _key(key: Any) -> str:
    if key[0] == "s" and _IDENTIFIER.match(key[1]):
        return key[1]
    return js_render(key) if key[0] == "s" else f"[{js_render(key)}]"


RUNNERS = {language: javascript_behaviour(language) for language in LANGUAGES}

__all__ = ["LANGUAGES", "RUNNERS", "javascript_behaviour", "js_render", "js_shown", "judge", "plan"]
