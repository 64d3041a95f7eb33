"""Caps while reading, in every engine (issue 25, item 7).

128 MiB of blank lines in a 130 KB `.gz` took 82 s in memory and 114 s at 863 MB block by block
(a 3 MB `.gz` of 3 GiB of blank lines ran past 300 s at 2 GB); a 1.1 GiB single-line `.gz` was
read whole block by block; a 93 KB Parquet file with one 1 GB cell reached 6.3 GB RSS before the
20 MiB per-text limit applied. Each is now refused in one line (exit 3) within seconds, before
the memory is spent: a run of blank lines, a gzip ratio no JSONL has, and a Parquet column chunk
too large to read are caught while reading (or from the Parquet metadata).
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.grade import input_caps
from tests.support.cli import run_refscore as refscore
from tests.support.timing import hang_guard

REF = "def add(a, b):\n    return a + b\n"
GOOD = json.dumps({"id": "good", "candidate": REF, "reference": REF, "language": "python"}).encode() + b"\n"
ENGINES = {"in-memory": (), "block-wise": ("--block-lines", "64")}

pytestmark = pytest.mark.timeout(300)


def _blank_gz(path: Path, mib: int) -> None:
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(GOOD)
        for _ in range(mib):
            fh.write(b"\n" * (1 << 20))
        fh.write(GOOD)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_gzip_of_128_mib_of_blank_lines_is_refused_at_once(tmp_path: Path, engine: str) -> None:
    _blank_gz(tmp_path / "blank.jsonl.gz", 128)
    started = time.monotonic()
    result = refscore("grade", "--jsonl", "blank.jsonl.gz", "--metrics", "codebleu", "-q", *ENGINES[engine],
                      "-o", "out", cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert "a gzip bomb? refused" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert time.monotonic() - started < hang_guard(60)  # it was 82 s in memory, 114 s block by block (idle)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_run_of_blank_lines_is_refused_while_reading(tmp_path: Path, engine: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain file (no ratio to check): the run of blank lines itself is refused."""
    monkeypatch.setattr(input_caps, "MAX_BLANK_RUN", 5_000)
    path = tmp_path / "blank.jsonl"
    path.write_bytes(GOOD + b"\n" * 20_000 + GOOD)
    code = main(["grade", "--jsonl", str(path), "--metrics", "codebleu", "-q", *ENGINES[engine], "-o",
                 str(tmp_path / "out")])
    assert code == 3
    path.write_bytes(GOOD + b"\n" * 4_000 + GOOD)  # under the cap: graded
    assert main(["grade", "--jsonl", str(path), "--metrics", "codebleu", "-q", *ENGINES[engine], "-o",
                 str(tmp_path / "out")]) == 0


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_single_line_gzip_bomb_is_refused_in_every_engine(tmp_path: Path, engine: str,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(input_caps, "BOMB_MIN_BYTES", 4 << 20)
    path = tmp_path / "one.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(GOOD + b'{"id": "x", "candidate": "' + b"a" * (40 << 20) + b'"}\n' + GOOD)
    code = main(["grade", "--jsonl", str(path), "--metrics", "codebleu", "-q", *ENGINES[engine], "-o",
                 str(tmp_path / "out")])
    assert code == 3 and "a gzip bomb? refused" in capsys.readouterr().err


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_parquet_column_chunk_too_large_to_read_is_refused_from_its_metadata(
        tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    monkeypatch.setattr(input_caps, "MAX_PARQUET_CHUNK", 1 << 20)
    path = tmp_path / "cell.parquet"
    table = pa.table({"id": ["good", "big"], "candidate": [REF, "a" * (3 << 20)], "reference": [REF, REF],
                      "language": ["python", "python"]})
    pq.write_table(table, path, compression="zstd")
    code = main(["grade", "--jsonl", str(path), "--metrics", "codebleu", "-q", *ENGINES[engine], "-o",
                 str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 3 and "row group 0, column 'candidate': 3 MiB uncompressed" in err, err
