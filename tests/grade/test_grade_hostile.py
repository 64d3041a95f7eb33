"""Hostile and careless inputs to `refscore grade` (issue 16, defects 2, 3, 5, 10 and 14): folder
links in globs, empty folders, mistyped mapping values, formula-like names in the CSV, bidi
controls in names and code, and the reports' permissions. Real CLI runs (subprocesses where a
regression could hang) and the real reports."""

from __future__ import annotations

import csv
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.cli import main

REPO = Path(__file__).resolve().parents[2]
REF = "def add(a, b):\n    total = a + b\n    return total\n"
CAND = "def add(x, y):\n    s = x + y\n    return s\n"
RLO = "\u202e"

pytestmark = pytest.mark.timeout(300)


def refscore(*args: str, cwd: Path, timeout: float = 90, umask: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "refscore", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          preexec_fn=None if umask is None else (lambda: os.umask(umask)))


def grade_json(tmp_path: Path, *args: str) -> tuple[int, dict[str, dict]]:
    out = tmp_path / "out.json"
    code = main(["grade", *args, "--metrics", "codebleu", "--no-cache", "-q", "--json", str(out)])
    return code, {row["id"]: row for row in json.loads(out.read_text(encoding="utf-8"))["submissions"]}


# -- defect 5: globs and folder links --------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_glob_does_not_recurse_through_folder_links(tmp_path: Path) -> None:
    """`loop/**/*.py` with links to `.` and to the parent: each file graded once, no loop."""
    (tmp_path / "ref.py").write_text(REF)
    loop = tmp_path / "loop"
    (loop / "sub").mkdir(parents=True)
    (loop / "a.py").write_text(CAND)
    (loop / "sub" / "b.py").write_text(CAND)
    os.symlink(".", loop / "self")
    os.symlink("..", loop / "sub" / "up")
    result = refscore("grade", "-r", "ref.py", "loop/**/*.py", "--metrics", "codebleu", "--no-cache",
                      "--json", "out.json", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    ids = [row["id"] for row in json.loads((tmp_path / "out.json").read_text())["submissions"]]
    assert ids == ["loop/a.py", "loop/sub/b.py"]
    # a single-level wildcard may name a link once (finite); the same file is still graded once,
    # under the first name that reached it, whichever argument that was
    code, rows = grade_json(tmp_path, "-r", str(tmp_path / "ref.py"), str(loop / "*" / "*.py"), str(loop / "*.py"))
    assert code == 0
    assert sorted(os.path.relpath(i, loop) for i in rows) == ["self/a.py", "sub/b.py"]


# -- defect 10: folders with nothing to grade ----------------------------------------------------------


def test_empty_folders_are_error_rows_and_fail_the_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "empty").mkdir()
    (tmp_path / "only_java").mkdir()
    (tmp_path / "only_java" / "A.java").write_text("class A {}\n")
    (tmp_path / "no_subfolders").mkdir()
    (tmp_path / "no_subfolders" / "x.py").write_text(CAND)
    (tmp_path / "cand.py").write_text(CAND)
    ref = str(tmp_path / "ref.py")
    code, rows = grade_json(tmp_path, "-r", ref, str(tmp_path / "cand.py"), str(tmp_path / "empty"))
    assert code == 0
    assert "empty folder" in rows[str(tmp_path / "empty")]["errors"][0]
    assert rows[str(tmp_path / "cand.py")]["codebleu_native"] is not None
    assert main(["grade", "-r", ref, str(tmp_path / "cand.py"), str(tmp_path / "empty"), "--metrics", "codebleu",
                 "--no-cache", "-q", "--fail-under", "0"]) == 1
    assert "empty: not scored" in capsys.readouterr().err
    code, rows = grade_json(tmp_path, "-r", ref, str(tmp_path / "only_java"), "--pattern", "*.py")
    assert "no file matching '*.py'" in rows[str(tmp_path / "only_java")]["errors"][0]
    code, rows = grade_json(tmp_path, "-r", ref, str(tmp_path / "no_subfolders"), "--per-folder")
    assert "no sub-folders" in rows[str(tmp_path / "no_subfolders")]["errors"][0]


def test_empty_folder_in_a_mapping_is_an_error_row(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "a.py").write_text(CAND)
    (tmp_path / "nobody").mkdir()
    mapping = tmp_path / "m.toml"
    mapping.write_text('[[problem]]\nname = "add"\nreference = "ref.py"\nsubmissions = ["subs", "nobody"]\n')
    code, rows = grade_json(tmp_path, "--mapping", str(mapping))
    assert code == 0 and set(rows) == {"add/subs/a.py", "add/nobody"}
    assert "empty folder" in rows["add/nobody"]["errors"][0]


# -- defect 14: mapping value types ---------------------------------------------------------------------


@pytest.mark.parametrize("line, key", [("reference = 3", "reference"), ('per_folder = "maybe"', "per_folder"),
                                       ("submissions = [1, 2]", "submissions"), ("pattern = true", "pattern")])
def test_mapping_values_are_type_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, key: str) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "a.py").write_text(CAND)
    base = {"reference": 'reference = "ref.py"', "submissions": 'submissions = ["a.py"]'}
    base[key] = line
    mapping = tmp_path / "m.toml"
    mapping.write_text("[[problem]]\nname = \"add\"\n" + "\n".join(base.values()) + "\n")
    assert main(["grade", "--mapping", str(mapping), "--metrics", "codebleu", "--no-cache", "-q"]) == 3
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert str(mapping) in err[0] and repr(key) in err[0] and "problem 1 ('add')" in err[0]


def test_csv_mapping_flag_and_unknown_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "a.py").write_text(CAND)
    mapping = tmp_path / "m.csv"
    mapping.write_text("name,reference,submissions,per_folder\nadd,ref.py,a.py,maybe\n")
    assert main(["grade", "--mapping", str(mapping), "--metrics", "codebleu", "--no-cache", "-q"]) == 3
    err = capsys.readouterr().err
    assert "'per_folder'" in err and "maybe" in err and str(mapping) in err
    toml = tmp_path / "m.toml"
    toml.write_text('[[problem]]\nreference = "ref.py"\nsubmission = ["a.py"]\nsubmissions = ["a.py"]\n')
    assert main(["grade", "--mapping", str(toml), "--metrics", "codebleu", "--no-cache", "-q"]) == 0
    assert "unknown key 'submission' ignored" in capsys.readouterr().err


# -- defect 2: CSV formula injection --------------------------------------------------------------------


FORMULAS = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\tx=1", "\r=1"]


def test_csv_cells_that_look_like_formulas_are_neutralised(tmp_path: Path) -> None:
    lines = [json.dumps({"id": name, "candidate": CAND, "reference": REF, "language": "python", "problem": name})
             for name in FORMULAS]
    lines.append(json.dumps({"id": "plain", "candidate": CAND, "reference": REF, "language": "python"}))
    jsonl = tmp_path / "runs.jsonl"
    jsonl.write_text("\n".join(lines) + "\n")
    out = tmp_path / "r"
    assert main(["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "--no-cache", "-q", "-o", str(out)]) == 0
    with open(out / "grade.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["id"] for r in rows] == ["'" + name for name in FORMULAS] + ["plain"]
    assert [r["problem"] for r in rows[:-1]] == ["'" + name for name in FORMULAS]
    assert all(not r[c].startswith(tuple("=+-@\t\r")) for r in rows for c in r)
    assert float(rows[0]["codebleu_native"]) > 0  # numbers stay numbers
    data = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    assert [s["id"] for s in data["submissions"]] == FORMULAS + ["plain"]  # JSON keeps the exact text


def test_passed_through_field_names_that_look_like_formulas_are_neutralised_in_the_header(tmp_path: Path) -> None:
    """A JSONL field's name is a CSV header cell: ``=HYPERLINK(...)`` or ``@SUM`` as a field name
    is neutralised there as any other cell; the JSON keeps the exact name."""
    line = {"id": "a", "candidate": CAND, "reference": REF, "language": "python",
            '=HYPERLINK("http://x","y")': 1, "@SUM(A1)": 2, "plain_field": 3}
    jsonl = tmp_path / "runs.jsonl"
    jsonl.write_text(json.dumps(line) + "\n")
    out = tmp_path / "r"
    assert main(["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "--no-cache", "-q", "-o", str(out)]) == 0
    with open(out / "grade.csv", newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert not any(name.startswith(tuple("=+-@\t\r")) for name in header)
    assert "'=HYPERLINK(\"http://x\",\"y\")" in header and "'@SUM(A1)" in header and "plain_field" in header
    row = json.loads((out / "grade.json").read_text(encoding="utf-8"))["submissions"][0]
    assert row['=HYPERLINK("http://x","y")'] == 1 and row["@SUM(A1)"] == 2


# -- defect 3: bidi controls ---------------------------------------------------------------------------------


def test_bidi_names_are_shown_safely_and_bidi_code_is_flagged(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / f"bidi_{RLO}yp.doc.py").write_text(CAND)
    trojan = 'def add(x, y):\n    s = x + y  # \u202e } \u2066if admin:\u2069 \u2066 # \n    return s\n'
    (folder / "trojan.py").write_text(trojan)
    (folder / "plain.py").write_text(CAND)
    out = tmp_path / "r"
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(folder), "--metrics", "codebleu", "--no-cache", "-q",
                 "-o", str(out)]) == 0
    html = (out / "grade.html").read_text(encoding="utf-8")
    for control in ("\u202e", "\u2066", "\u2069"):
        assert control not in html
    assert "bidi_&lt;U+202E&gt;yp.doc.py" in html and '<mark class="bidi"' in html
    rows = {Path(r["id"]).name: r for r in json.loads((out / "grade.json").read_text(encoding="utf-8"))["submissions"]}
    assert any("Trojan Source" in w and "U+202E" in w and "line(s) 2" in w for w in rows["trojan.py"]["warnings"])
    assert not rows["plain.py"]["warnings"]
    assert rows[f"bidi_{RLO}yp.doc.py"]["id"].endswith(f"bidi_{RLO}yp.doc.py")  # JSON keeps the exact name


def test_score_warns_about_bidi_controls(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "cand.py").write_text(f"def add(x, y):\n    s = x + y  # {RLO}\n    return s\n")
    result = refscore("score", "ref.py", "cand.py", "--metrics", "codebleu", "--no-daemon", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "refscore: warning: cand.py: bidirectional control character(s) U+202E" in result.stderr
    data = json.loads(result.stdout)
    assert len(data["warnings"]) == 1 and "Trojan Source" in data["warnings"][0]
    plain = refscore("score", "ref.py", "ref.py", "--metrics", "codebleu", "--no-daemon", "--json", cwd=tmp_path)
    assert json.loads(plain.stdout)["warnings"] == [] and "warning" not in plain.stderr


# -- defect 14: report permissions ------------------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o027, 0o640)])
def test_reports_respect_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "a.py").write_text(CAND)
    result = refscore("grade", "-r", "ref.py", "a.py", "--metrics", "codebleu", "-q", "-o", "out", cwd=tmp_path,
                      umask=umask)
    assert result.returncode == 0, result.stderr
    for name in ("grade.csv", "grade.json", "grade.html"):
        assert stat.S_IMODE((tmp_path / "out" / name).stat().st_mode) == mode, name


def test_a_link_leading_out_of_the_class_is_an_error_row_never_read(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    (tmp_path / "ref.py").write_text(REF)
    (subs / "a.py").write_text(CAND)
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 'do-not-show'\n")
    (subs / "b.py").symlink_to(secret)
    (subs / "c.py").symlink_to(subs / "a.py")  # a link inside the class: the same file, graded once
    out = tmp_path / "out"
    code = main(["grade", "-r", str(tmp_path / "ref.py"), str(subs), str(subs / "b.py"), "--metrics", "codebleu",
                 "--no-cache", "-q", "-o", str(out)])
    assert code == 0
    rows = {Path(r["id"]).name: r for r in json.loads((out / "grade.json").read_text())["submissions"]}
    assert sorted(rows) == ["a.py", "b.py"]
    assert rows["b.py"]["codebleu_native"] is None and "a symbolic link to a file outside" in rows["b.py"]["errors"][0]
    assert "do-not-show" not in (out / "grade.html").read_text()


def test_a_file_reached_by_several_arguments_is_graded_once(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    (tmp_path / "ref.py").write_text(REF)
    (subs / "a.py").write_text(CAND)
    (subs / "b.py").write_text(REF)
    code, rows = grade_json(tmp_path, "-r", str(tmp_path / "ref.py"), str(subs), str(subs / "a.py"),
                            str(subs / "*.py"))
    assert code == 0 and len(rows) == 2


def test_an_empty_reference_is_said_once_not_silently_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ref.py").write_text("\n  \n")
    (tmp_path / "a.py").write_text(CAND)
    (tmp_path / "b.py").write_text(REF)
    code, rows = grade_json(tmp_path, "-r", str(tmp_path / "ref.py"), str(tmp_path / "a.py"), str(tmp_path / "b.py"))
    err = capsys.readouterr().err
    assert code == 0 and err.count("is empty: there is nothing to compare with") == 1
    assert all(row["codebleu_native"] == 0 for row in rows.values())
    assert main(["score", str(tmp_path / "ref.py"), str(tmp_path / "a.py"), "--metrics", "codebleu", "--no-daemon"]) == 0
    assert "warning: the reference" in capsys.readouterr().err


def test_a_reference_that_does_not_parse_is_said_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A typo in the teacher's reference (``def add(a, b)`` without its colon) went unsaid: every
    submission was compared with what the parser recovered of it, and since no reference parsed,
    no submission's own syntax error was flagged (``--fail-under`` passed a truncated file). The
    run now says once, for the reference file, where it does not parse."""
    (tmp_path / "ref.py").write_text(REF.replace("):", ")", 1))
    (tmp_path / "a.py").write_text(CAND)
    (tmp_path / "b.py").write_text("def add(x, y):\n    return (x +\n")
    code, rows = grade_json(tmp_path, "-r", str(tmp_path / "ref.py"), str(tmp_path / "a.py"), str(tmp_path / "b.py"),
                            "--fail-under", "0")
    err = capsys.readouterr().err
    assert code == 0 and rows[str(tmp_path / "b.py")]["parse_error"] is None  # as documented: nothing flagged
    note = f"{tmp_path / 'ref.py'} does not parse (syntax error near line 1)"
    assert err.count(note) == 1, err
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "Add.java").write_text("class Add {}\n")  # wrong language: the reference is never read as Java
    code, rows = grade_json(tmp_path, "-r", str(tmp_path / "ref.py"), str(tmp_path / "a.py"), str(tmp_path / "Add.java"))
    assert code == 0 and "does not parse" not in capsys.readouterr().err


def test_the_reference_named_as_a_submission_is_said_to_be_skipped(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``grade -r sol.py sol.py`` said only "no submissions found"; the reference is never graded,
    and now a note says so (the run goes on with the other submissions), and a folder holding
    nothing but the reference is not called empty."""
    ref, other = tmp_path / "sol.py", tmp_path / "b.py"
    ref.write_text(REF)
    other.write_text(CAND)
    code = main(["grade", "-r", str(ref), str(ref), "--metrics", "codebleu", "--no-cache", "-q"])
    err = capsys.readouterr().err
    assert code == 3 and "no submissions found" in err, err
    assert f"{ref} is the --reference: skipped, not graded as a submission" in err, err
    code, rows = grade_json(tmp_path, "-r", str(ref), str(ref), str(other))
    assert code == 0 and list(rows) == [str(other)], rows
    assert "is the --reference" in capsys.readouterr().err
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "sol.py").write_text(REF)
    code, rows = grade_json(tmp_path, "-r", str(folder / "sol.py"), str(folder))
    assert code == 3 and "empty folder" not in rows[str(folder)]["errors"][0], rows
    assert "only the reference" in rows[str(folder)]["errors"][0], rows


def test_references_in_two_languages_are_one_line_not_read_as_the_first(tmp_path: Path, capsys) -> None:
    """``-r add.py -r Add.java``: the Java reference was parsed as Python without a word (a
    submission in Java is refused as the wrong language); it is one line naming it, exit 3, and
    in a mapping the problem's error, each of its submissions an error row."""
    (tmp_path / "add.py").write_text(REF)
    (tmp_path / "Add.java").write_text("class Add { int add(int a, int b) { return a + b; } }\n")
    (tmp_path / "sub.py").write_text(CAND)
    code = main(["grade", "-r", str(tmp_path / "add.py"), "-r", str(tmp_path / "Add.java"), str(tmp_path / "sub.py"),
                 "--metrics", "codebleu", "--no-cache", "-q"])
    err = capsys.readouterr().err
    assert code == 3 and "Add.java" in err and "java" in err and "python" in err, err
    (tmp_path / "m.toml").write_text('[[problem]]\nname = "add"\nreference = ["add.py", "Add.java"]\n'
                                     'submissions = ["sub.py"]\n')
    out = tmp_path / "out.json"
    main(["grade", "--mapping", str(tmp_path / "m.toml"), "--metrics", "codebleu", "--no-cache", "-q",
          "--json", str(out)])
    row = json.loads(out.read_text())["submissions"][0]
    assert row["codebleu_native"] is None and "Add.java" in row["errors"][0]


def test_a_utf16_submission_is_named_as_such_not_binary(tmp_path: Path) -> None:
    """Notepad's "Unicode" (UTF-16 with a byte order mark) is text: its error row says UTF-16 and
    how to fix it, not "looks binary (contains NUL bytes)"."""
    (tmp_path / "ref.py").write_text(REF)
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "win.py").write_bytes(CAND.encode("utf-16"))
    (folder / "plain.py").write_text(CAND)
    out = tmp_path / "out.json"
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(folder), "--metrics", "codebleu", "--no-cache", "-q",
                 "--json", str(out)]) == 0
    rows = {Path(r["id"]).name: r for r in json.loads(out.read_text())["submissions"]}
    error = rows["win.py"]["errors"][0]
    assert "UTF-16" in error and "UTF-8" in error and "binary" not in error
    assert rows["plain.py"]["codebleu_native"] is not None
