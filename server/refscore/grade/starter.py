"""Starter code: what the teacher handed out earns no credit and is no similarity between students.

The rule (docs/grade.md, "Starter code"): the lines of a text that are also lines of the starter
code, in the starter's order, are removed before scoring. Lines are compared with their leading
and trailing white space stripped; blank lines are never a match on their own. The alignment is
``difflib``'s longest matching blocks between the text's and the starter's non-blank lines, so a
starter line matches at most one line of the text, and a line the student wrote that happens to
equal a starter line elsewhere in the file (a lone ``}``, ``return result``) is kept unless it
lines up with the starter's sequence.

So that what is left still parses, a matched line that encloses a kept line is kept: lines are
nested by indentation (a line's parent is the nearest line above it that is indented less), and
the header of a block the student filled in (``def second_largest(nums):``, ``class Main {``)
stays, while a helper handed out and left unchanged goes entirely. A closing line (``}``,
``end``) goes or stays with the line that opened its block (the nearest line above it at the
same indentation). The same removal is applied to the reference, so a submission is compared
with the part of the reference the student had to write; a submission that is nothing but the
starter is left empty (an error row: nothing to score).

``starter_free_text`` is the one function the grader and the similarity report both call.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .. import languages
from ..errors import InputFileError
from ..files.sources import read_source
from .items import GradeItem


@dataclass(frozen=True)
class Starter:
    """The starter code of a problem: one or several files' texts."""

    texts: tuple[str, ...]
    names: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """Every non-blank starter line, stripped, in file order."""
        return [line.strip() for text in self.texts for line in text.splitlines() if line.strip()]


def starter_free_text(text: str, starter: Starter | str | Sequence[str] | None, keep_lines: bool = False) -> str:
    """``text`` less the lines it shares with ``starter`` (the module docstring's rule); line
    breaks of the kept lines and blank lines are kept, so what is left reads as the student wrote
    it. ``keep_lines``: a removed line becomes an empty line instead, so every kept line keeps its
    line number (the grader does this: feedback ranges point into the file as handed in)."""
    if starter is None:
        return text
    if isinstance(starter, str):
        starter = Starter((starter,))
    elif not isinstance(starter, Starter):
        starter = Starter(tuple(starter))
    given = starter.lines()
    if not given:
        return text
    lines = text.splitlines(keepends=True)
    numbered = [(i, line.strip()) for i, line in enumerate(lines) if line.strip()]
    matcher = difflib.SequenceMatcher(None, [s for _, s in numbered], given, autojunk=False)
    matched: set[int] = set()
    for block in matcher.get_matching_blocks():
        matched.update(numbered[k][0] for k in range(block.a, block.a + block.size))
    drop = _droppable(lines, [i for i, _ in numbered], matched)
    if keep_lines:
        return "".join(("\n" if line.endswith(("\n", "\r")) else "") if i in drop else line
                       for i, line in enumerate(lines))
    return "".join(line for i, line in enumerate(lines) if i not in drop)


_CLOSERS = ("}", ")", "]", "end")


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _closing(line: str) -> bool:
    text = line.strip()
    return text.startswith(_CLOSERS[:3]) or text in ("end", "end;", "fi", "done", "esac")


def _droppable(lines: list[str], code: list[int], matched: set[int]) -> set[int]:
    """The matched lines that may go without breaking the nesting of a kept line (module docstring)."""
    parent: dict[int, int | None] = {}
    opener: dict[int, int | None] = {}
    stack: list[int] = []  # open lines, indentation increasing
    for i in code:
        depth = _indent(lines[i])
        if _closing(lines[i]):
            same = [j for j in stack if _indent(lines[j]) == depth]
            opener[i] = same[-1] if same else None
        while stack and _indent(lines[stack[-1]]) >= depth:
            stack.pop()
        parent[i] = stack[-1] if stack else None
        if not _closing(lines[i]):
            stack.append(i)
    keep = {i for i in code if i not in matched}
    for i in list(keep):  # every enclosing line of a kept line stays
        j = parent.get(i)
        while j is not None and j not in keep:
            keep.add(j)
            j = parent.get(j)
    for i in code:  # a closer goes or stays with its opener
        if i in opener and opener[i] is not None:
            if opener[i] in keep:
                keep.add(i)
            else:
                keep.discard(i)
    return {i for i in code if i not in keep}


def load_starter(paths: Sequence[str | Path], suffixes: Sequence[str] | None = None) -> Starter:
    """The starter code in ``paths``: files, and the files of folders (recursively, in name
    order, links and hidden files left out), those ending in one of ``suffixes`` when given (a
    starter in another language is no starter of this problem). InputFileError, one line, when a
    path names nothing or a file cannot be read."""
    texts, names = [], []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink()
                           and not any(part.startswith(".") for part in p.relative_to(path).parts))
        elif path.exists():
            files = [path]
        else:
            raise InputFileError(f"{path}: no such starter file or folder")
        for file in files:
            if suffixes and file.suffix.lower() not in suffixes:
                continue
            texts.append(_code_of(file))
            names.append(str(file))
    return Starter(tuple(texts), tuple(names))


def _code_of(path: Path) -> str:
    """A starter file's code (a notebook's code cells)."""
    text = read_source(path)
    if path.suffix.lower() == ".ipynb":
        from .notebook import notebook_code

        return notebook_code(text, str(path)).text
    return text

def starter_for(paths: Sequence[str | Path], language: str | None) -> Starter | None:
    """The starter code in ``paths`` for a problem in ``language`` (its files in that language,
    notebooks for Python); None without paths or when none is in that language."""
    if not paths:
        return None
    suffixes = None
    if language is not None:
        spec = languages.get(language)
        suffixes = [*spec.extensions, *spec.notebook_extensions]
    found = load_starter(paths, suffixes)
    return found if found.texts else None

def strip_starter(item: GradeItem, starter: Starter | None) -> None:
    """Take the starter code out of an item read file by file (the rule of ``starter``)."""
    if starter is None or item.candidate is None:
        return
    handed = bool(item.candidate.strip())
    item.candidate = starter_free_text(item.candidate, starter, keep_lines=True)
    item.references, all_starter = starter_free_references(item.reference_names, item.references, starter)
    if all_starter and item.error is None:
        item.error = all_starter
    if not item.candidate.strip() and item.error is None:
        why = "nothing but the starter code" if handed else "empty submission"
        item.error = f"{item.source}: {why} (nothing to score)"


def starter_free_references(names: Sequence[str], references: Sequence[str],
                            starter: Starter) -> tuple[tuple[str, ...], str | None]:
    """The references less the starter code, and the error of a reference that is nothing but the
    starter code (``--starter`` given the reference itself): left blank, it would read as empty."""
    free = tuple(starter_free_text(r, starter, keep_lines=True) for r in references)
    for name, before, after in zip(names, references, free):
        if before.strip() and not after.strip():
            given = ", ".join(starter.names) or "--starter"
            return free, f"the reference {name} is nothing but the starter code ({given}): there is nothing left to " \
                         "compare with"
    return free, None
