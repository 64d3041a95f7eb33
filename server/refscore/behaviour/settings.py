"""What a behaviour run may be told: an inputs file, how many inputs, the seed, which functions."""

from __future__ import annotations

from dataclasses import dataclass

#: Inputs kept per function (program mode: per program).
DEFAULT_INPUTS = 40


@dataclass(frozen=True)
class BehaviourSettings:
    """``inputs``: a teacher's inputs file, its text (``inputs.teacher_file``); ``per_function``:
    inputs kept per function; ``functions``: only these (an entry point), None: every function the
    reference and the candidate share; ``allow_unsandboxed``: run without a sandbox (a warning)."""

    inputs: str | None = None
    per_function: int = DEFAULT_INPUTS
    seed: int = 0
    functions: tuple[str, ...] | None = None
    allow_unsandboxed: bool = False
