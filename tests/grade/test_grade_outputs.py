"""Where `refscore grade` writes its reports: standard output and streams are written to, never
replaced; links are written through; a report that would overwrite an input (the reference, the
JSONL of completions) or another report, or that cannot be written, is one line before any
scoring; the run's own reports inside a submission folder are never graded. Real CLI runs."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest
from refscore.cli import main

from tests.support.cli import run_refscore as refscore
from tests.support.grade_class import write_class

QUICK = ("--metrics", "codebleu", "-q")

pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize("blocks", [(), ("--block-lines", "1")], ids=["in-memory", "block-wise"])
def test_json_report_on_standard_output(tmp_path: Path, blocks: tuple[str, ...]) -> None:
    """`--json -` prints the JSON report (nothing else) on stdout and creates no file named `-`."""
    write_class(tmp_path)
    result = refscore("grade", "--jsonl", "runs.jsonl", "--metrics", "codebleu", "--progress", "none", *blocks,
                      "--json", "-", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [row["id"] for row in report["submissions"]] == ["c0", "c1", "c2"]
    assert "graded 3 submissions" in result.stderr and "wrote standard output" in result.stderr
    assert not (tmp_path / "-").exists()
    assert not list(tmp_path.glob("-*"))  # no cache file named after it either


@pytest.mark.parametrize("blocks", [(), ("--block-lines", "1")], ids=["in-memory", "block-wise"])
def test_report_to_a_fifo_is_streamed_not_replaced(tmp_path: Path, blocks: tuple[str, ...]) -> None:
    """A FIFO (like `--json >(jq .)` or `/dev/stdout`) is written to; it stays a FIFO (an atomic
    rename used to put a regular file in its place: as root, `--json /dev/stdout` replaced
    /dev/stdout itself)."""
    write_class(tmp_path)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = refscore("grade", "--jsonl", "runs.jsonl", *QUICK, *blocks, "--json", str(fifo), cwd=tmp_path)
    if reader.is_alive():  # the FIFO was never opened for writing: release the reader
        with open(fifo, "wb"):
            pass
    reader.join(10)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert len(json.loads(received[0])["submissions"]) == 3
    assert not (tmp_path / "pipe.cache.jsonl").exists() and not (tmp_path / "pipe.jsonl").exists()


def test_report_through_a_link_keeps_the_link(tmp_path: Path) -> None:
    write_class(tmp_path)
    (tmp_path / "real").mkdir()
    os.symlink("real/grade.json", tmp_path / "link.json")
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "subs"), *QUICK, "--no-cache",
                 "--json", str(tmp_path / "link.json")]) == 0
    assert (tmp_path / "link.json").is_symlink()
    assert len(json.loads((tmp_path / "real" / "grade.json").read_text())["submissions"]) == 2


@pytest.mark.parametrize("args, says", [
    (("-r", "ref.py", "subs", "--json", "ref.py"), "--json ref.py: is an input of this run"),
    (("-r", "ref.py", "subs", "--csv", "subs/a.py"), "--csv subs/a.py: names a python source file"),
    (("-r", "ref.py", "subs", "--csv", "r.out", "--json", "r.out"), "the CSV report is written there too"),
    (("-r", "ref.py", "subs", "--json", "r.json", "--cache", "r.json"), "the JSON report is written there too"),
    (("--jsonl", "runs.jsonl", "--json", "runs.jsonl"), "--json runs.jsonl: is an input"),
    (("--jsonl", "runs.jsonl", "--block-lines", "1", "--csv", "runs.csv"), "the row file runs.jsonl: is an input"),
    (("-r", "ref.py", "subs", "-o", "-"), "-o -: -o names a folder"),  # it made a folder named "-"
])
def test_reports_that_would_overwrite_inputs_or_each_other_are_refused(tmp_path: Path, args: tuple[str, ...],
                                                                       says: str) -> None:
    """Exit 2 in one line, every input unchanged (the reference and the completions used to be
    overwritten by the report, `--csv x --json x` kept only the JSON)."""
    write_class(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = refscore("grade", *args, *QUICK, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("args, says", [
    (("-o", "afile/out"), "a file is in the way of the folder afile"),
    (("--csv", "afile/x.csv"), "a file is in the way of the folder afile"),
    (("--csv", "subs"), "--csv subs: is a folder"),
    (("--json", "/proc/refscore-test/grade.json"), "--json /proc/refscore-test/grade.json: cannot write a report"),
])
def test_reports_that_cannot_be_written_are_one_line_before_scoring(tmp_path: Path, args: tuple[str, ...],
                                                                    says: str) -> None:
    """Exit 3 with one line (was `internal error: NotADirectoryError` / `IsADirectoryError`, exit
    5, after the whole class had been scored)."""
    write_class(tmp_path)
    (tmp_path / "afile").write_text("x")
    result = refscore("grade", "-r", "ref.py", "subs", *QUICK, "--no-cache", *args, cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "internal error" not in result.stderr and "graded" not in result.stdout


def test_own_reports_inside_the_submission_folder_are_not_graded(tmp_path: Path) -> None:
    """`-o subs/report` run twice: the second run grades the same two files (its reports and
    cache were graded as four more submissions, each an error)."""
    write_class(tmp_path)
    for _ in range(2):
        assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "subs"), *QUICK,
                     "-o", str(tmp_path / "subs" / "report")]) == 0
    rows = json.loads((tmp_path / "subs" / "report" / "grade.json").read_text())["submissions"]
    assert [Path(r["id"]).name for r in rows] == ["a.py", "b.py"]
    assert all(not r["errors"] for r in rows)


@pytest.mark.parametrize("cache, says", [("/dev/zero", "is a character device"), ("pipe", "is a named pipe (FIFO)"),
                                         ("-", "is standard output")])
def test_a_cache_that_is_not_a_folder_is_one_line(tmp_path: Path, cache: str, says: str) -> None:
    """The scored parts live in the `--cache` folder: `/dev/zero`, a FIFO or standard output
    there is one line, exit 3 (a cache file of old read zeros until memory ran out, a FIFO hung)."""
    write_class(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    result = refscore("grade", "-r", "ref.py", "subs", *QUICK, "--cache", cache, cwd=tmp_path, timeout=60)
    assert result.returncode == 3, result.stderr
    assert f"--cache {cache}: {says}" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("cache", ["/dev/zero", "afile", "afile/parts"])
def test_a_block_wise_cache_that_cannot_be_a_folder_is_one_line(tmp_path: Path, cache: str) -> None:
    """Block-wise grading keeps scored blocks in the `--cache` folder: a file there was
    `internal error: NotADirectoryError` (exit 5)."""
    write_class(tmp_path)
    (tmp_path / "afile").write_text("x")
    result = refscore("grade", "--jsonl", "runs.jsonl", "--block-lines", "1", *QUICK, "--cache", cache,
                      cwd=tmp_path, timeout=60)
    assert result.returncode == 3, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("refscore: --cache ") and "internal error" not in lines[0]


def test_a_run_that_finds_no_input_leaves_no_folders_behind(tmp_path: Path) -> None:
    """`--jsonl missing.jsonl -o out` said "no such file" and left out/grade.parts/{input,parts}."""
    result = refscore("grade", "--jsonl", "missing.jsonl", *QUICK, "-o", "out", cwd=tmp_path)
    assert result.returncode == 3 and "no such file" in result.stderr
    assert not (tmp_path / "out").exists()
    kept = tmp_path / "kept"
    (kept / "mine").mkdir(parents=True)  # a folder that was there before stays, with what it holds
    result = refscore("grade", "--jsonl", "missing.jsonl", *QUICK, "-o", "kept", cwd=tmp_path)
    assert result.returncode == 3
    assert sorted(p.name for p in kept.iterdir()) == ["mine"]
