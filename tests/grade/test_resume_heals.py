"""Damaged resume state heals (issue 25, item 9).

A truncated part file made every rerun exit 2 ("rerun the same command to finish") forever, a
part of random bytes was exit 5 forever, and an edited part line was trusted (a forged CodeBLEU
of 0.999 came back marked `cached`). Each part line now carries a SHA-256 over the block's
content and settings, the offset and the result: a line that fails it is dropped with a note and
its item scored again. Real CLI runs, both engines.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

import pytest

from tests.support.cli import run_refscore as refscore

REF = "def add(a, b):\n    total = a + b\n    return total\n"
CANDS = ["def add(x, y):\n    s = x + y\n    return s\n", "def add(a, b):\n    return b + a\n",
         "def add(a, b):\n    total = a - b\n    return total\n", REF]

pytestmark = pytest.mark.timeout(300)

ENGINES = {"in-memory": ("-r", "ref.py", "subs"), "block-wise": ("--jsonl", "runs.jsonl", "--block-lines", "2")}


def _inputs(root: Path) -> None:
    (root / "ref.py").write_text(REF)
    (root / "subs").mkdir()
    for number, text in enumerate(CANDS):
        (root / "subs" / f"s{number}.py").write_text(text)
    (root / "runs.jsonl").write_text("".join(json.dumps({"id": f"s{n}", "candidate": t, "reference": REF,
                                                          "language": "python"}) + "\n" for n, t in enumerate(CANDS)))


def _truncate(part: Path) -> None:
    os.truncate(part, part.stat().st_size // 2)


def _random(part: Path) -> None:
    part.write_bytes(os.urandom(4000))


def _forge(part: Path) -> None:
    lines = part.read_text().splitlines()
    entry = json.loads(lines[0])
    entry["row"]["codebleu_native"] = 0.999
    lines[0] = json.dumps(entry)
    part.write_text("\n".join(lines) + "\n")


def _unchecked(part: Path) -> None:  # a line as an older version wrote it: no check
    lines = [json.loads(line) for line in part.read_text().splitlines()]
    part.write_text("".join(json.dumps({k: v for k, v in e.items() if k != "check"}) + "\n" for e in lines))


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("damage", [_truncate, _random, _forge, _unchecked], ids=lambda f: f.__name__[1:])
def test_a_damaged_part_is_dropped_with_a_note_and_scored_again(tmp_path: Path, engine: str,
                                                                damage: Callable[[Path], None]) -> None:
    _inputs(tmp_path)
    args = ("grade", *ENGINES[engine], "--metrics", "codebleu", "-q", "-o", "out")
    first = refscore(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    clean = {r["id"]: r["codebleu_native"] for r in json.loads((tmp_path / "out/grade.json").read_text())["submissions"]}
    parts = sorted((tmp_path / "out/grade.parts/parts").glob("*.jsonl"))
    assert parts
    damage(parts[0])
    for run in range(2):  # the first rerun heals, the second finds nothing to say
        again = refscore(*args, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert "Traceback" not in again.stderr and "internal error" not in again.stderr
        assert ("dropped; scoring them again" in again.stderr) == (run == 0), again.stderr
        rows = json.loads((tmp_path / "out/grade.json").read_text())["submissions"]
        assert {r["id"]: r["codebleu_native"] for r in rows} == clean
        assert 0.999 not in [r["codebleu_native"] for r in rows]
        if run == 0:
            assert not all(r["cached"] for r in rows)  # what was damaged is not called cached
