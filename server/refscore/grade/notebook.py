"""Jupyter notebooks (``.ipynb``): scored on their code cells, feedback mapped back to cells.

A notebook (submission, reference or starter code) is read with ``nbformat`` (version 4); its
code cells are joined in order, one blank line between cells, and that text is what is scored.
Markdown and raw cells, outputs and cells that a cell magic makes another language (``%%bash``,
``%%html``: ``FOREIGN_CELL_MAGICS``) are left out; IPython lines (``%magic``, ``!shell``) are
blanked (they are not Python; blanking keeps every other line where it was). ``cells`` records,
per code cell, its number in the notebook (1-based, counting every cell as Jupyter shows them),
its first line in the joined text and its line count, so that a range in the scored text (an
explanation, a token) maps back to "cell N, line M" (``locate``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputFileError

NOTEBOOK_SUFFIX = ".ipynb"
#: Cell magics that make a whole cell another language (a shell, a page, a query): such a cell
#: is left out like a Markdown cell. Any other (``%%time``, ``%%capture``) has a Python body, and
#: only its first line is blanked; ``%%writefile``/``%%file`` is Python when it writes a ``.py``
#: file, ``%%script`` when it runs a Python.
FOREIGN_CELL_MAGICS = frozenset({"bash", "sh", "system", "sx", "html", "javascript", "js", "latex", "markdown",
                                 "svg", "perl", "ruby", "sql", "r", "octave", "julia", "powershell", "cmd"})
#: (cell number, first line of the cell in the joined text (0-based), number of lines)
Cells = tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class NotebookCode:
    """A notebook's code cells as one text."""

    text: str
    cells: Cells
    language: str | None  # the kernel's language, when the notebook names one


def is_notebook(name: str) -> bool:
    """True for a file name ending in ``.ipynb``."""
    return name.lower().endswith(NOTEBOOK_SUFFIX)


def foreign_cell(source: str) -> bool:
    """True for a code cell whose cell magic makes its body another language than Python."""
    first = next((row.strip() for row in source.splitlines() if row.strip()), "")
    words = first[2:].split() if first.startswith("%%") else []
    if not words:
        return False
    magic, args = words[0].lower(), words[1:]
    if magic in ("writefile", "file"):
        return not (args and args[-1].lower().endswith(".py"))
    if magic == "script":
        return not (args and args[0].rsplit("/", 1)[-1].lower().startswith(("python", "ipython", "pypy")))
    return magic in FOREIGN_CELL_MAGICS


def notebook_code(text: str, name: str) -> NotebookCode:
    """The code cells of the notebook ``text`` (InputFileError, one line, when it is not one)."""
    import warnings

    import nbformat

    try:
        with warnings.catch_warnings():  # MissingIDFieldWarning and the like: the notebook is read all the same
            warnings.simplefilter("ignore")
            book = nbformat.reads(text, as_version=4)
    except Exception as error:  # nbformat raises JSON, validation and version errors of its own
        reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        raise InputFileError(f"{name}: not a readable Jupyter notebook ({reason})") from None
    pieces: list[str] = []
    cells: list[tuple[int, int, int]] = []
    line = 0
    for number, cell in enumerate(book.get("cells", []), 1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if foreign_cell(source):
            continue
        lines = [("" if row.lstrip().startswith(("%", "!")) else row) for row in source.splitlines()]
        if not any(row.strip() for row in lines):
            continue
        if pieces:
            pieces.append("")  # the blank line between cells
            line += 1
        cells.append((number, line, len(lines)))
        pieces.extend(lines)
        line += len(lines)
    meta = book.get("metadata", {})
    language = (meta.get("kernelspec", {}) or {}).get("language") or (meta.get("language_info", {}) or {}).get("name")
    return NotebookCode("\n".join(pieces) + ("\n" if pieces else ""), tuple(cells),
                        str(language).lower() if language else None)


def locate(cells: Cells, line: int) -> tuple[int, int] | None:
    """(cell number, line in that cell, both 1-based) of 0-based ``line`` of the joined text;
    None for the blank line between cells."""
    for number, first, count in cells:
        if first <= line < first + count:
            return number, line - first + 1
    return None


def code_of(text: str, name: str) -> tuple[str, Cells | None, str | None]:
    """(text to score, its cell map, the notebook's language) of a file: a notebook's code cells,
    any other file as it is."""
    if not is_notebook(name):
        return text, None, None
    code = notebook_code(text, name)
    return code.text, code.cells, code.language


def shift(cells: Cells, lines: int) -> Cells:
    """The cell map of a text placed ``lines`` lines further down."""
    return tuple((number, first + lines, count) for number, first, count in cells)


def where(cells: Cells, text: str, offset: int) -> str | None:
    """``cell N, line M`` of character ``offset`` of the joined ``text`` (None between cells)."""
    found = locate(cells, text.count("\n", 0, max(0, offset)))
    return f"cell {found[0]}, line {found[1]}" if found else None
