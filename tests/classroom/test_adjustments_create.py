"""Issue 45 item 4: a missing adjustments file is created only inside its allowed folder (the
rubric's folder, or ``--adjustments FILE``'s own), with O_CREAT|O_EXCL|O_NOFOLLOW: no parents made
outside it, a link at its name (a dangling one included) refused in one line, exit 3."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.errors import InputFileError
from refscore.classroom.adjustments import HEADER, read_adjustments
from refscore.errors import EXIT_INPUT

pytestmark = pytest.mark.timeout(240)
REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "python"


def test_a_file_named_outside_the_rubric_folder_is_refused_and_no_parent_made(tmp_path: Path) -> None:
    rubric_dir = tmp_path / "course"
    rubric_dir.mkdir()
    outside = tmp_path / "elsewhere" / "deep" / "adjust.csv"
    with pytest.raises(InputFileError, match="outside .*course, the only folder"):
        read_adjustments(rubric_dir / ".." / "elsewhere" / "deep" / "adjust.csv", rubric_dir)
    assert not (tmp_path / "elsewhere").exists() and not outside.exists()


def test_parents_are_made_inside_the_folder_only(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "adjust.csv"
    assert read_adjustments(target, tmp_path) == []
    assert target.read_text(encoding="utf-8") == ",".join(HEADER) + "\n"


def test_a_dangling_link_is_refused_and_its_target_never_created(tmp_path: Path) -> None:
    target = tmp_path / "victim" / "made.csv"
    (tmp_path / "victim").mkdir()
    link = tmp_path / "adjust.csv"
    link.symlink_to(target)
    with pytest.raises(InputFileError, match="link to nothing"):
        read_adjustments(link, tmp_path)
    assert not target.exists() and link.is_symlink()


def test_a_linked_parent_folder_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "sub").symlink_to(tmp_path / "real")
    with pytest.raises(InputFileError, match="is a link or not a folder"):
        read_adjustments(tmp_path / "course" / "sub" / "adjust.csv", tmp_path / "course")
    assert list((tmp_path / "real").iterdir()) == []


def test_given_adjustments_file_needs_its_own_folder_to_exist(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="does not exist"):
        read_adjustments(tmp_path / "missing" / "adjust.csv")
    assert not (tmp_path / "missing").exists()


def _grade(tmp_path: Path, rubric_text: str, capsys) -> tuple[int, str]:
    rubric = tmp_path / "course" / "rubric.toml"
    rubric.parent.mkdir(exist_ok=True)
    rubric.write_text(rubric_text, encoding="utf-8")
    code = main(["grade", "-r", str(EXAMPLES / "reference.py"), str(EXAMPLES / "candidate_close.py"),
                 "--metrics", "codebleu", "--rubric", str(rubric), "-o", str(tmp_path / "out"),
                 "--progress", "none"])
    return code, capsys.readouterr().err


def test_grade_refuses_a_rubric_key_outside_its_folder_in_one_line(tmp_path: Path, capsys) -> None:
    code, err = _grade(tmp_path, 'adjustments = "../elsewhere/new/adjust.csv"\n', capsys)
    assert code == EXIT_INPUT, err
    assert "Traceback" not in err and len([line for line in err.splitlines() if "adjustments file" in line]) == 1
    assert not (tmp_path / "elsewhere").exists()


def test_grade_refuses_a_dangling_link_in_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "adjustments.csv").symlink_to(tmp_path / "planted.csv")
    code, err = _grade(tmp_path, 'title = "Week 1"\n', capsys)
    assert code == EXIT_INPUT, err
    assert "link to nothing" in err and "Traceback" not in err
    assert not (tmp_path / "planted.csv").exists()
    assert os.path.islink(tmp_path / "course" / "adjustments.csv")
