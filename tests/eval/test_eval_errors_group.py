"""The ``errors`` metric group: the ``tsed`` group's parse-error counts without the tree edit
distance (so a fit-only run can skip TSED's cost and still have ``extra_errors``)."""

from __future__ import annotations

from refscore.eval.data import Item
from refscore.eval.runner import EvalConfig
from refscore.eval.tasks import Task, run_task
from refscore.eval.signals import error_scores, tsed_scores

_ITEMS = [
    Item("python", 0, "def f(x):\n    return x +\n", ("def f(x):\n    return x + 1\n",), "", 0.0),
    Item("python", 1, "def f(x):\n    return x + 1\n", ("def f(x) return (\n",), "", 1.0),
    Item("java", 2, "int f(int x) { return x }", ("int f(int x) { return x + 1; }",), "", 0.0),
    # several references: the counted one is the reference TSED picks
    Item("conala", 3, "sorted(a, key=len", ("sorted(a key=len)", "sorted(a, key=len)", "a.sort("), "", 0.5),
    Item("conala", 4, "x = [i for i in a]", ("x = [i for i in a", "list(a)"), "", 0.25),
]


def test_errors_group_equals_the_tsed_groups_counts():
    full = tsed_scores(_ITEMS)
    alone = error_scores(_ITEMS)
    assert alone == {"cand_errors": full["cand_errors"], "ref_errors": full["ref_errors"]}
    assert sum(alone["cand_errors"]) > 0 and sum(alone["ref_errors"]) > 0  # the cases have errors


def test_errors_group_fills_the_same_table_columns_as_tsed():
    config = EvalConfig(data_dir="", metrics=["errors"], threads=None)
    items = [i for i in _ITEMS if i.dataset == "python"]
    units, notes = run_task(Task("errors", "python", ["0", "1"], items), config)
    (columns,) = units.values()
    assert set(columns) == {"cand_errors", "ref_errors"} and "seconds" in notes
    assert columns["cand_errors"] == tsed_scores(items)["cand_errors"]


def test_default_groups_leave_out_the_redundant_errors_group():
    assert "errors" not in EvalConfig(data_dir="").metrics
