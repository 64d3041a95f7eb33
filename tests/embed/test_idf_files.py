"""`--idf FILE` that is not an IDF table (not JSON, not an object, a non-numeric key, a NaN
weight, not UTF-8, `"idf"` not an object): one line naming the file, exit 3, before anything is
scored. It used to exit 0 with every pair's CodeBERTScore replaced by a bare message such as
`codebertscore unavailable: Expecting property name enclosed in double quotes` (in `grade`: an
error row per submission)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.embed.files import load_idf

REPO = Path(__file__).resolve().parents[2]
REF = "def add(a, b):\n    total = a + b\n    return total\n"

pytestmark = pytest.mark.timeout(300)

BROKEN = {
    "array.json": b"[1, 2]",
    "not_json.json": b"{bad",
    "word_key.json": json.dumps({"weights": {"a": 1}}).encode(),
    "nan.json": b'{"5": NaN}',
    "utf16.json": b"\xff\xfe{\x00}\x00",
    "idf_list.json": json.dumps({"idf": [1]}).encode(),
}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "refscore", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=240, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command", ["score", "grade"])
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_idf_file_is_one_line_and_exit_3(tmp_path: Path, name: str, command: str) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "cand.py").write_text(REF.replace("total", "s"))
    (tmp_path / name).write_bytes(BROKEN[name])
    args = (["score", "ref.py", "cand.py", "--no-daemon", "--json"] if command == "score"
            else ["grade", "-r", "ref.py", "cand.py", "--no-cache", "-q"])
    result = _run(*args, "--idf", name, cwd=tmp_path)
    assert result.returncode == 3, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"refscore: IDF file {name}: not an IDF file"), lines
    assert result.stdout == ""


def test_a_good_idf_file_still_loads(tmp_path: Path) -> None:
    (tmp_path / "idf.json").write_text(json.dumps({"default": 1.5, "num_docs": 3, "idf": {"101": 0.0, "7": 2.0}}))
    table = load_idf(tmp_path / "idf.json")
    assert table.weights == {101: 0.0, 7: 2.0} and table.default == 1.5 and table.num_docs == 3
    (tmp_path / "bare.json").write_text(json.dumps({"7": 2}))
    assert load_idf(tmp_path / "bare.json").weights == {7: 2.0}


def test_idf_from_one_reference_is_refused_not_a_recall_of_0(tmp_path: Path) -> None:
    """``--idf references`` weighs a token by how few references hold it: with one reference each
    of its tokens weighs 0, and ``score`` printed ``R 0.000  F1 0.000`` (the package's recall is
    NaN there). Two different references are weighed."""
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "other.py").write_text("def add(x, y):\n    return x + y\n")
    (tmp_path / "cand.py").write_text(REF.replace("total", "s"))
    one = _run("score", "ref.py", "cand.py", "cand.py", "--no-daemon", "--idf", "references", cwd=tmp_path)
    assert one.returncode == 2 and one.stdout == "", (one.stdout, one.stderr)
    lines = one.stderr.strip().splitlines()
    assert len(lines) == 1 and "--idf references" in lines[0] and "--also-reference" in lines[0], lines
    two = _run("score", "ref.py", "cand.py", "--also-reference", "other.py", "--no-daemon", "--json",
               "--idf", "references", cwd=tmp_path)
    assert two.returncode == 0, two.stderr
    assert json.loads(two.stdout)["codebertscore"]["recall"] > 0.5


def test_grade_with_idf_from_one_reference_is_refused(tmp_path: Path) -> None:
    """A class graded against one reference with ``--idf references`` scored every recall 0 without a
    word; it is refused like ``score`` (exit 2, one line). Two references are weighed."""
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "a.py").write_text(REF.replace("total", "s"))
    rows = [{"id": "a", "candidate": REF.replace("total", "s"), "reference": REF, "language": "python"},
            {"id": "b", "candidate": "def add(x, y):\n    return x - y\n", "reference": REF, "language": "python"}]
    (tmp_path / "one.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    one = _run("grade", "--jsonl", "one.jsonl", "--no-daemon", "--idf", "references", "--json", "out.json",
               cwd=tmp_path)
    assert one.returncode == 2 and not (tmp_path / "out.json").exists(), (one.stdout, one.stderr)
    lines = [line for line in one.stderr.strip().splitlines() if "--idf references" in line]
    assert len(lines) == 1 and "Traceback" not in one.stderr, one.stderr
    rows[1]["reference"] = "def add(x, y):\n    return x + y\n"
    (tmp_path / "two.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    two = _run("grade", "--jsonl", "two.jsonl", "--no-daemon", "--idf", "references", "--json", "out.json",
               cwd=tmp_path)
    assert two.returncode == 0, two.stderr


EMPTY = {"empty.json": b"{}", "empty_idf.json": json.dumps({"idf": {}, "default": 0.0}).encode()}


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_load_idf_refuses_an_empty_table(tmp_path: Path, name: str) -> None:
    """A table with no token weights weighs every token by the default (0 for ``{}``): every
    CodeBERTScore came out 0 with exit 0. It is refused as not an IDF table, saying it is empty."""
    (tmp_path / name).write_bytes(EMPTY[name])
    with pytest.raises(ValueError, match=r"not an IDF file \(the table is empty"):
        load_idf(tmp_path / name)


@pytest.mark.parametrize("command", ["score", "grade"])
def test_an_empty_idf_file_is_one_line_and_exit_3(tmp_path: Path, command: str) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "cand.py").write_text(REF.replace("total", "s"))
    (tmp_path / "empty.json").write_bytes(b"{}")
    args = (["score", "ref.py", "cand.py", "--no-daemon", "--json"] if command == "score"
            else ["grade", "-r", "ref.py", "cand.py", "--no-cache", "-q"])
    result = _run(*args, "--idf", "empty.json", cwd=tmp_path)
    assert result.returncode == 3, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("refscore: IDF file empty.json: not an IDF file"), lines
    assert "empty" in lines[0].split("not an IDF file", 1)[1], lines
    assert result.stdout == ""
