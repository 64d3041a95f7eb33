"""Classroom inputs as LMSs export them (issue 23 item 1, issue 28 item 12): Moodle, Canvas,
Gradescope, GitHub Classroom and plain layouts, as zip archives and folders written here, through
the real `refscore grade` (CodeBLEU only: no model needed)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.classroom.layouts import detect, read_class

SUM_REF = "def total(nums):\n    result = 0\n    for n in nums:\n        result += n\n    return result\n"
SUM_OK = "def total(values):\n    acc = 0\n    for v in values:\n        acc += v\n    return acc\n"
PAL_REF = ("public class Pal {\n    static boolean isPal(String s) {\n"
           "        return new StringBuilder(s).reverse().toString().equals(s);\n    }\n}\n")
PAL_OK = ("public class Pal {\n    static boolean isPal(String w) {\n"
          "        return new StringBuilder(w).reverse().toString().equals(w);\n    }\n}\n")

pytestmark = pytest.mark.timeout(300)


def refs(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "refs").mkdir(exist_ok=True)
    (tmp_path / "refs" / "sum.py").write_text(SUM_REF)
    (tmp_path / "refs" / "Pal.java").write_text(PAL_REF)
    return tmp_path / "refs" / "sum.py", tmp_path / "refs" / "Pal.java"


def write_zip(path: Path, files: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def grade(tmp_path: Path, *args: str) -> tuple[int, dict]:
    out = tmp_path / "out" / "grade.json"
    code = main(["grade", *args, "--metrics", "codebleu", "--no-cache", "-q", "--json", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}


def by_id(report: dict) -> dict[str, dict]:
    return {row["id"]: row for row in report["submissions"]}


MOODLE = {
    "Ada Lovelace_1001_assignsubmission_file_/sum.py": SUM_OK,
    "Ada Lovelace_1001_assignsubmission_file_/Pal.java": PAL_OK,
    "Ada Lovelace_1001_assignsubmission_file_/README.txt": "my notes",
    "Alan Turing_1002_assignsubmission_file_/src/sum.py": SUM_REF,
    "Grace Hopper_1003_assignsubmission_file_/pal.java": PAL_OK,
    "Grace Hopper_1003_assignsubmission_onlinetext_/onlinetext.html": "<p>hi</p>",
}


def test_moodle_zip_two_problems_matched_by_file_name_with_roster(tmp_path: Path, capsys) -> None:
    sum_ref, pal_ref = refs(tmp_path)
    archive = write_zip(tmp_path / "week3.zip", MOODLE)
    (tmp_path / "roster.csv").write_text("Name,ID\nAda Lovelace,1001\nAlan Turing,1002\nGrace Hopper,1003\n"
                                         "Edsger Dijkstra,1004\n")
    (tmp_path / "week3.toml").write_text(
        '[[problem]]\nname = "sum"\nreference = "refs/sum.py"\nsubmissions = ["week3.zip"]\n'
        '[[problem]]\nname = "pal"\nreference = "refs/Pal.java"\nsubmissions = ["week3.zip"]\n')
    code, report = grade(tmp_path, "--mapping", str(tmp_path / "week3.toml"), "--roster", str(tmp_path / "roster.csv"))
    assert code == 0
    rows = by_id(report)
    ada = rows["sum/Ada Lovelace (1001)"]
    assert (ada["student"], ada["student_id"], ada["late"], ada["problem"]) == ("Ada Lovelace", "1001", None, "sum")
    assert ada["errors"] == [] and 0 < ada["codebleu_native"] < 1 and ada["source"] == f"{archive.name}!" + \
        "Ada Lovelace_1001_assignsubmission_file_/sum.py"
    assert rows["sum/Alan Turing (1002)"]["codebleu_native"] == pytest.approx(1.0)  # nested folder, the reference itself
    assert rows["pal/Grace Hopper (1003)"]["errors"] == []  # pal.java: case ignored
    assert "no file for problem sum" in rows["sum/Grace Hopper (1003)"]["errors"][0]
    assert "handed nothing in" in rows["sum/Edsger Dijkstra (1004)"]["errors"][0]
    info = report["settings"]["classes"][0]
    assert info["layout"] == "moodle" and info["students"] == 3
    assert info["missing_students"] == ["Edsger Dijkstra (1004)"]
    assert info["unmatched_files"] == [f"{archive.name}!Ada Lovelace_1001_assignsubmission_file_/README.txt"]
    err = capsys.readouterr().err
    assert "Edsger Dijkstra" in err and "README.txt" in err and "online-text" in err


def test_canvas_folder_recognised_with_late_marks_and_resubmission_suffix(tmp_path: Path) -> None:
    sum_ref, _ = refs(tmp_path)
    folder = tmp_path / "canvas"
    folder.mkdir()
    (folder / "lovelaceada_late_1001_555_sum.py").write_text(SUM_OK)
    (folder / "turingalan_1002_556_sum-1.py").write_text(SUM_REF)
    (folder / "hoppergrace_1003_557_Sum.java").write_text(PAL_OK)
    (tmp_path / "roster.txt").write_text("Ada Lovelace\nAlan Turing\nGrace Hopper\n")
    code, report = grade(tmp_path, "-r", str(sum_ref), str(folder), "--roster", str(tmp_path / "roster.txt"))
    assert code == 0
    rows = by_id(report)
    assert rows["lovelaceada (1001)"]["late"] is True and rows["turingalan (1002)"]["late"] is False
    assert rows["turingalan (1002)"]["codebleu_native"] == pytest.approx(1.0)
    grace = rows["hoppergrace (1003)"]
    assert grace["language"] == "java" and "wrong language" in grace["errors"][0]  # the file's language is shown
    info = report["settings"]["classes"][0]
    assert info["layout"] == "canvas" and info["missing_students"] == [] and info["not_on_roster"] == []


def test_gradescope_export_reads_names_and_ids_from_the_metadata(tmp_path: Path) -> None:
    sum_ref, _ = refs(tmp_path)
    meta = ("submission_111:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: '1001'\n    :email: ada@example.org\n"
            "  :created_at: 2026-11-30 10:00:00\n  :late: true\n"
            "submission_222:\n  :submitters:\n  - :name: Alan Turing\n    :sid: '1002'\n    :email: alan@example.org\n")
    archive = write_zip(tmp_path / "gs.zip", {"assignment_9_export/submission_metadata.yml": meta,
                                              "assignment_9_export/submission_111/sum.py": SUM_OK,
                                              "assignment_9_export/submission_222/sum.py": SUM_REF})
    code, report = grade(tmp_path, "-r", str(sum_ref), str(archive))
    assert code == 0
    rows = by_id(report)
    assert rows["Ada Lovelace (1001)"]["late"] is True and rows["Ada Lovelace (1001)"]["student_id"] == "1001"
    assert rows["Alan Turing (1002)"]["codebleu_native"] == pytest.approx(1.0)
    assert report["settings"]["classes"][0]["layout"] == "gradescope"


def test_github_classroom_folder_of_repositories(tmp_path: Path) -> None:
    sum_ref, _ = refs(tmp_path)
    for user, text in (("octocat", SUM_OK), ("hubot", SUM_REF)):
        repo = tmp_path / "classroom" / f"week3-sum-{user}"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (repo / "sum.py").write_text(text)
        (repo / "README.md").write_text("# week 3\n")
    code, report = grade(tmp_path, "-r", str(sum_ref), str(tmp_path / "classroom"))
    assert code == 0
    rows = by_id(report)
    assert set(rows) == {"octocat", "hubot"} and rows["hubot"]["codebleu_native"] == pytest.approx(1.0)
    info = report["settings"]["classes"][0]
    assert info["layout"] == "github-classroom" and len(info["unmatched_files"]) == 2  # the READMEs
    assert not any(".git" in f for f in info["unmatched_files"])


def test_plain_layout_folder_per_student_several_files_and_roster(tmp_path: Path) -> None:
    sum_ref, pal_ref = refs(tmp_path)
    for student, files in {"alice": {"sum.py": SUM_OK, "Pal.java": PAL_OK},
                           "bob": {"SecondLargest.java": PAL_OK, "sum.py": SUM_REF}}.items():
        (tmp_path / "class" / student).mkdir(parents=True)
        for name, text in files.items():
            (tmp_path / "class" / student / name).write_text(text)
    (tmp_path / "m.toml").write_text(
        '[[problem]]\nname = "sum"\nreference = "refs/sum.py"\nsubmissions = ["class"]\nlayout = "plain"\n'
        '[[problem]]\nname = "palindrome"\nreference = "refs/Pal.java"\nsubmissions = ["class"]\nlayout = "plain"\n'
        'files = ["Pal*.java"]\n')
    (tmp_path / "roster.csv").write_text("student\nalice\nbob\ncarol\n")
    code, report = grade(tmp_path, "--mapping", str(tmp_path / "m.toml"), "--roster", str(tmp_path / "roster.csv"))
    assert code == 0
    rows = by_id(report)
    assert rows["palindrome/alice"]["errors"] == [] and rows["sum/bob"]["codebleu_native"] == pytest.approx(1.0)
    assert "no file for problem palindrome" in rows["palindrome/bob"]["errors"][0]  # never her palindrome
    info = report["settings"]["classes"][0]
    assert info["missing_students"] == ["carol"]
    assert [Path(f).name for f in info["unmatched_files"]] == ["SecondLargest.java"]
    html_out = tmp_path / "out.html"
    assert main(["grade", "--mapping", str(tmp_path / "m.toml"), "--roster", str(tmp_path / "roster.csv"),
                 "--metrics", "codebleu", "--no-cache", "-q", "--html", str(html_out)]) == 0
    page = html_out.read_text(encoding="utf-8")
    assert "handed nothing in" in page and "carol" in page and "SecondLargest.java" in page


def test_layouts_are_recognised_from_names_and_named_layout_is_checked(tmp_path: Path) -> None:
    assert detect(list(MOODLE)) == "moodle"
    assert detect(["smithjo_12_34_a.py", "doejane_late_13_35_a.py"]) == "canvas"
    assert detect(["submission_metadata.yml", "submission_1/a.py"]) == "gradescope"
    assert detect(["hw-ann/a.py", "hw-bo/a.py"]) == "github-classroom"
    assert detect(["alice/a.py", "bob/a.py"]) == "plain"
    archive = write_zip(tmp_path / "c.zip", {"smithjo_12_34_a.py": SUM_OK})
    with pytest.raises(Exception, match="no submission of the moodle layout found .it looks like canvas"):
        read_class(archive, "moodle")
    assert read_class(archive).submissions[0].student.id == "12"


LAYOUT_FILES = {
    "moodle": {"Ada Lovelace_1001_assignsubmission_file_/sum.py": SUM_OK,
               "Alan Turing_1002_assignsubmission_file_/sum.py": SUM_REF},
    "canvas": {"lovelaceada_1001_51_sum.py": SUM_OK, "turingalan_late_1002_52_sum.py": SUM_REF},
    "gradescope": {"submission_metadata.yml": "submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n"
                                              "    :sid: '1001'\nsubmission_2:\n  :submitters:\n"
                                              "  - :name: Alan Turing\n    :sid: '1002'\n",
                   "submission_1/sum.py": SUM_OK, "submission_2/lib/sum.py": SUM_REF},
    "github-classroom": {"week3-ada/sum.py": SUM_OK, "week3-alan/sum.py": SUM_REF},
    "plain": {"ada/sum.py": SUM_OK, "alan/sum.py": SUM_REF},
}


LATE_MARKS = {"moodle": [None, None], "canvas": [False, True], "gradescope": [None, None],
              "github-classroom": [None, None], "plain": [None, None]}


@pytest.mark.parametrize("layout", list(LAYOUT_FILES))
def test_late_is_empty_where_the_layout_has_no_late_mark(tmp_path: Path, layout: str) -> None:
    """Moodle, GitHub Classroom and plain downloads say nothing about lateness (the docs' table:
    "—"), nor Gradescope metadata without ``:late:``, yet every row said ``late: false``, which a
    teacher filtering on it reads as "handed in on time". The column is now empty (null) there;
    Canvas, whose file names mark every late submission, keeps true and false."""
    sum_ref, _ = refs(tmp_path)
    archive = write_zip(tmp_path / f"{layout}.zip", LAYOUT_FILES[layout])
    code, report = grade(tmp_path, "-r", str(sum_ref), str(archive), "--csv", str(tmp_path / "out" / "grade.csv"))
    assert code == 0
    assert [r["late"] for r in sorted(report["submissions"], key=lambda r: r["student"])] == LATE_MARKS[layout]
    cells = (tmp_path / "out" / "grade.csv").read_text(encoding="utf-8").splitlines()
    late = cells[0].split(",").index("late")
    assert sorted(line.split(",")[late] for line in cells[1:]) == \
        sorted("" if m is None else str(m) for m in LATE_MARKS[layout])


def test_gradescope_late_false_is_kept_as_false(tmp_path: Path) -> None:
    sum_ref, _ = refs(tmp_path)
    files = {**LAYOUT_FILES["gradescope"], "submission_metadata.yml": LAYOUT_FILES["gradescope"][
        "submission_metadata.yml"].replace("submission_2:", "  :late: false\nsubmission_2:")}
    code, report = grade(tmp_path, "-r", str(sum_ref), str(write_zip(tmp_path / "gs.zip", files)))
    assert code == 0 and {r["student"]: r["late"] for r in report["submissions"]} == \
        {"Ada Lovelace": False, "Alan Turing": None}


@pytest.mark.parametrize("layout", list(LAYOUT_FILES))
def test_each_layout_as_zip_and_as_folder_gives_the_same_rows(tmp_path: Path, layout: str) -> None:
    sum_ref, _ = refs(tmp_path)
    archive = write_zip(tmp_path / f"{layout}.zip", LAYOUT_FILES[layout])
    folder = tmp_path / layout
    for name, text in LAYOUT_FILES[layout].items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    seen = []
    for source, named in ((archive, None), (folder, layout), (archive, layout)):
        code, report = grade(tmp_path, "-r", str(sum_ref), str(source), *(["--layout", named] if named else []))
        assert code == 0 and report["settings"]["classes"][0]["layout"] == layout
        seen.append(sorted((r["student"], r["student_id"], r["late"], r["codebleu_native"]) for r in report["submissions"]))
        assert all(r["errors"] == [] for r in report["submissions"])
    assert seen[0] == seen[1] == seen[2] and len(seen[0]) == 2
    assert max(seen[0], key=lambda r: r[3])[3] == pytest.approx(1.0)


def test_a_glob_of_zip_archives_names_each_as_a_class(tmp_path: Path) -> None:
    refs(tmp_path)
    (tmp_path / "downloads").mkdir()
    write_zip(tmp_path / "downloads" / "section1.zip", {"Ada Lovelace_1_assignsubmission_file_/sum.py": SUM_OK})
    write_zip(tmp_path / "downloads" / "section2.zip", {"turingalan_2_9_sum.py": SUM_REF})
    (tmp_path / "m.toml").write_text('[[problem]]\nname = "sum"\nreference = "refs/sum.py"\n'
                                     'submissions = ["downloads/*.zip"]\n')
    code, report = grade(tmp_path, "--mapping", str(tmp_path / "m.toml"))
    assert code == 0
    assert [c["layout"] for c in report["settings"]["classes"]] == ["moodle", "canvas"]
    assert set(by_id(report)) == {"sum/Ada Lovelace (1)", "sum/turingalan (2)"}


def test_utf8_names_without_the_flag_and_backslash_separators(tmp_path: Path, monkeypatch) -> None:
    """Windows' own zip tool writes UTF-8 names without the UTF-8 flag, old tools '\\' separators."""
    sum_ref, _ = refs(tmp_path)
    name = "José García_77_assignsubmission_file_\\src\\sum.py"
    archive = tmp_path / "win.zip"
    with monkeypatch.context() as patch:
        patch.setattr(zipfile.ZipInfo, "_encodeFilenameFlags", lambda self: (self.filename.encode("cp437"),
                                                                             self.flag_bits & ~0x800))
        with zipfile.ZipFile(archive, "w") as z:
            z.writestr(zipfile.ZipInfo(name.encode("utf-8").decode("cp437")), SUM_REF)
    assert not zipfile.ZipFile(archive).infolist()[0].flag_bits & 0x800
    code, report = grade(tmp_path, "-r", str(sum_ref), str(archive))
    row = report["submissions"][0]
    assert code == 0 and row["student"] == "José García" and row["student_id"] == "77"
    assert row["codebleu_native"] == pytest.approx(1.0) and row["source"].endswith("src\\sum.py")


def test_files_outside_any_submission_are_one_note(tmp_path: Path, capsys) -> None:
    sum_ref, _ = refs(tmp_path)
    files = {f"stray_{n}.txt": "x" for n in range(15)}
    files["Ada Lovelace_1_assignsubmission_file_/sum.py"] = SUM_OK
    archive = write_zip(tmp_path / "m.zip", files)
    code, report = grade(tmp_path, "-r", str(sum_ref), str(archive), "--layout", "moodle")
    err = [line for line in capsys.readouterr().err.splitlines() if "not in a student's submission" in line]
    assert code == 0 and len(err) == 1 and "15 file(s)" in err[0] and "and 5 more" in err[0]
    assert [r["student"] for r in report["submissions"]] == ["Ada Lovelace"]


def test_reports_written_inside_a_class_folder_are_never_graded(tmp_path: Path) -> None:
    sum_ref, _ = refs(tmp_path)
    for student in ("ann", "ben"):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "sum.py").write_text(SUM_OK)
    args = ["grade", "-r", str(sum_ref), str(tmp_path / "class"), "--layout", "plain", "--metrics", "codebleu",
            "-q", "-o", str(tmp_path / "class" / "report")]
    assert main(args) == 0 and main(args) == 0  # the second run finds the first one's reports and parts
    report = json.loads((tmp_path / "class" / "report" / "grade.json").read_text())
    assert sorted(r["id"] for r in report["submissions"]) == ["ann", "ben"]
    assert report["settings"]["classes"][0]["unmatched_files"] == []
