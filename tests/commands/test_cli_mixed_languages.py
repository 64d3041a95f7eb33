"""`refscore score ref.py cand.java`: the candidate's extension chooses the grammar for both
texts, which made Python scored as Java without a word (`refscore grade` calls the same pair a
wrong-language error). Now a warning line on stderr and in the JSON `warnings`; `--lang` or
matching extensions say nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refscore.cli import main

PY = "def add(a, b):\n    total = a + b\n    return total\n"
JAVA = "class A { int add(int a, int b) { int total = a + b; return total; } }\n"


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "ref.py").write_text(PY)
    (tmp_path / "cand.py").write_text(PY)
    (tmp_path / "Cand.java").write_text(JAVA)
    (tmp_path / "ref.txt").write_text(PY)
    return tmp_path


def _score(files: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[dict], str]:
    assert main(["score", *args, "--metrics", "codebleu", "--no-daemon", "--json"]) == 0
    out, err = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines()], err


def test_a_candidate_in_another_language_than_the_reference_is_warned_about(files: Path, capsys) -> None:
    rows, err = _score(files, capsys, str(files / "ref.py"), str(files / "Cand.java"), str(files / "cand.py"))
    assert rows[0]["language"] == "java"
    assert rows[0]["warnings"] == [f"{files / 'Cand.java'} is java but the reference {files / 'ref.py'} is python: "
                                   "both scored as java (pass --lang to choose)"]
    assert rows[1]["warnings"] == []
    assert err.count("refscore: warning:") == 1 and "Cand.java is java" in err


def test_no_warning_with_lang_or_a_reference_without_a_known_extension(files: Path, capsys) -> None:
    rows, err = _score(files, capsys, str(files / "ref.py"), str(files / "Cand.java"), "--lang", "java")
    assert rows[0]["warnings"] == [] and "warning" not in err
    rows, err = _score(files, capsys, str(files / "ref.txt"), str(files / "Cand.java"))
    assert rows[0]["warnings"] == [] and "warning" not in err


CPP_REF = "int add(int a, int b) { return a + b; }\n"


def test_a_cpp_class_may_hand_in_headers_and_c_files(tmp_path: Path) -> None:
    """`.h` names C, but C++ projects use it for their headers: a student folder with `add.h`
    beside `add.cpp` was refused whole as `wrong language (c; the reference is cpp)`. C files and
    headers are read as C++ for a C++ problem; the reverse (C++ files for a C problem) is still
    refused, and so is another language."""
    (tmp_path / "ref.cpp").write_text(CPP_REF)
    alice = tmp_path / "cls" / "alice"
    alice.mkdir(parents=True)
    (alice / "add.h").write_text("#pragma once\nint add(int a, int b);\n")
    (alice / "add.cpp").write_text('#include "add.h"\nint add(int x, int y) { return x + y; }\n')
    (tmp_path / "cls" / "bob").mkdir()
    (tmp_path / "cls" / "bob" / "add.py").write_text("def add(a, b):\n    return a + b\n")
    out = tmp_path / "out.json"
    assert main(["grade", "-r", str(tmp_path / "ref.cpp"), str(tmp_path / "cls"), "--per-folder", "--metrics",
                 "codebleu", "-q", "--no-cache", "--json", str(out)]) == 0
    rows = {Path(r["id"]).name: r for r in json.loads(out.read_text())["submissions"]}
    assert rows["alice"]["errors"] == [] and rows["alice"]["codebleu_native"] > 0.3
    assert "wrong language (python; the reference is cpp)" in rows["bob"]["errors"][0]
    (tmp_path / "ref.c").write_text(CPP_REF)
    # the one row is an error, so no submission could be scored: a failing exit, the reports written
    assert main(["grade", "-r", str(tmp_path / "ref.c"), str(alice / "add.cpp"), "--metrics", "codebleu", "-q",
                 "--no-cache", "--json", str(out)]) == 3
    assert "wrong language (cpp; the reference is c)" in json.loads(out.read_text())["submissions"][0]["errors"][0]


def test_score_reads_a_header_against_a_cpp_reference_as_cpp(tmp_path: Path, capsys) -> None:
    (tmp_path / "ref.cpp").write_text(CPP_REF)
    (tmp_path / "cand.h").write_text("int add(int x, int y) { return x + y; }\n")
    (tmp_path / "a.ts").write_text("const f = (x: number) => x + 1;\n")
    (tmp_path / "b.tsx").write_text("const f = (x: number) => x + 1;\n")
    rows, err = _score(tmp_path, capsys, str(tmp_path / "ref.cpp"), str(tmp_path / "cand.h"))
    assert rows[0]["language"] == "cpp" and rows[0]["warnings"] == [] and "warning" not in err
    rows, err = _score(tmp_path, capsys, str(tmp_path / "a.ts"), str(tmp_path / "b.tsx"))
    assert rows[0]["language"] == "tsx" and rows[0]["warnings"] == [] and "warning" not in err


def test_no_language_to_tell_names_a_file_not_the_stdin_dash(tmp_path: Path, monkeypatch, capsys) -> None:
    """``refscore score ref -`` with a reference without extension: the message names the
    reference (whose extension would tell), not ``'-'`` and its "extension '(none)'"."""
    import io
    import sys

    (tmp_path / "ref").write_text(PY)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PY.encode())))
    assert main(["score", str(tmp_path / "ref"), "-", "--metrics", "codebleu", "--no-daemon"]) == 4
    err = capsys.readouterr().err
    assert "'-'" not in err and "ref'" in err and "--lang" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PY.encode())))
    assert main(["score", "-", str(tmp_path / "ref"), "--metrics", "codebleu", "--no-daemon"]) == 4
    err = capsys.readouterr().err
    assert "'-'" not in err and "--lang" in err


def test_headers_that_hold_cpp_are_read_as_cpp(tmp_path: Path) -> None:
    """Two `.h` files with a class and a namespace were parsed with C's grammar, without a word:
    syntax and dataflow came from error trees. C headers stay C."""
    import json
    import subprocess
    import sys

    cpp = "namespace geo {\nclass Point {\n public:\n  int x() const { return x_; }\n private:\n  int x_ = 0;\n};\n}\n"
    (tmp_path / "ref.h").write_text(cpp, encoding="utf-8")
    (tmp_path / "mine.h").write_text(cpp.replace("x_", "value_"), encoding="utf-8")
    (tmp_path / "c_ref.h").write_text("int add(int a, int b);\nstruct point { int x; };\n", encoding="utf-8")

    def language(ref: str, cand: str) -> str:
        run = subprocess.run([sys.executable, "-m", "refscore", "score", str(tmp_path / ref), str(tmp_path / cand),
                              "--metrics", "codebleu", "--json", "--no-daemon"], capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0 and "warning" not in run.stderr, run.stderr
        return json.loads(run.stdout)["language"]

    assert language("ref.h", "mine.h") == "cpp"
    assert language("c_ref.h", "c_ref.h") == "c"
