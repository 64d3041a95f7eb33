"""``refscore grade`` and standard input (real subprocesses): ``--jsonl -`` grades a JSONL stream
(``generate | refscore grade --jsonl - -o out/``) and ``--context-file -`` reads the task, as
``score`` reads ``-``; every other ``-`` (a SUBMISSION, ``-r -``, ``--mapping -``...) is one line
saying that grade reads it from a file and what to do instead, never ``-: no such file``."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(300)
ROWS = [{"id": "a", "candidate": "def f(x):\n    return x + 1\n", "reference": "def f(y):\n    return y + 1\n"},
        {"candidate": "def f(x):\n    return x * 2\n", "reference": "def f(y):\n    return y + 1\n"}]
STREAM = "".join(json.dumps(r) + "\n" for r in ROWS).encode()


def grade(cwd: Path, *args: str, stdin: bytes | None = b"") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH")) if p)}
    result = subprocess.run([sys.executable, "-m", "refscore", "grade", *args, "--metrics", "codebleu"],
                            cwd=cwd, env=env, input=stdin, capture_output=True, timeout=240)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(errors="replace"),
                                       result.stderr.decode(errors="replace"))


def one_line(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "no such file" not in lines[0], lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "ref.py").write_text("def f(y):\n    return y + 1\n")
    (tmp_path / "a.py").write_text("def f(x):\n    return x + 1\n")
    (tmp_path / "week.toml").write_text('[[problem]]\nreference = "ref.py"\nsubmissions = ["a.py"]\n')
    (tmp_path / "rubric.toml").write_text("points = 10\n")
    return tmp_path


def test_jsonl_stream_on_standard_input_is_graded_and_resumed(folder: Path) -> None:
    result = grade(folder, "--jsonl", "-", "--lang", "python", "-o", "out", "-q", stdin=STREAM)
    assert result.returncode == 0, result.stderr
    report = json.loads((folder / "out" / "grade.json").read_text())
    rows = report["submissions"]
    assert [r["id"] for r in rows] == ["a", "-:2"] and rows[1]["source"] == "-:2"
    assert all(r["codebleu_native"] is not None and not r["errors"] for r in rows), rows
    assert not [p for p in folder.iterdir() if p.name == "-"]  # the stream is not left behind as a file
    again = grade(folder, "--jsonl", "-", "--lang", "python", "-o", "out", "-q", stdin=STREAM)
    assert again.returncode == 0, again.stderr
    assert json.loads((folder / "out" / "grade.json").read_text())["settings"]["from_cache"] == 2
    to_stdout = grade(folder, "--jsonl", "-", "--lang", "python", "--json", "-", "-q", stdin=STREAM)
    assert to_stdout.returncode == 0, to_stdout.stderr
    assert [r["id"] for r in json.loads(to_stdout.stdout)["submissions"]] == ["a", "-:2"]


def test_compressed_or_empty_standard_input_is_one_line(folder: Path) -> None:
    one_line(grade(folder, "--jsonl", "-", "--lang", "python", "-q", "--no-cache", stdin=gzip.compress(STREAM)),
             3, "standard input", "gzip", "zcat")
    one_line(grade(folder, "--jsonl", "-", "--lang", "python", "-q", "--no-cache", stdin=b""), 3,
             "no submissions")


def test_context_file_on_standard_input(folder: Path) -> None:
    result = grade(folder, "-r", "ref.py", "a.py", "--context-file", "-", "--html", "g.html", "-q",
                   "--no-cache", stdin=b"Add one to a number, the task text.")
    assert result.returncode == 0, result.stderr
    assert "Add one to a number, the task text." in (folder / "g.html").read_text()
    one_line(grade(folder, "--jsonl", "-", "--context-file", "-", "a.py", "-r", "ref.py", "-q", "--no-cache",
                   stdin=STREAM), 2, "standard input", "once")


@pytest.mark.parametrize("args, says", [
    (("-r", "ref.py", "-"), "SUBMISSION -"),
    (("-r", "-", "a.py"), "-r -"),
    (("--mapping", "-"), "--mapping -"),
    (("-r", "ref.py", "a.py", "--roster", "-"), "--roster -"),
    (("-r", "ref.py", "a.py", "--starter", "-"), "--starter -"),
    (("-r", "ref.py", "a.py", "--rubric", "-"), "--rubric -"),
    (("-r", "ref.py", "a.py", "--rubric", "rubric.toml", "--adjustments", "-"), "--adjustments -"),
    (("--mapping", "week.toml", "--allow-outside", "-"), "--allow-outside -"),
])
def test_other_standard_input_names_say_what_to_do(folder: Path, args: tuple[str, ...], says: str) -> None:
    """Each was ``-: no such file`` (exit 3), ``--adjustments -`` wrote a file named ``-``."""
    line = one_line(grade(folder, *args, "-q", "--no-cache", stdin=b"def f(y):\n    return y\n"), 2, says,
                    "standard input", "--jsonl -")
    assert "file" in line, line
    assert not (folder / "-").exists()


def test_a_pipe_named_as_a_path_is_refused_with_the_way_to_stream(folder: Path) -> None:
    """``--jsonl /dev/stdin`` from a pipe said ``/proc/N/fd/pipe:[M]: no such file``."""
    line = one_line(grade(folder, "--jsonl", "/dev/stdin", "--lang", "python", "-q", "--no-cache", stdin=STREAM),
                    3, "/dev/stdin", "pipe", "--jsonl -")
    assert "/proc/" not in line, line


def test_feedback_to_standard_output_is_refused_not_a_folder_named_dash(folder: Path) -> None:
    """``--feedback -`` wrote the pages into a new folder named ``-`` (``-o -`` is refused)."""
    one_line(grade(folder, "-r", "ref.py", "a.py", "--rubric", "rubric.toml", "--json", "g.json", "--feedback", "-",
                   "-q", "--no-cache"), 2, "--feedback -", "folder")
    assert not (folder / "-").exists()
