"""Many problems at once: a TOML or CSV mapping file (JSONL of ready-made pairs: ``blocks.load_jsonl``).

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

A value of the wrong type (``reference = 3``, ``per_folder = "maybe"``) is one clear error that
names the file, the problem and the key, before anything is read or scored; an unknown key is a
note (it is ignored), so that a typo such as ``submission =`` does not go unnoticed (``KEYS``).

Problem-level errors (``problem_error``): a problem nothing can be graded for. Its reference
cannot be read (a typo in the path, a file outside the mapping's folder), or no submission of it
was read at all (no file matched it, a glob matched nothing, every student's file is in another
language). Every row of such a problem is an error, and a grade book would give each student zero
points for it as if they had been graded: the run still writes its score reports (their rows say
why), but no grade book or feedback page, and it exits 3 with one line per problem naming it and
the path at fault. A run of one student's submission (Gradescope's autograder) is graded whatever
they handed in: a problem they have no file for earns 0 with the reason.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, published as tomli
    import tomli as tomllib  # type: ignore[no-redef]

from ..errors import InputFileError
from .classroom_choices import RESUBMISSION_POLICIES
from .containment import Containment
from .discover import Submission, expand, items_for, load_problem
from .hooks import NO_CLASSES, ClassProblem, ClassReader
from .items import GradeItem, ItemSet
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


#: How a problem's items say its reference could not be read (``discover.items_for``, ``classroom.assign``).
REFERENCE_PREFIX = "reference: "


def problem_error(where: str, items: Sequence[GradeItem]) -> str | None:
    """The one line for the problem at ``where`` (``class.toml: problem 2 ('word_freq')``) whose
    items are ``items``, or None when some submission of it was read: one that is empty or nothing
    but the starter code is that student's error (zero points are theirs), not the problem's."""
    if any(item.scorable or item.candidate is not None for item in items):
        return None
    reference = next((item.error for item in items if item.error and item.error.startswith(REFERENCE_PREFIX)), None)
    if reference is not None:
        return f"{where}: {reference}: nothing can be graded for it"
    if not items:
        return f"{where}: no submissions found: nothing to grade for it"
    if len(items) == 1 and items[0].student:  # one student's submission (a Gradescope autograder run):
        return None  # their missing or empty file is their 0 points, not the teacher's error
    first = next((item.error for item in items if item.error), None) or "no candidate text"
    return f"{where}: none of its {len(items):,} submission(s) could be read (first: {first})"


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


# --- The keys a mapping file's problem may have, and their types

TEXT = "a string"
PATHS = "a path or a list of paths"
FLAG = "true or false"

#: Every key a problem may have -> what its value must be.
KEYS: dict[str, str] = {
    "name": TEXT, "reference": PATHS, "references": PATHS, "context": TEXT, "context_file": TEXT,
    "language": TEXT, "submissions": PATHS, "pattern": TEXT, "per_folder": FLAG,
    # classroom inputs (``classroom``): the class's layout, which of a student's files are this
    # problem's, the starter code handed out for it
    "layout": TEXT, "files": PATHS, "starter": PATHS,
    # a Canvas file handed in again (``name-1.py``): the latest version is graded, or the best
    "resubmissions": TEXT,
    # behaviour: the problem's inputs file (calls, or program-mode standard inputs), instead of --inputs
    "inputs": TEXT,
}
LAYOUT_CHOICES = ("auto", "moodle", "canvas", "gradescope", "github-classroom", "plain")
RESUBMISSION_CHOICES = RESUBMISSION_POLICIES


def _fits(value: Any, kind: str) -> bool:
    if kind == TEXT:
        return isinstance(value, str)
    if kind == FLAG:
        return isinstance(value, bool)
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


def problem_where(mapping: Path, index: int, entry: Mapping[str, Any]) -> str:
    """``class.toml: problem 2 ('sum')``: where an error in a problem is."""
    name = entry.get("name")
    return f"{mapping}: problem {index}" + (f" ({name!r})" if isinstance(name, str) and name else "")


def check_problem(entry: Mapping[str, Any], mapping: Path, index: int) -> list[str]:
    """Raise InputFileError for a value of the wrong type; return notes about unknown keys."""
    notes = []
    for key, value in entry.items():
        kind = KEYS.get(key)
        if kind is None:
            notes.append(f"{problem_where(mapping, index, entry)}: unknown key {key!r} ignored "
                         f"(known: {', '.join(KEYS)})")
        elif not _fits(value, kind):
            raise InputFileError(f"{problem_where(mapping, index, entry)}: {key!r} must be {kind}, not {value!r}")
    if entry.get("layout") is not None and entry["layout"] not in LAYOUT_CHOICES:
        raise InputFileError(f"{problem_where(mapping, index, entry)}: 'layout' must be one of "
                             f"{', '.join(LAYOUT_CHOICES)}, not {entry['layout']!r}")
    if entry.get("resubmissions") is not None and entry["resubmissions"] not in RESUBMISSION_CHOICES:
        raise InputFileError(f"{problem_where(mapping, index, entry)}: 'resubmissions' must be one of "
                             f"{', '.join(RESUBMISSION_CHOICES)}, not {entry['resubmissions']!r}")
    if not entry.get("reference") and not entry.get("references"):
        raise InputFileError(f"{problem_where(mapping, index, entry)}: no 'reference' (every problem needs the "
                             "path of its reference solution)")
    return notes


def csv_flag(value: str, key: str, mapping: Path, index: int, true_words: frozenset[str],
             false_words: frozenset[str]) -> bool:
    """A CSV cell read as a flag (``yes``/``no``, ``true``/``false``, ``1``/``0``, empty = false)."""
    word = value.strip().lower()
    if word in true_words:
        return True
    if word in false_words:
        return False
    raise InputFileError(f"{mapping}: problem {index}: {key!r} must be yes or no (true/false, 1/0), not {value!r}")


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
