"""A link planted in a report folder never redirects a write (issue 25, item 2).

The docs allow ``-o`` inside the submissions folder, so a student can commit
``report/grade.html -> ../../victim.txt``. Every file `refscore grade` names itself (``-o DIR``'s
reports, the row files beside them, the scored-parts folder and its part files, the temporary
files) goes through ``refscore.safe_write``: a link there is refused in one line (exit 3) before
anything is scored, and the file it names is never touched. Real CLI runs, both engines.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from refscore.cli import main

from tests.support.cli import run_refscore as refscore
from tests.support.grade_class import write_class

VICTIM = "ssh-ed25519 AAAA teacher@host\n"

pytestmark = pytest.mark.timeout(300)

ENGINES = {"in-memory": ("-r", "ref.py", "subs"),
           "block-wise": ("--jsonl", "runs.jsonl", "--block-lines", "1")}


def _class(root: Path) -> Path:
    """ref.py, subs/{a,b}.py, runs.jsonl and victim.txt (outside subs); returns subs/report."""
    write_class(root, rows=2)
    (root / "victim.txt").write_text(VICTIM)
    (root / "victims").mkdir()
    report = root / "subs" / "report"
    report.mkdir()
    return report


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("name", ["grade.html", "grade.csv", "grade.json", "grade.jsonl", "grade.parquet"])
def test_a_link_planted_as_a_report_is_refused_and_its_target_untouched(tmp_path: Path, engine: str,
                                                                         name: str) -> None:
    """`report/grade.html -> ../../victim.txt` used to get the teacher's run to replace victim.txt
    with the HTML report (its code lines verbatim: a line injected into an authorized_keys)."""
    report = _class(tmp_path)
    os.symlink("../../victim.txt", report / name)
    parquet = ["--parquet"] if name.endswith(".parquet") else []  # written when asked for
    result = refscore("grade", *ENGINES[engine], "--metrics", "codebleu", "-q", "-o", "subs/report", *parquet,
                      cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert (tmp_path / "victim.txt").read_text() == VICTIM
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert name in result.stderr and "symbolic link" in result.stderr
    assert (report / name).is_symlink()
    assert not (tmp_path / "victim.parts").exists() and not list((tmp_path / "victims").iterdir())


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("name", ["grade.parts", "grade.parts/parts", "grade.parts/input"])
def test_a_link_planted_as_the_parts_folder_is_refused(tmp_path: Path, engine: str, name: str) -> None:
    """The scored parts (the cache) never go through a link to another folder."""
    report = _class(tmp_path)
    if name != "grade.parts":
        (report / "grade.parts").mkdir()
    os.symlink(tmp_path / "victims", report / name)
    result = refscore("grade", *ENGINES[engine], "--metrics", "codebleu", "-q", "-o", "subs/report", cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert "symbolic link" in result.stderr and "Traceback" not in result.stderr
    assert not list((tmp_path / "victims").iterdir())


def test_a_link_planted_under_a_temporary_name_is_never_written_through(tmp_path: Path) -> None:
    """The reports are first written to `.grade.csv.<pid>.tmp`: a link planted under that name is
    removed, never followed (the file is created with O_EXCL | O_NOFOLLOW)."""
    report = _class(tmp_path)
    for name in ("grade.csv", "grade.json", "grade.html", "grade.jsonl"):
        os.symlink(tmp_path / "victim.txt", report / f".{name}.{os.getpid()}.tmp")
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "subs" / "a.py"), "--metrics", "codebleu",
                 "-q", "-o", str(report)]) == 0
    assert (tmp_path / "victim.txt").read_text() == VICTIM
    assert len(json.loads((report / "grade.json").read_text())["submissions"]) == 1
    assert not list(report.glob(".*.tmp"))


def test_a_report_link_the_user_names_is_still_written_through(tmp_path: Path) -> None:
    """`--json link.json` (a link the user made) keeps its contract: the file it names is
    replaced, the link stays."""
    _class(tmp_path)
    (tmp_path / "real").mkdir()
    os.symlink("real/grade.json", tmp_path / "link.json")
    result = refscore("grade", "-r", "ref.py", "subs/a.py", "--metrics", "codebleu", "-q", "--json", "link.json",
                      cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "link.json").is_symlink()
    assert len(json.loads((tmp_path / "real" / "grade.json").read_text())["submissions"]) == 1


@pytest.mark.parametrize("planted", ["report/feedback", "report-teacher"])
def test_a_link_planted_as_the_feedback_or_teacher_folder_is_refused(tmp_path: Path, planted: str) -> None:
    """Each feedback page was checked, but not the folder: ``report/feedback -> ../..`` got the
    teacher's run to write every student's page (``ana.html``...) into the folder the link names,
    replacing files of those names; and ``report-teacher`` (beside ``-o subs/report``, so in the
    students' folder too) took the pseudonym key and the real-name uploads of ``--anonymise``.
    Both are refused in one line before anything is scored (exit 3); nothing lands there."""
    report = _class(tmp_path)
    os.symlink(tmp_path / "victims", report.parent / planted)
    (tmp_path / "rubric.toml").write_text("points = 10\n")
    result = refscore("grade", "-r", "ref.py", "subs", "--metrics", "codebleu", "-q", "-o", "subs/report",
                      "--rubric", "rubric.toml", *(["--anonymise"] if planted.endswith("teacher") else []),
                      cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert "symbolic link" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not list((tmp_path / "victims").iterdir()) and not (report / "grade.json").exists()
