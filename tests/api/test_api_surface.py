"""docs/api.md's table of Python entry points is true: each one named exists, the ``refscore``
namespace offers no entry point the table leaves out, and the internal one stays out of it."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import refscore

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def table_rows() -> list[tuple[list[str], str]]:
    """(the dotted names in the first column, the status column) of each row of the table."""
    rows = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 4:
            rows.append((re.findall(r"`(refscore[\w.]*)`", cells[0]), cells[3]))
    return rows


def resolve(dotted: str) -> object:
    """The attribute a dotted name means, or the spec of the submodule it names (a module that
    registers itself with a framework on import is found, not imported); None when neither."""
    module, _, name = dotted.rpartition(".")
    found = getattr(importlib.import_module(module), name, None)
    return found if found is not None else importlib.util.find_spec(dotted)


def test_every_entry_point_in_the_table_exists() -> None:
    names = [name for row, _ in table_rows() for name in row]
    assert len(names) >= 8, names
    for name in names:
        assert resolve(name) is not None, name


def test_the_namespace_offers_only_what_the_table_names() -> None:
    named = {name for row, _ in table_rows() for name in row}
    offered = {f"refscore.{name}" for name in refscore.__all__
               if inspect.isfunction(getattr(refscore, name)) and not name.startswith("to_")}
    assert offered and offered <= named, offered - named


def test_the_public_rows_are_in_the_namespace_and_the_internal_one_is_not() -> None:
    for names, status in table_rows():
        top = [name for name in names if name.count(".") == 1]
        if status.startswith("public"):
            assert all(name.split(".")[1] in refscore.__all__ for name in top), names
        if status.startswith("internal"):
            assert not any(name.rpartition(".")[2] in refscore.__all__ for name in names), names


def test_grade_dataset_is_the_graders_own_function() -> None:
    from refscore.grade.dataset import grade_dataset

    assert refscore.grade_dataset is grade_dataset
