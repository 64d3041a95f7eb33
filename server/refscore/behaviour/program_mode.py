"""Program mode: the same standard input to the reference and the candidate, their standard
outputs compared (trailing whitespace normalised) and their exit status (zero or not) noted.
For scripts without functions and for ``main`` exercises; each run in a fresh sandbox."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable, Sequence

from .calls import Call, Plan
from .compare import shown
from .result import KEPT_DISAGREEMENTS, BehaviourResult, Disagreement, FunctionAgreement
from .runners import python as python_runner
from .sandbox import Completed, Sandbox

#: How long one program run may take (the reference's own time sets the candidate's, up to this).
PROGRAM_SECONDS = 5.0
#: Standard inputs kept at most.
MAX_STDINS = 20
#: Runs of one candidate that time out before its remaining inputs are not run (each a timeout).
TIMEOUTS_BEFORE_GIVING_UP = 2

Runner = Callable[[Sandbox, str, str, float], Completed]


def normalised(output: bytes) -> str:
    """Standard output with trailing whitespace of each line and trailing blank lines removed."""
    text = output.decode("utf-8", "replace").replace("\r\n", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n")


def outcome(completed: Completed) -> dict[str, Any]:
    """A program run as a record ``compare`` reads: its output as a value, or why it has none."""
    if completed.timed_out:
        return {"timeout": True, "s": completed.seconds}
    if completed.output_capped:
        return {"lost": "printed too much", "s": completed.seconds}
    record: dict[str, Any] = {"v": ["s", normalised(completed.stdout)], "s": completed.seconds,
                              "status": completed.returncode}
    if completed.returncode != 0:
        lines = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        # a traceback ends with its exception; the JVM and others start with "Error: ..."
        said = next((line for line in lines if line.startswith("Error:")), lines[-1] if lines else "")
        record["m"] = said[:200] if said else f"exit {completed.returncode}"
    return record


def _python_runner(sandbox: Sandbox, program: str, stdin: str, seconds: float) -> Completed:
    return python_runner.run_program(sandbox, program, stdin, seconds)


def plan(sandbox: Sandbox, reference: str, stdins: Sequence[str], run: Runner = _python_runner) -> Plan:
    """The standard inputs the reference runs on in time, with its outcome on each."""
    calls, outcomes, failures = [], [], []
    for stdin in list(dict.fromkeys(stdins))[:MAX_STDINS]:
        record = outcome(run(sandbox, reference, stdin, PROGRAM_SECONDS))
        if "v" in record and record.get("status") == 0:
            calls.append(Call("<program>", json.dumps(stdin), "file"))
            outcomes.append(record)
        else:
            failures.append(record)
    if not calls:
        why = failures[0] if failures else {}
        detail = (f"exit {why['status']}: {why.get('m', '')}" if "status" in why
                  else "timeout" if why.get("timeout") else str(why.get("lost", "")))
        return Plan(skipped=f"the reference program fails on every input ({detail[:160]})", stdins=())
    slowest = max(float(o.get("s", 0.0)) for o in outcomes)
    digest = hashlib.sha256(json.dumps([c.args for c in calls]).encode()).hexdigest()[:12]
    return Plan(tuple(calls), tuple(outcomes), min(PROGRAM_SECONDS, max(2.0, 5 * slowest)), digest,
                stdins=tuple(json.loads(c.args) for c in calls))


def agree(expected: dict[str, Any], actual: dict[str, Any]) -> tuple[bool, str]:
    """Whether two program runs agree: the same output and both succeeded or both failed."""
    if "v" not in actual:
        return False, "timeout" if actual.get("timeout") else str(actual.get("lost", "crashed"))
    if (expected.get("status") == 0) != (actual.get("status") == 0):
        return False, f"exit status {actual.get('status')} (the reference's: {expected.get('status')})"
    if expected["v"] != actual["v"]:
        return False, "different output"
    return True, ""


def signature(sandbox: Sandbox, the_plan: Plan, runtime: str, language: str) -> str:
    """``behaviour|lang:<language>|mode:program|inputs:<digest>|n:<count>|sandbox:...|<runtime>|version:1``."""
    return (f"behaviour|lang:{language}|mode:program|inputs:{the_plan.digest or 'none'}|n:{len(the_plan.calls)}"
            f"|sandbox:{sandbox.kind}|{runtime}|version:1")


def _shown_stdin(stdin: str) -> str:
    return f"stdin {stdin[:200]!r}"


def every_input_fails(the_plan: Plan, reason: str, signature: str) -> BehaviourResult:
    """A candidate that cannot run at all (it does not compile): every input disagrees, ``reason``."""
    total = len(the_plan.stdins or ())
    disagreements = tuple(Disagreement(_shown_stdin(stdin), shown(expected), reason, reason)
                          for stdin, expected in list(zip(the_plan.stdins or (), the_plan.outcomes))[:KEPT_DISAGREEMENTS])
    return BehaviourResult(0.0, total, 0, (FunctionAgreement("<program>", total, 0),), disagreements,
                           mode="program", signature=signature)


def behaviour(sandbox: Sandbox, the_plan: Plan, candidate: str, runtime: str, run: Runner = _python_runner,
              language: str = "python") -> BehaviourResult:
    """The candidate run on each of the plan's standard inputs, compared with the reference."""
    signature_ = signature(sandbox, the_plan, runtime, language)
    if the_plan.skipped is not None:
        return BehaviourResult.skipped(the_plan.skipped, signature_)
    agreed, disagreements, timeouts = 0, [], 0
    for stdin, expected in zip(the_plan.stdins, the_plan.outcomes):
        if timeouts >= TIMEOUTS_BEFORE_GIVING_UP:  # an endless program: the rest are not run
            actual: dict[str, Any] = {"timeout": True, "skipped": True}
        else:
            actual = outcome(run(sandbox, candidate, stdin, the_plan.call_seconds))
            timeouts += bool(actual.get("timeout"))
        same, reason = agree(expected, actual)
        if same:
            agreed += 1
        elif len(disagreements) < KEPT_DISAGREEMENTS:
            disagreements.append(Disagreement(_shown_stdin(stdin), shown(expected), shown(actual), reason))
    total = len(the_plan.stdins)
    return BehaviourResult(agreed / total, total, agreed, (FunctionAgreement("<program>", total, agreed),),
                           tuple(disagreements), mode="program", signature=signature_)
