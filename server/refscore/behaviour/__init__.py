"""Behaviour: the candidate run beside the reference on inputs made from the reference, in a
sandbox, and how often they agree (``run_behaviour``). Below ``scoring`` like ``metrics``;
``sandbox`` is the only module that starts untrusted processes.

``run_behaviour`` is the behaviour stage's one entry: it picks the language's runner (function
mode for Python, JavaScript and TypeScript, program mode for C, C++ and Java) and runs the
candidate beside the reference, or says in one line why it did not run."""

from __future__ import annotations

from typing import Callable

from .result import BehaviourResult, Disagreement, FunctionAgreement
from .sandbox import Sandbox, SandboxUnavailable, find_sandbox
from .settings import BehaviourSettings

__all__ = ["BehaviourResult", "BehaviourSettings", "Disagreement", "FunctionAgreement", "run_behaviour",
           "supported_languages"]

LanguageRunner = Callable[[Sandbox, str, str, BehaviourSettings], BehaviourResult]


def _runners() -> dict[str, LanguageRunner]:
    from .python_behaviour import python_behaviour

    from .. import languages

    runners: dict[str, LanguageRunner] = {s.name: python_behaviour for s in languages.LANGUAGES if s.runner == "python3"}
    try:
        from .javascript_behaviour import RUNNERS as javascript
    except ImportError:
        javascript = {}
    try:
        from .compiled_behaviour import RUNNERS as compiled
    except ImportError:
        compiled = {}
    return {**runners, **javascript, **compiled}


def supported_languages() -> tuple[str, ...]:
    """The languages behaviour can run."""
    return tuple(_runners())


def run_behaviour(reference: str, candidate: str, language: str,
                  settings: BehaviourSettings = BehaviourSettings()) -> BehaviourResult:
    """Agreement of ``candidate`` with ``reference`` on inputs made from the reference."""
    runner = _runners().get(language)
    if runner is None:
        return BehaviourResult.skipped(f"not available for {language}")
    if not reference.strip():
        return BehaviourResult.skipped("the reference is empty")
    try:
        sandbox = find_sandbox(settings.allow_unsandboxed)
    except SandboxUnavailable as error:
        return BehaviourResult.skipped(str(error))
    return runner(sandbox, reference, candidate, settings)
