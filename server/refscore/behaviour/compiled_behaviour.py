"""Behaviour of C, C++ and Java programs, in program mode: the reference and the candidate each
compiled once in a sandbox (``runners.compiled``), then run with the same standard inputs (a
teacher's inputs file, else the empty input once) in fresh sandboxes, their outputs compared by
``program_mode``."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from . import program_mode
from .inputs.teacher_file import read_stdins
from .result import BehaviourResult
from .runners import compiled as runner
from .sandbox import Completed, Sandbox
from .. import languages
from .calls import Plan
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
def _plan(sandbox: Sandbox, toolchain: runner.Toolchain, reference: str, inputs: str | None) -> Plan:
    stdins = read_stdins(inputs) if inputs else [""]
    return program_mode.plan(sandbox, reference, stdins, _program_runner(toolchain))


def compiled_behaviour(language: str) -> Callable[[Sandbox, str, str, BehaviourSettings], BehaviourResult]:
    """The behaviour runner of one compiled language."""

    def behaviour(sandbox: Sandbox, reference: str, candidate: str, settings: BehaviourSettings) -> BehaviourResult:
        toolchain = runner.find_toolchain(language)
        if isinstance(toolchain, str):
            return BehaviourResult.skipped(f"not available for {language}: {toolchain}")
        problem = runner.jvm_problem(sandbox, toolchain) if toolchain.kind == "javac" else None
        if problem is not None:
            return BehaviourResult.skipped(f"not available for {language}: {problem}")
        compiled = runner.compile_program(sandbox, toolchain, reference)
        if not compiled.ok:
            return BehaviourResult.skipped(f"the reference does not compile: {compiled.error}",
                                           program_mode.signature(sandbox, Plan(), toolchain.runtime, language))
        the_plan = _plan(sandbox, toolchain, reference, settings.inputs)
        if the_plan.skipped is None:
            mine = runner.compile_program(sandbox, toolchain, candidate)
            if not mine.ok:
                return program_mode.every_input_fails(
                    the_plan, f"does not compile: {mine.error}",
                    program_mode.signature(sandbox, the_plan, toolchain.runtime, language))
        return program_mode.behaviour(sandbox, the_plan, candidate, toolchain.runtime, _program_runner(toolchain),
                                      language)

    behaviour.__name__ = f"{language}_behaviour"
    return behaviour


RUNNERS = {language: compiled_behaviour(language) for language in LANGUAGES}
