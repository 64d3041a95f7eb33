"""Many problems at once: a TOML or CSV mapping file (JSONL of ready-made pairs: ``jsonl``).

TOML (paths relative to the mapping file)::

    [[problem]]
    name = "sum"                      # optional, default: the reference's file name
    reference = "refs/sum.py"         # or a list of acceptable references
    context = "Return the sum."       # optional task description (or context_file = "...")
    language = "python"               # optional, default: the reference's extension
    submissions = ["class/*/sum.py"]  # files, folders, globs
    pattern = "*.py"                  # optional file-name filter for folders
    per_folder = false                # true: one submission per sub-folder
    inputs = "inputs/sum.txt"         # optional: behaviour's inputs for this problem (else --inputs)

CSV: one problem per row with the same column names; list cells (``reference``,
``submissions``) separate entries with ``;``.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, published as tomli
    import tomli as tomllib  # type: ignore[no-redef]

from ..errors import InputFileError
from .classroom_choices import RESUBMISSION_POLICIES
from .containment import Containment
from .discover import Submission, expand, items_for, load_problem
from .hooks import NO_CLASSES, ClassProblem, ClassReader
from .items import ItemSet
from .mapping_schema import check_problem, csv_flag, problem_where
from .problem_errors import problem_error
from .starter import starter_for, strip_starter

TRUE_WORDS = frozenset({"1", "true", "yes", "y", "on"})
FALSE_WORDS = frozenset({"", "0", "false", "no", "n", "off"})


def load_mapping(path: str | Path, default_language: str | None = None,
                 exclude: Iterable[str | Path] = (), roster: Any = None,
                 starter: Sequence[str] = (), layout: str | None = None,
                 allow_outside: Sequence[str | Path] = (), resubmissions: str | None = None,
                 classes: ClassReader = NO_CLASSES) -> ItemSet:
    """Items for every problem of a TOML or CSV mapping file; ``exclude``: files never graded
    (the run's own reports). ``roster``, ``starter`` and ``layout``: the command line's, for
    problems whose mapping entry does not name its own. What the mapping names must stay under
    its folder or an ``allow_outside`` folder (``containment``); ``resubmissions``: the command
    line's policy for a Canvas file handed in again; ``classes``: which inputs are classes and how
    to read one (``hooks``; ``roster``: what its ``load_roster`` gave)."""
    path = Path(path)
    problems = _toml_problems(path) if path.suffix.lower() == ".toml" else _csv_problems(path)
    base = path.parent
    result = ItemSet()
    if not problems:
        raise InputFileError(f"{path}: no problems found (expected [[problem]] tables or CSV rows)")
    for index, entry in enumerate(problems, 1):
        result.notes.extend(check_problem(entry, path, index))
    groups: dict[str, _ClassGroup] = {}
    defaults = _Defaults(roster, tuple(starter), layout, Containment(path, allow_outside),
                         resubmissions or RESUBMISSION_POLICIES[0], classes)
    for index, entry in enumerate(problems, 1):
        result.extend(_problem_items(entry, base, index, default_language, path, list(exclude), groups, defaults))
    for group in groups.values():
        result.extend(classes.read(group.source, group.layout, group.problems, roster, skip=list(exclude)))
    for index, entry in enumerate(problems, 1):
        name = _problem_name(entry, index)
        line = problem_error(problem_where(path, index, entry), [i for i in result.items if i.problem == name])
        if line:
            result.problem_errors.append(line)
    return result


def _problem_name(entry: dict[str, Any], index: int) -> str:
    """The problem's name: its ``name``, else its first reference's file name."""
    references = _as_list(entry.get("reference", entry.get("references")))
    return str(entry.get("name") or (Path(references[0]).stem if references else f"problem {index}"))


@dataclass
class _ClassGroup:
    """The problems of a mapping graded from one class archive or folder."""

    source: Path
    layout: str | None
    problems: list[ClassProblem] = field(default_factory=list)


@dataclass(frozen=True)
class _Defaults:
    roster: Any
    starter: tuple[str, ...]
    layout: str | None
    containment: Containment
    resubmissions: str
    classes: ClassReader


def _toml_problems(path: Path) -> list[dict[str, Any]]:
    try:
        data = tomllib.loads(_read_text(path))
    except tomllib.TOMLDecodeError as error:
        raise InputFileError(f"{path}: not valid TOML ({error})") from None
    problems = data.get("problem", data.get("problems", []))
    if not isinstance(problems, list) or not all(isinstance(p, dict) for p in problems):
        raise InputFileError(f"{path}: expected [[problem]] tables")
    return problems


def _csv_problems(path: Path) -> list[dict[str, Any]]:
    try:
        rows = list(csv.DictReader(io.StringIO(_read_text(path))))
    except csv.Error as error:
        raise InputFileError(f"{path}: not valid CSV ({error})") from None
    out = []
    for index, row in enumerate(rows, 1):
        entry: dict[str, Any] = {("(cells past the header)" if k is None else k.strip().lower()): _cell_text(v)
                                 for k, v in row.items()}
        for key in ("reference", "submissions", "files", "starter"):
            entry[key] = [part.strip() for part in entry.get(key, "").split(";") if part.strip()]
        entry["per_folder"] = csv_flag(entry.get("per_folder", ""), "per_folder", path, index,
                                       TRUE_WORDS, FALSE_WORDS)
        out.append({k: v for k, v in entry.items() if v not in ("", None)})
    return out


def _cell_text(value: Any) -> str:
    """A CSV cell as text (a row longer than the header gives a list under the key None)."""
    if isinstance(value, list):
        return ";".join(str(v) for v in value).strip()
    return (value or "").strip()


def _read_text(path: Path) -> str:
    from ..files.sources import read_source

    return read_source(path)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _problem_items(entry: dict[str, Any], base: Path, index: int, default_language: str | None,
                   mapping: Path, exclude: list[str | Path], classes: dict[str, _ClassGroup],
                   defaults: _Defaults) -> ItemSet:
    exclude = exclude or []
    contain = defaults.containment
    references = [base / r for r in _as_list(entry.get("reference", entry.get("references")))]
    name = _problem_name(entry, index)
    context = entry.get("context")
    context_file = entry.get("context_file")
    given = entry.get("starter")
    starters = [base / s for s in _as_list(given)] if given else []
    # a reference, context or starter outside the folder: the problem's error, never read
    context_error = contain.first_outside([*references, *([base / str(context_file)] if context_file else []),
                                           *starters])
    if context_error:
        references = []
    elif context_file:
        try:
            context = _read_text(base / str(context_file))
        except InputFileError as error:
            context_error = str(error)
    problem = load_problem(references, entry.get("language") or default_language,
                           str(context) if context else None, name, strict=False)
    if context_error:
        problem.error = context_error
    inputs = base / str(entry["inputs"]) if entry.get("inputs") else None
    problem.inputs = _problem_inputs(inputs, entry, index, mapping, contain) if inputs is not None else None
    pattern = entry.get("pattern")
    starter = starter_for(starters if given and not context_error else defaults.starter, problem.language)
    layout = entry.get("layout") or defaults.layout
    arguments = [base / s for s in _as_list(entry.get("submissions"))]
    as_class, others = defaults.classes.split(arguments, layout, folders=defaults.roster is not None)
    outside = {str(source): contain.outside(source) for source in as_class}
    as_class = [source for source in as_class if not outside[str(source)]]
    patterns = tuple(_as_list(entry.get("files"))) or ((pattern,) if pattern else ())
    for source in as_class:
        group = classes.setdefault(os.path.realpath(source), _ClassGroup(source, layout))
        group.problems.append(ClassProblem(problem, patterns, starter,
                                           entry.get("resubmissions") or defaults.resubmissions))
    subs = expand(others, pattern, bool(entry.get("per_folder", False)),
                  exclude=[*references, *exclude, *([inputs] if inputs else [])])
    subs = [_contained(sub, contain) for sub in subs]
    subs += [Submission(str(source), [], reason) for source, reason in outside.items() if reason]
    subs = [sub._replace(id=_short_id(sub.id, base, name)) if sub.files is not None else sub for sub in subs]
    result = items_for(problem, subs, pattern, id_prefix=f"{name}/", base=base)
    for item in result.items:
        strip_starter(item, starter)
    if starter is not None:  # the similarity sets the starter's k-grams aside too
        result.starters[name] = tuple(starter.texts)
    if not arguments:
        result.notes.append(f"problem {name!r}: no submissions listed")
    return result


def _problem_inputs(path: Path, entry: dict[str, Any], index: int, mapping: Path, contain: Containment) -> str:
    """The text of the problem's ``inputs`` file (behaviour's inputs for its submissions), read as
    a source file is, relative to the mapping's folder and inside it (``containment``). A file
    that cannot be read stops the run: one line naming the problem (its submissions would be
    scored on other inputs than the teacher wrote)."""
    outside = contain.outside(path)
    if outside:
        raise InputFileError(f"{problem_where(mapping, index, entry)}: inputs: {outside}")
    try:
        return _read_text(path)
    except InputFileError as error:
        raise InputFileError(f"{problem_where(mapping, index, entry)}: inputs: {error}") from None


def _contained(sub: Submission, contain: Containment) -> Submission:
    """The submission, or, when a file of it resolves outside the allowed folders, the same
    submission with no files and the reason (an error row, nothing read)."""
    reason = contain.first_outside(sub.files or [])
    return sub._replace(files=[], empty=reason) if reason else sub


def _short_id(path: str, base: Path, name: str) -> str:
    """A submission's id under its problem: its path from the mapping's folder, less a first
    folder named as the problem (``second_largest/alice.py``, not ``second_largest/second_largest/...``)."""
    relative = os.path.relpath(path, base)
    head, sep, rest = relative.replace(os.sep, "/").partition("/")
    return rest if sep and rest and head == name else relative
