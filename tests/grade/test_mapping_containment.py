"""One rule for what a mapping names (issue 25, item 8): references, context files and
submissions alike stay under the mapping's folder (links resolved) unless `--allow-outside DIR`
allows a named folder. `submissions = ["../../../../etc/passwd"]`, an absolute path,
`reference = "../secret/s.py"` and a reference that is a link out of the folder were read and
embedded in grade.html. Real CLI runs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.cli import run_refscore as refscore

REF = "def add(a, b):\n    total = a + b\n    return total\n"
CAND = "def add(x, y):\n    s = x + y\n    return s\n"
SECRET = "API_KEY = 'hunter2-do-not-leak'\n"

pytestmark = pytest.mark.timeout(300)


def _tree(tmp_path: Path) -> Path:
    """course/week.toml beside course/ref.py and course/subs/; secret/s.py outside."""
    course = tmp_path / "course"
    (course / "subs").mkdir(parents=True)
    (course / "ref.py").write_text(REF)
    (course / "subs" / "a.py").write_text(CAND)
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "s.py").write_text(SECRET)
    os.symlink(tmp_path / "secret" / "s.py", course / "linked_ref.py")
    return course


def _grade(course: Path, problems: str, *extra: str) -> tuple[int, dict[str, dict], str]:
    (course / "week.toml").write_text(problems)
    result = refscore("grade", "--mapping", "week.toml", "--metrics", "codebleu", "-q", "-o", "out", *extra,
                      cwd=course)
    report = course / "out" / "grade.json"
    rows = {r["id"]: r for r in json.loads(report.read_text())["submissions"]} if report.exists() else {}
    html = (course / "out" / "grade.html").read_text() if (course / "out" / "grade.html").exists() else ""
    return result.returncode, rows, result.stderr + html


@pytest.mark.parametrize("submission", ["../secret/s.py", "{secret}/s.py", "../../../../../../{secret}/s.py"])
def test_a_submission_outside_the_folder_is_an_error_row_never_read(tmp_path: Path, submission: str) -> None:
    course = _tree(tmp_path)
    named = submission.format(secret=tmp_path / "secret")
    code, rows, text = _grade(course, f'[[problem]]\nname = "p"\nreference = "ref.py"\n'
                                      f'submissions = ["subs/a.py", "{named}"]\n')
    assert code == 0, text
    bad = [r for r in rows.values() if r["errors"]]
    assert len(bad) == 1 and "is outside the mapping's folder" in bad[0]["errors"][0]
    assert bad[0]["codebleu_native"] is None
    assert rows["p/subs/a.py"]["codebleu_native"] is not None
    assert "hunter2" not in text


@pytest.mark.parametrize("reference", ["../secret/s.py", "{secret}/s.py", "linked_ref.py"])
def test_a_reference_outside_the_folder_is_refused_like_a_submission(tmp_path: Path, reference: str) -> None:
    course = _tree(tmp_path)
    named = reference.format(secret=tmp_path / "secret")
    code, rows, text = _grade(course, f'[[problem]]\nname = "p"\nreference = "{named}"\nsubmissions = ["subs/a.py"]\n')
    assert "hunter2" not in text
    assert rows and all(r["codebleu_native"] is None and "is outside the mapping's folder" in r["errors"][0]
                        for r in rows.values()), rows


def test_a_context_file_outside_the_folder_is_refused(tmp_path: Path) -> None:
    course = _tree(tmp_path)
    code, rows, text = _grade(course, '[[problem]]\nname = "p"\nreference = "ref.py"\ncontext_file = "../secret/s.py"\n'
                                      'submissions = ["subs/a.py"]\n')
    assert "hunter2" not in text
    assert all("is outside the mapping's folder" in r["errors"][0] for r in rows.values()), rows


def test_allow_outside_names_a_folder_that_may_be_read(tmp_path: Path) -> None:
    course = _tree(tmp_path)
    (tmp_path / "secret" / "ref.py").write_text(REF)
    code, rows, text = _grade(course, '[[problem]]\nname = "p"\nreference = "../secret/ref.py"\n'
                                      'submissions = ["subs/a.py"]\n', "--allow-outside", str(tmp_path / "secret"))
    assert code == 0, text
    assert rows["p/subs/a.py"]["codebleu_native"] is not None and not rows["p/subs/a.py"]["errors"]
