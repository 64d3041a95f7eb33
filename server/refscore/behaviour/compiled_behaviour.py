"""Behaviour of C, C++ and Java programs, in program mode: the reference and the candidate each
compiled once in a sandbox (``runners.compiled``), then run with the same standard inputs (a
teacher's inputs file, else the empty input once) in fresh sandboxes, their outputs compared by
``program_mode``."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from . import program_mode
from .compare import shown
from .inputs.teacher_file import read_stdins
from .result import KEPT_DISAGREEMENTS, BehaviourResult, Disagreement, FunctionAgreement
from .runners import compiled as runner
from .sandbox import Completed, Sandbox
from .. import languages
from .settings import BehaviourSettings

#: The runners of the registry (``LanguageSpec.runner``) this module runs.
KINDS = ("gcc", "g++", "javac")
LANGUAGES = tuple(spec.name for spec in languages.LANGUAGES if spec.runner in KINDS)


def _program_runner(toolchain: runner.Toolchain) -> program_mode.Runner:
    def run(sandbox: Sandbox, program: str, stdin: str, seconds: float) -> Completed:
        return runner.run_compiled(sandbox, toolchain, runner.compile_program(sandbox, toolchain, program), stdin,
                                   seconds)
    return run


@lru_cache(maxsize=64)
def _plan(sandbox: Sandbox, toolchain: runner.Toolchain, reference: str, inputs: str | None) -> Any:
    stdins = read_stdins(inputs) if inputs else [""]
    return program_mode.plan(sandbox, reference, stdins, _program_runner(toolchain))


def _signature(sandbox: Sandbox, the_plan: Any, runtime: str, language: str) -> str:
    # The same form as ``program_mode.behaviour``'s.
    return (f"behaviour|lang:{language}|mode:program|inputs:{the_plan.digest or 'none'}|n:{len(the_plan.calls)}"
            f"|sandbox:{sandbox.kind}|{runtime}|version:1")


def compiled_behaviour(language: str) -> Callable[[Sandbox, str, str, BehaviourSettings], BehaviourResult]:
    """The behaviour runner of one compiled language."""

    def behaviour(sandbox: Sandbox, reference: str, candidate: str, settings: BehaviourSettings) -> BehaviourResult:
        toolchain = runner.find_toolchain(language)
        if isinstance(toolchain, str):
            return BehaviourResult.skipped(f"not available for {language}: {toolchain}")
        problem = runner.jvm_problem(sandbox, toolchain) if toolchain.kind == "javac" else None
        if problem is not None:
            return BehaviourResult.skipped(f"not available for {language}: {problem}")
        from .python_behaviour import Plan

        compiled = runner.compile_program(sandbox, toolchain, reference)
        if not compiled.ok:
            return BehaviourResult.skipped(f"the reference does not compile: {compiled.error}",
                                           _signature(sandbox, Plan(), toolchain.runtime, language))
        the_plan = _plan(sandbox, toolchain, reference, settings.inputs)
        if the_plan.skipped is None:
            mine = runner.compile_program(sandbox, toolchain, candidate)
            if not mine.ok:
                return _does_not_compile(the_plan, f"does not compile: {mine.error}",
                                         _signature(sandbox, the_plan, toolchain.runtime, language))
        return program_mode.behaviour(sandbox, the_plan, candidate, toolchain.runtime, _program_runner(toolchain),
                                      language)

    behaviour.__name__ = f"{language}_behaviour"
    return behaviour


def _does_not_compile(the_plan: Any, reason: str, signature: str) -> BehaviourResult:
    total = len(the_plan.stdins)
    disagreements = tuple(Disagreement(f"stdin {stdin[:200]!r}", shown(expected), reason, reason)
                          for stdin, expected in list(zip(the_plan.stdins, the_plan.outcomes))[:KEPT_DISAGREEMENTS])
    return BehaviourResult(0.0, total, 0, (FunctionAgreement("<program>", total, 0),), disagreements,
                           mode="program", signature=signature)


RUNNERS = {language: compiled_behaviour(language) for language in LANGUAGES}
