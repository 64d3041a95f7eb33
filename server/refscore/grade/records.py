"""One JSONL line (or Parquet row) as a ``GradeItem``: its known fields, the names they may go by
(``--fields candidate=hyp,reference=ref``), and every other field, passed through to the reports.

Known fields: ``id``, ``problem`` (a group name: the HTML page and the summary count rows per
problem; default none), ``candidate``, ``reference`` (or ``references``: a string or a list),
``language``, ``context`` and ``inputs`` (behaviour's inputs for this row instead of ``--inputs``:
an inputs file's text, one call per line or program-mode standard inputs separated by ``---``
lines, or a list of calls or standard inputs). Any other field (``passed``, ``task_id``...) is
kept with its JSON value and written beside the scores in every report (``EXTRA_PREFIX`` before a
name that is a report column already). An integer ``id`` stays an integer in JSON and Parquet.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from .. import languages
from ..analysis.text import MAX_INPUT_BYTES
from ..errors import UsageError, lone_surrogate
from ..safe_read import describe_limit
from .items import GradeItem, with_readable_names

#: The fields a line's item is made of; ``references`` is another name for ``reference``.
KNOWN_FIELDS = ("id", "problem", "candidate", "reference", "language", "context", "inputs")
#: Fields a row must have (``reference`` or ``references``).
REQUIRED = ("candidate", "reference")
#: Written before a passed-through field whose name a report column has (``input_errors``).
EXTRA_PREFIX = "input_"
#: The deepest nesting a line may have: deeper (no real data is) and keeping the row would
#: recurse past Python's limit (``dataclasses.asdict``, the writers).
MAX_DEPTH = 100
#: ``(field, name in the input)`` pairs: ``(("candidate", "hyp"), ("reference", "ref"))``.
FieldNames = tuple[tuple[str, str], ...]


def parse_fields(text: str | None) -> FieldNames:
    """``--fields candidate=hyp,reference=ref``: which input names hold which known fields; a
    usage error (one line) for an unknown field, a missing ``=`` or a field named twice."""
    if not text:
        return ()
    pairs: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        target, equals, source = (s.strip() for s in part.partition("="))
        if not equals or not target or not source:
            raise UsageError(f"--fields {text!r}: write FIELD=NAME pairs, such as candidate=hyp,reference=ref")
        target = "reference" if target == "references" else target
        if target not in KNOWN_FIELDS:
            raise UsageError(f"--fields: {target!r} is not a field; choose from {', '.join(KNOWN_FIELDS)}")
        if target in pairs:
            raise UsageError(f"--fields names {target!r} twice")
        pairs[target] = source
    return tuple(pairs.items())


def _named(data: dict[str, Any], fields: FieldNames) -> tuple[dict[str, Any], dict[str, Any]]:
    """(known fields under their own names, the other fields) of one object."""
    sources = dict(fields)
    used = set(sources.values())
    known: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        if key in used:
            continue
        own = "reference" if key == "references" else key
        if own in KNOWN_FIELDS:
            if own not in sources and own not in known:
                known[own] = value
        else:
            extra[key] = value
    for target, source in fields:
        if source in data:
            known[target] = data[source]
    return known, extra


def line_item(line: bytes, where: str, default_language: str | None, fields: FieldNames = ()) -> GradeItem:
    """The item of one line; a line that cannot be graded keeps an error saying why."""
    item = GradeItem(id=where, candidate=None, references=(), language=None, source=where)
    if len(line) > MAX_INPUT_BYTES:
        item.error = f"{where}: line is over the {describe_limit(MAX_INPUT_BYTES)} limit"
        return item
    try:
        data = json.loads(line.decode("utf-8"), parse_constant=_not_a_number)
    except UnicodeDecodeError:
        item.error = f"{where}: not UTF-8"
        return item
    except json.JSONDecodeError as error:
        at = "" if error.msg.endswith(" at") else " at"  # "Unterminated string starting at"
        item.error = f"{where}: not valid JSON ({error.msg}{at} character {error.pos + 1})"
        return item
    except RecursionError:  # json's C decoder recurses once per level of nesting
        item.error = f"{where}: JSON nested too deeply to read"
        return item
    if not isinstance(data, dict):
        item.error = f"{where}: expected a JSON object"
        return item
    if _too_deep(data):
        item.error = f"{where}: JSON nested too deeply to read (more than {MAX_DEPTH} levels)"
        return item
    known, item.extra = _named(data, fields)
    raw_id = known.get("id")
    if raw_id not in (None, ""):
        item.id = _short_text(raw_id)
        if isinstance(raw_id, int) and not isinstance(raw_id, bool):
            item.input_id = raw_id
    item.problem = _short_text(known["problem"]) if known.get("problem") not in (None, "") else None
    if "reference" in data and "references" in data and "reference" not in dict(fields):
        item.error = f"{where}: both 'reference' and 'references' (one field by two names): give one"
        return with_readable_names(item)
    item.error = _fill(item, known, data, where, default_language, fields)
    return with_readable_names(item)


def _too_deep(data: Any) -> bool:
    """Whether ``data`` nests lists and objects more than ``MAX_DEPTH`` levels (no recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > MAX_DEPTH:
                    return True
                stack.append((child, depth + 1))
    return False


def _not_a_number(constant: str) -> None:
    """``NaN``, ``Infinity`` and ``-Infinity`` (Python's ``json`` writes them, JSON has no such
    number, and no report could hold one) are read as null."""


def _short_text(value: Any) -> str:
    """An id or problem name as text: a string as it is, anything else as its JSON text (never
    a Python repr)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)[:200]
    except (RecursionError, ValueError, TypeError):
        return str(value)[:200]


#: Field names datasets give a completion and a reference (HumanEval-shaped ``hyp``/``ref``,
#: lm-evaluation-harness ``target``...), in the order a guess prefers them, compared without case.
GUESSES = {"candidate": ("hyp", "hypothesis", "completion", "completions", "prediction", "pred", "generation",
                         "generated", "generated_code", "output", "response", "model_output", "answer", "code"),
           "reference": ("ref", "target", "canonical_solution", "solution", "gold", "expected", "ground_truth",
                         "label")}
#: Field names of what a model is asked, never its answer.
PROMPTS = ("prompt", "question", "instruction")


def _missing(name: str, data: dict[str, Any], fields: FieldNames) -> str:
    """``no 'candidate' field (the row has: hyp, ref, task_id); did you mean --fields
    candidate=hyp,reference=ref?`` (a guess for every required field the row lacks, from
    ``GUESSES``), else the way to name it; a row with a prompt and no completion says so."""
    has = ", ".join(map(str, data)) or "none"
    named = dict(fields).get(name)
    if named:
        return f"no {name!r} field (the row has: {has}); --fields names {named!r} for it"
    lower = {str(key).lower(): str(key) for key in data}
    guesses = {}
    for field in REQUIRED:
        if field in dict(fields) or field in data or (field == "reference" and "references" in data):
            continue
        guess = next((lower[g] for g in GUESSES[field] if g in lower), None)
        if guess is not None:
            guesses[field] = guess
    if name in guesses:
        pairs = [*fields, *guesses.items()]
        hint = f"did you mean --fields {','.join(f'{k}={v}' for k, v in pairs)}?"
    else:
        hint = f"name the field holding it with --fields {name}=NAME"
        prompt = next((lower[p] for p in PROMPTS if p in lower), None)
        if name == "candidate" and prompt is not None:
            hint = (f"{prompt!r} is what a model is asked, not its answer: add the model's completion to each "
                    f"row and {hint} (docs/harness.md: grading lm-evaluation-harness samples)")
    return f"no {name!r} field (the row has: {has}); {hint}"


def _kind(value: Any) -> str:
    return {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "an object"}.get(
        type(value), "null" if value is None else type(value).__name__)


def _references_problem(refs: Any) -> str | None:
    """Why a row's reference list is no list of texts, in words (None when it is one)."""
    if not isinstance(refs, list):
        return f"must be a string or a list of strings, not {_kind(refs)}"
    if not refs:
        return "is an empty list: give at least one reference"
    bad = next((i for i, r in enumerate(refs) if not isinstance(r, str)), None)
    return None if bad is None else f"item {bad + 1} is {_kind(refs[bad])}, not a string"


def _fill(item: GradeItem, known: dict[str, Any], data: dict[str, Any], where: str,
          default_language: str | None, fields: FieldNames) -> str | None:
    for name in REQUIRED:
        if name not in known:
            return f"{where}: {_missing(name, data, fields)}"
    candidate, refs, context = known["candidate"], known["reference"], known.get("context")
    refs = [refs] if isinstance(refs, str) else refs
    if not isinstance(candidate, str):
        return f"{where}: 'candidate' must be a string, not {_kind(candidate)}"
    problem = _references_problem(refs)
    if problem:
        return f"{where}: 'reference' {problem}"
    if context is not None and not isinstance(context, str):
        return f"{where}: 'context' must be a string"
    inputs = known.get("inputs")
    if isinstance(inputs, list) and all(isinstance(i, str) for i in inputs):
        inputs = json.dumps(inputs, ensure_ascii=False)  # a list of calls (or standard inputs): the file's JSON form
    elif inputs is not None and not isinstance(inputs, str):
        return (f"{where}: 'inputs' must be an inputs file's text (one call per line) or a list of calls, "
                f"not {_kind(inputs)}")
    for key, text in (("candidate", candidate), *((("reference", r) for r in refs)), ("context", context or ""),
                      ("inputs", inputs or "")):
        bad = lone_surrogate(text)
        if bad:
            return f"{where}: '{key}' holds a lone surrogate ({bad}), which is not text"
    item.candidate, item.references, item.context = candidate, tuple(refs), context or None
    item.inputs = inputs
    item.reference_names = tuple(f"reference {i + 1}" for i in range(len(refs)))
    name = known.get("language")
    if name is not None and not isinstance(name, str):
        return f"{where}: 'language' must be a string, not {_kind(name)}"
    name = name or default_language
    if not name:
        return f"{where}: no 'language' (add it to the line or pass --lang)"
    try:
        item.language = languages.get(str(name)).name
    except languages.UnknownLanguageError as error:
        return f"{where}: {error}"
    if "\x00" in candidate:
        return f"{where}: candidate looks binary (contains NUL characters)"
    if not candidate.strip():
        return f"{where}: empty submission (nothing to score)"
    return None


def extra_columns(names: Sequence[str], columns: Sequence[str]) -> dict[str, str]:
    """Each passed-through field -> its report column: prefixed where a column has its name, and
    so is a name the prefix would give another field (``input_errors`` beside ``errors``), so
    that two fields never share a column and a name always gets the same one."""
    taken = set(columns)

    def renamed(name: str) -> bool:
        return name in taken or (name.startswith(EXTRA_PREFIX) and renamed(name[len(EXTRA_PREFIX):]))

    return {name: f"{EXTRA_PREFIX}{name}" if renamed(name) else name for name in names}
