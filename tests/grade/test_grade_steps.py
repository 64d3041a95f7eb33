"""``grade.steps``, one step at a time: ``read`` keeps ``--jsonl -`` where the engine's workers
read blocks (Ray: ``WORK/input``, on storage every node sees; else the temporary folder)."""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from refscore.cli import build_parser
from refscore.commands.grade import job_from_args
from refscore.grade.claim import Place
from refscore.grade.steps import read

LINE = b'{"id": "a", "candidate": "x = 1\\n", "reference": "x = 2\\n", "language": "python"}\n'


@pytest.mark.parametrize("engine", ["local", "ray"])
def test_standard_input_is_kept_where_the_engine_reads_it(engine: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", SimpleNamespace(buffer=io.BytesIO(LINE), isatty=lambda: False))
    job = job_from_args(build_parser().parse_args(["grade", "--jsonl", "-", "--metrics", "codebleu",
                                                   "--engine", engine, "-o", str(tmp_path / "out")]))
    work = tmp_path / "out" / "grade.parts"
    place = Place({}, {}, [], work, False)
    got = read(job, place, say=False)
    assert got.jsonl == [place.stream / "-"] and got.jsonl[0].read_bytes() == LINE
    expected = work / "input" if engine == "ray" else Path(tempfile.gettempdir())
    assert place.stream.parent == expected
    if engine == "local":
        assert not work.exists()  # nothing made in the parts folder for an in-process run
    shutil.rmtree(place.stream)
