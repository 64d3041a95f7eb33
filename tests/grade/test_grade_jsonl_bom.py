"""A JSONL file that starts with a UTF-8 byte order mark (Windows PowerShell 5 `Out-File
-Encoding utf8`, Notepad, pandas with `utf-8-sig`) is read like one without: its first line used
to be an error row (`not valid JSON (Unexpected UTF-8 BOM)`). Mapping files already allowed it.
In memory, block by block and gzipped."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from refscore.cli import main

REF = "def add(a, b):\n    total = a + b\n    return total\n"
CAND = "def add(x, y):\n    s = x + y\n    return s\n"
BOM = b"\xef\xbb\xbf"


def _lines() -> bytes:
    rows = [{"id": f"c{i}", "candidate": CAND, "reference": REF, "language": "python"} for i in range(3)]
    return "\r\n".join(json.dumps(r) for r in rows).encode("utf-8") + b"\r\n"


@pytest.mark.parametrize("name", ["runs.jsonl", "runs.jsonl.gz"])
@pytest.mark.parametrize("blocks", [(), ("--block-lines", "2")], ids=["in-memory", "block-wise"])
def test_a_byte_order_mark_does_not_cost_the_first_line(tmp_path: Path, name: str, blocks: tuple[str, ...]) -> None:
    data = BOM + _lines()
    (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    out = tmp_path / "out.json"
    assert main(["grade", "--jsonl", str(tmp_path / name), *blocks, "--metrics", "codebleu", "-q", "--no-cache",
                 "--json", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["submissions"]
    assert [r["id"] for r in rows] == ["c0", "c1", "c2"]
    assert all(not r["errors"] and r["codebleu_native"] == rows[0]["codebleu_native"] for r in rows)


def test_a_byte_order_mark_inside_the_file_is_still_an_error(tmp_path: Path) -> None:
    """Only the file's first bytes may be a byte order mark; on a later line it is not JSON."""
    lines = _lines().split(b"\r\n")
    (tmp_path / "runs.jsonl").write_bytes(b"\n".join([lines[0], BOM + lines[1], lines[2]]) + b"\n")
    out = tmp_path / "out.json"
    assert main(["grade", "--jsonl", str(tmp_path / "runs.jsonl"), "--metrics", "codebleu", "-q", "--no-cache",
                 "--json", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["submissions"]
    assert [bool(r["errors"]) for r in rows] == [False, True, False]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
@pytest.mark.parametrize("blocks", [(), ("--block-lines", "2")], ids=["in-memory", "block-wise"])
def test_a_utf16_file_is_one_line_saying_so(tmp_path: Path, capsys, encoding: str, blocks: tuple[str, ...]) -> None:
    """Windows PowerShell 5's ``>`` writes UTF-16 with a byte order mark: every line was an error
    row, the first 'not UTF-8' and the rest 'not valid JSON (Expecting value)'; it is one line
    naming the encoding (exit 3)."""
    text = _lines().decode("utf-8")
    data = text.encode("utf-16") if encoding == "utf-16" else b"\xfe\xff" + text.encode("utf-16-be")
    (tmp_path / "runs.jsonl").write_bytes(data)
    code = main(["grade", "--jsonl", str(tmp_path / "runs.jsonl"), *blocks, "--metrics", "codebleu", "-q",
                 "--no-cache", "--json", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert code == 3 and "UTF-16" in err and "UTF-8" in err and "Expecting value" not in err, err


def test_a_line_cut_short_says_where_its_json_ends(tmp_path: Path) -> None:
    """A truncated last line (a download or a writer cut short) was 'not valid JSON (Unterminated
    string starting at)': the message stopped before saying where. It names the character."""
    (tmp_path / "runs.jsonl").write_bytes(_lines() + b'{"id": "cut", "candidate": "def f(')
    out = tmp_path / "out.json"
    assert main(["grade", "--jsonl", str(tmp_path / "runs.jsonl"), "--metrics", "codebleu", "-q", "--no-cache",
                 "--json", str(out)]) == 0
    last = json.loads(out.read_text(encoding="utf-8"))["submissions"][-1]
    assert last["errors"] == ["runs.jsonl:4: not valid JSON (Unterminated string starting at character 28)"]
