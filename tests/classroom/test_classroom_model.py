"""The classroom data model, the starter-code rule and notebooks' code cells."""

from __future__ import annotations

import ast
import json

import pytest

from refscore.errors import InputFileError
from refscore.classroom import Starter, Student, starter_free_text
from refscore.grade.notebook import locate, notebook_code
from refscore.grade.items import GradeItem
from refscore.grade.rows import COLUMNS, GradeResult, result_row

STARTER = '''def read_numbers(path):
    """Given: read one number per line."""
    with open(path) as f:
        return [int(line) for line in f]


def second_largest(nums):
    # TODO: your code here
    pass
'''

STUDENT = '''def read_numbers(path):
    """Given: read one number per line."""
    with open(path) as f:
        return [int(line) for line in f]


def second_largest(nums):
    best = sorted(set(nums))
    return best[-2] if len(best) > 1 else None
'''


def test_student_key_is_the_lms_id_else_the_name():
    assert Student("Ada Lovelace", "12345").key == "12345"
    assert Student("octocat").key == "octocat"


def test_starter_lines_earn_nothing_and_what_the_student_wrote_stays():
    left = starter_free_text(STUDENT, STARTER)
    assert "read_numbers" not in left and "open(path)" not in left
    assert "sorted(set(nums))" in left and "return best[-2]" in left
    assert "def second_largest(nums):" in left  # the header of a block the student filled in stays
    ast.parse(left)  # what is left still parses
    assert starter_free_text(STARTER, Starter((STARTER,))).strip() == ""  # the starter alone: nothing left
    assert starter_free_text(STUDENT, None) == STUDENT


def test_a_starter_line_elsewhere_in_the_file_is_kept_unless_it_lines_up():
    starter = "x = 1\ny = 2\n"
    text = "y = 2\nz = y * 3\nx = 1\n"
    left = starter_free_text(text, starter)
    assert left.count("=") == 2 and "z = y * 3" in left  # only one of x/y lines up with the starter's order


JAVA_STARTER = """public class Main {
    static int helper(int x) {
        return x * 2;
    }

    static int solve(int[] a) {
        // TODO
        return 0;
    }
}
"""


def test_java_starter_helper_goes_whole_and_braces_stay_balanced():
    student = JAVA_STARTER.replace("        // TODO\n        return 0;\n",
                                   "        int best = a[0];\n        for (int v : a) best = Math.max(best, v);\n"
                                   "        return best;\n")
    left = starter_free_text(student, JAVA_STARTER)
    assert "helper" not in left and "return x * 2" not in left
    assert "Math.max" in left and "static int solve(int[] a) {" in left and "public class Main {" in left
    assert left.count("{") == left.count("}")


def _notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "P"}},
                       "cells": [{"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": src,
                                  **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                                 for i, (kind, src) in enumerate(cells)]})


def test_notebook_code_cells_and_their_map_back():
    text = _notebook([("markdown", "# Task"), ("code", "import math\n%matplotlib inline"),
                      ("markdown", "more"), ("code", "def f(x):\n    return math.sqrt(x)")])
    code = notebook_code(text, "hw.ipynb")
    assert code.language == "python"
    assert code.text == "import math\n\n\ndef f(x):\n    return math.sqrt(x)\n"
    assert code.cells == ((2, 0, 2), (4, 3, 2))
    assert locate(code.cells, 4) == (4, 2) and locate(code.cells, 0) == (2, 1) and locate(code.cells, 2) is None
    with pytest.raises(InputFileError, match="not a readable Jupyter notebook"):
        notebook_code("{not json", "bad.ipynb")


def test_rows_carry_the_student_columns():
    assert COLUMNS[4:7] == ("student", "student_id", "late")
    item = GradeItem("p/ada", "x = 1\n", ("x = 1\n",), "python", problem="p", student="Ada Lovelace",
                     student_id="12345", late=True)
    row = result_row(GradeResult(item))
    assert (row["student"], row["student_id"], row["late"]) == ("Ada Lovelace", "12345", True)


def test_submission_text_joins_files_and_drops_the_starter():
    from refscore.classroom import Submission, SubmittedFile
    from refscore.classroom.assign import joined, submission_text

    nb = _notebook([("code", "x = 1"), ("markdown", "m"), ("code", "y = 2\nz = 3")])
    sub = Submission(Student("ann"), (SubmittedFile("a.py", "a.py", "import os\nprint(1)"),
                                     SubmittedFile("b.ipynb", "b.ipynb", nb),
                                     SubmittedFile("c.bin", "c.bin", None, "looks binary")))
    assert submission_text(sub) == "import os\nprint(1)\n\nx = 1\n\ny = 2\nz = 3\n"
    assert submission_text(sub, Starter(("import os\n",))) == "print(1)\n\nx = 1\n\ny = 2\nz = 3\n"
    text, cells = joined([("import os\nprint(1)", None), *[(c.text, c.cells) for c in [notebook_code(nb, "b")]]])
    assert cells == ((1, 3, 1), (3, 5, 2)) and text.splitlines()[5] == "y = 2"


def test_roster_index_agrees_with_the_one_pair_rule():
    from refscore.classroom.roster import RosterEntry, match_roster

    students = [Student("Ada Lovelace", "1"), Student("lovelaceada", "2"), Student("Ada Lovelace", "3"),
                Student("octocat", None, "octocat"), Student("Grace Hopper"), Student("hopper, grace"),
                Student("Alan Turing", "9", "alan@example.org")]
    roster = [RosterEntry("Ada Lovelace", ("1",)), RosterEntry("Ada Lovelace", ("2",)),
              RosterEntry("octocat"), RosterEntry("Grace Hopper", ("77",)), RosterEntry("Edsger Dijkstra", ("5",)),
              RosterEntry("A. Turing", ("alan@example.org",))]
    missing, strangers = match_roster(roster, students)
    assert missing == [e for e in roster if not any(e.owns(s) for s in students)]
    assert strangers == [s for s in students if not any(e.owns(s) for e in roster)]
    assert [e.label for e in missing] == ["Edsger Dijkstra (5)"]
    assert strangers == [Student("Ada Lovelace", "3")]  # same name, other id: not on the roster
