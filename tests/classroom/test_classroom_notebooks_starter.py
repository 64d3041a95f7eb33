"""Notebooks scored on their code cells (issue 23 item 2), starter code that earns no credit
(item 3), and issue 28 item 11 (mapping ids, wrong-language rows, a problem with no reference,
the typo note). Real `refscore grade` runs on files written here."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from refscore.cli import main

pytestmark = pytest.mark.timeout(600)

HELPER = "def read_numbers(path):\n    with open(path) as f:\n        return [int(line) for line in f]\n"
STARTER = HELPER + "\n\ndef second_largest(nums):\n    # TODO: write this\n    pass\n"
REF = HELPER + "\n\ndef second_largest(nums):\n    ranked = sorted(set(nums))\n    return ranked[-2]\n"
GOOD = HELPER + "\n\ndef second_largest(values):\n    order = sorted(set(values))\n    return order[-2]\n"
WRONG = HELPER + "\n\ndef second_largest(nums):\n    return max(nums)\n"


def notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "P"}},
                       "cells": [{"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": src,
                                  **({"outputs": [{"output_type": "stream", "name": "stdout", "text": "42\n"}],
                                      "execution_count": i} if kind == "code" else {})}
                                 for i, (kind, src) in enumerate(cells)]})


def grade(*args: str, out: Path, metrics: str = "codebleu") -> tuple[int, dict[str, dict]]:
    code = main(["grade", *args, "--metrics", metrics, "--no-cache", "-q", "--json", str(out)])
    rows = {r["id"]: r for r in json.loads(out.read_text())["submissions"]} if out.exists() else {}
    return code, rows


def test_notebooks_are_scored_on_their_code_cells_and_map_back(tmp_path: Path) -> None:
    ref = tmp_path / "ref.ipynb"
    ref.write_text(notebook([("markdown", "# Second largest"), ("code", HELPER), ("code", REF[len(HELPER):].strip())]))
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "same.ipynb").write_text(notebook([("markdown", "my answer"), ("code", HELPER),
                                               ("markdown", "now the function"), ("code", REF[len(HELPER):].strip()),
                                               ("code", "%timeit second_largest([1, 2])")]))
    (subs / "plain.py").write_text(REF)
    (subs / "broken.ipynb").write_text("{not a notebook")
    code, rows = grade("-r", str(ref), str(subs), out=tmp_path / "o.json")
    assert code == 0
    same = rows[str(subs / "same.ipynb")]
    assert same["language"] == "python" and same["codebleu_native"] == pytest.approx(1.0)
    assert same["cells"] == [{"cell": 2, "first_line": 1, "lines": 3}, {"cell": 4, "first_line": 5, "lines": 3}]
    assert rows[str(subs / "plain.py")]["codebleu_native"] == pytest.approx(1.0)  # a .py file against a notebook reference
    assert "not a readable Jupyter notebook" in rows[str(subs / "broken.ipynb")]["errors"][0]


def test_notebook_tooltips_name_cell_and_line(tmp_path: Path) -> None:
    ref = tmp_path / "ref.py"
    ref.write_text(REF)
    sub = tmp_path / "hw.ipynb"
    # a helper written differently from the reference's, so cell 2 has weak tokens too (only tokens
    # in a heat bucket carry a tooltip; well-matched ones are left plain)
    helper = "def load(p):\n    return list(map(int, open(p)))\n"
    sub.write_text(notebook([("markdown", "intro"), ("code", helper), ("code", "def second_largest(v):\n    return max(v)")]))
    html = tmp_path / "r.html"
    assert main(["grade", "-r", str(ref), str(sub), "--metrics", "codebleu,codebertscore", "--no-cache", "-q",
                 "--html", str(html)]) == 0
    page = html.read_text(encoding="utf-8")
    assert "cell 3, line 2" in page and "cell 2, line 1" in page and "code cells 2, 3" in page


def test_a_notebook_in_a_moodle_zip(tmp_path: Path) -> None:
    (tmp_path / "second.py").write_text(REF)
    with zipfile.ZipFile(tmp_path / "m.zip", "w") as z:
        z.writestr("Ada Lovelace_7_assignsubmission_file_/second.ipynb", notebook([("code", GOOD)]))
    code, rows = grade("-r", str(tmp_path / "second.py"), str(tmp_path / "m.zip"), out=tmp_path / "o.json")
    assert code == 0 and rows["Ada Lovelace (7)"]["codebleu_native"] > 0.5 and rows["Ada Lovelace (7)"]["cells"]


def test_starter_code_earns_no_credit(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "starter.py").write_text(STARTER)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "good.py").write_text(GOOD)
    (subs / "wrong.py").write_text(WRONG)
    (subs / "untouched.py").write_text(STARTER)
    _, plain = grade("-r", str(tmp_path / "ref.py"), str(subs), out=tmp_path / "a.json")
    code, starred = grade("-r", str(tmp_path / "ref.py"), str(subs), "--starter", str(tmp_path / "starter.py"),
                          out=tmp_path / "b.json")
    assert code == 0
    wrong = str(subs / "wrong.py")
    assert starred[wrong]["codebleu_native"] < plain[wrong]["codebleu_native"] - 0.1  # the given helper no longer props it up
    assert "nothing but the starter code" in starred[str(subs / "untouched.py")]["errors"][0]
    assert plain[str(subs / "untouched.py")]["errors"] == []  # without --starter it scores, as before
    assert starred[str(subs / "good.py")]["codebleu_native"] > starred[wrong]["codebleu_native"]


def test_starter_per_problem_in_the_mapping_and_for_a_class(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "given").mkdir()
    (tmp_path / "given" / "second.py").write_text(STARTER)
    (tmp_path / "given" / "notes.md").write_text("read me")  # not Python: not starter code
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as z:
        z.writestr("ann/second.py", STARTER)
        z.writestr("ben/second.py", GOOD)
    (tmp_path / "m.toml").write_text('[[problem]]\nname = "second"\nreference = "ref.py"\n'
                                     'submissions = ["c.zip"]\nstarter = "given"\n')
    code, rows = grade("--mapping", str(tmp_path / "m.toml"), out=tmp_path / "o.json")
    assert code == 0
    assert "nothing but the starter code" in rows["second/ann"]["errors"][0]
    assert rows["second/ben"]["errors"] == [] and rows["second/ben"]["codebleu_native"] > 0.3


@pytest.mark.parametrize("option", [["--starter", "s.py"], ["--roster", "r.csv"], ["--layout", "moodle"]])
def test_class_options_without_submissions_are_usage_errors(tmp_path: Path, capsys, option: list[str]) -> None:
    assert main(["grade", *option, "--jsonl", str(tmp_path / "x.jsonl")]) == 2
    assert f"{option[0]} applies to" in capsys.readouterr().err


# -- issue 28 item 11 -------------------------------------------------------------------------------


def test_mapping_ids_do_not_repeat_the_problem_name_and_wrong_language_shows_the_file(tmp_path: Path) -> None:
    (tmp_path / "second_largest").mkdir()
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "second_largest" / "alice.py").write_text(GOOD)
    (tmp_path / "second_largest" / "grace.java").write_text("class G { int f() { return 1; } }\n")
    (tmp_path / "m.toml").write_text('[[problem]]\nname = "second_largest"\nreference = "ref.py"\n'
                                     'submissions = ["second_largest/*"]\n')
    code, rows = grade("--mapping", str(tmp_path / "m.toml"), out=tmp_path / "o.json")
    assert code == 0 and set(rows) == {"second_largest/alice.py", "second_largest/grace.java"}
    grace = rows["second_largest/grace.java"]
    assert grace["language"] == "java" and "wrong language" in grace["errors"][0]


def test_a_mapping_problem_without_reference_is_an_invalid_mapping(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.py").write_text(GOOD)
    (tmp_path / "m.toml").write_text('[[problem]]\nname = "p"\nsubmissions = ["a.py"]\n')
    assert main(["grade", "--mapping", str(tmp_path / "m.toml"), "--metrics", "codebleu", "--no-cache", "-q"]) == 3
    err = capsys.readouterr().err
    assert "no 'reference'" in err and "'p'" in err and len(err.strip().splitlines()) == 1


def test_the_docs_typo_example_names_the_unknown_key(tmp_path: Path, capsys) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "a.py").write_text(GOOD)
    (tmp_path / "m.toml").write_text('[[problem]]\nreference = "ref.py"\nsubmission = ["a.py"]\n')
    assert main(["grade", "--mapping", str(tmp_path / "m.toml"), "--metrics", "codebleu", "--no-cache", "-q"]) == 3
    err = capsys.readouterr().err
    assert "unknown key 'submission' ignored" in err and "no submissions found" in err


def test_what_a_notebook_reference_has_and_the_submission_lacks_is_placed_by_cell(tmp_path: Path) -> None:
    ref = tmp_path / "ref.ipynb"
    ref.write_text(notebook([("markdown", "# Task"), ("code", HELPER), ("markdown", "then"),
                             ("code", REF[len(HELPER):].strip())]))
    sub = tmp_path / "wrong.py"
    sub.write_text(WRONG)
    html = tmp_path / "r.html"
    assert main(["grade", "-r", str(ref), str(sub), "--metrics", "codebleu", "--no-cache", "-q",
                 "--html", str(html)]) == 0
    page = html.read_text(encoding="utf-8")
    assert "missing from the candidate:" in page and "(cell 4, line 2)" in page


def test_a_starter_is_taken_per_language(tmp_path: Path, capsys) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "Ref.java").write_text("class Ref { int f() { return 1; } }\n")
    (tmp_path / "given").mkdir()
    (tmp_path / "given" / "second.py").write_text(STARTER)
    (tmp_path / "a.py").write_text(STARTER)
    (tmp_path / "A.java").write_text("class Ref { int f() { return 2; } }\n")
    (tmp_path / "m.toml").write_text('[[problem]]\nname = "py"\nreference = "ref.py"\nsubmissions = ["a.py"]\n'
                                     '[[problem]]\nname = "java"\nreference = "Ref.java"\nsubmissions = ["A.java"]\n')
    code, rows = grade("--mapping", str(tmp_path / "m.toml"), "--starter", str(tmp_path / "given"),
                       out=tmp_path / "o.json")
    assert code == 0 and "nothing but the starter code" in rows["py/a.py"]["errors"][0]
    assert rows["java/A.java"]["errors"] == []  # a Python starter is no starter of a Java problem
    assert main(["grade", "-r", str(tmp_path / "Ref.java"), str(tmp_path / "A.java"), "--starter",
                 str(tmp_path / "given"), "--metrics", "codebleu", "--no-cache", "-q"]) == 2
    assert "holds no java file" in capsys.readouterr().err
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "a.py"), "--starter",
                 str(tmp_path / "nope.py"), "--metrics", "codebleu", "--no-cache", "-q"]) == 3
    assert "no such starter file or folder" in capsys.readouterr().err


def test_a_notebook_without_cell_ids_prints_no_python_warning(tmp_path: Path) -> None:
    """nbformat 4.5 wants cell ids, which many exported notebooks lack: it is read all the same,
    and nbformat's ``MissingIDFieldWarning`` (a Python warning with a file path and source line)
    never reaches the teacher's terminal."""
    import subprocess
    import sys

    book = json.loads(notebook([("code", GOOD)]))
    for cell in book["cells"]:
        del cell["id"]
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "sub.ipynb").write_text(json.dumps(book))
    run = subprocess.run([sys.executable, "-m", "refscore", "grade", "-r", str(tmp_path / "ref.py"),
                          str(tmp_path / "sub.ipynb"), "--metrics", "codebleu", "--no-cache", "--progress", "none",
                          "--json", str(tmp_path / "out.json")], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert "Warning" not in run.stderr and "nbformat" not in run.stderr, run.stderr
    row = json.loads((tmp_path / "out.json").read_text())["submissions"][0]
    assert row["codebleu_native"] is not None and row["errors"] == []


def test_a_cell_of_another_language_is_left_out_not_read_as_python(tmp_path: Path) -> None:
    """``%%bash`` or ``%%html`` makes a whole cell shell or HTML, but only its first line was
    blanked: the rest was read as Python, so a correct notebook "did not parse" (and failed
    ``--fail-under`` whatever its score). Such a cell is now left out like a Markdown cell; a cell
    whose body is Python (``%%time``, ``%%writefile solution.py``) is still scored."""
    (tmp_path / "ref.py").write_text(REF)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "shell.ipynb").write_text(notebook([
        ("code", "%%bash\nfor f in *.txt; do\n  wc -l \"$f\"\ndone"), ("code", "%%html\n<b>results</b>"),
        ("code", "%%writefile notes.md\n# My notes: it works!"), ("code", "%%time\n" + HELPER),
        ("code", "%%writefile solution.py\n" + REF[len(HELPER):].strip())]))
    code, rows = grade("-r", str(tmp_path / "ref.py"), str(subs), "--fail-under", "0.9", out=tmp_path / "o.json")
    row = rows[str(subs / "shell.ipynb")]
    assert code == 0 and row["parse_error"] is None and row["warnings"] == [], row
    assert row["codebleu_native"] == pytest.approx(1.0) and [c["cell"] for c in row["cells"]] == [4, 5]


def test_a_reference_that_is_all_starter_code_is_said_to_be_so_not_empty(tmp_path: Path, capsys) -> None:
    """``--starter`` given the reference itself (or a reference that only adds nothing to it) left
    a blank reference: every submission scored 0 with "the reference ref.py is empty", a file the
    teacher can see is not. Each row now says the reference is nothing but the starter code."""
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "starter.py").write_text(REF)
    for name, text in (("ann", GOOD), ("bob", WRONG)):
        (tmp_path / "cls" / name).mkdir(parents=True)
        (tmp_path / "cls" / name / "sol.py").write_text(text)
    code, rows = grade("-r", str(tmp_path / "ref.py"), str(tmp_path / "cls"), "--layout", "plain", "--starter",
                       str(tmp_path / "starter.py"), out=tmp_path / "o.json")
    err = capsys.readouterr().err
    assert code == 3 and "is empty" not in err and len(rows) == 2, err
    for row in rows.values():
        assert row["codebleu_native"] is None and row["errors"] == [
            f"the reference {tmp_path / 'ref.py'} is nothing but the starter code ({tmp_path / 'starter.py'}): "
            "there is nothing left to compare with"], row
