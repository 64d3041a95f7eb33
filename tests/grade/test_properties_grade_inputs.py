"""Property-based: hostile JSONL and Parquet rows and file names, through both engines (issue 25).

Hypothesis mixes good rows (real code with random comments, ids of any text) with bad ones (bytes
that are not UTF-8, JSON that is no object, nesting too deep to read, wrong types, missing fields,
lone surrogates, NUL, empty code, unknown languages) and hostile file names in a class folder.
Every run must exit 0, score every good row, give every bad row an error row, and give the same
rows in memory and block by block. Runs in this process (`refscore.cli.main`), a few examples each.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from refscore.cli import main

REF = "def add(a, b):\n    total = a + b\n    return total\n"
BASES = ["def add(x, y):\n    s = x + y\n    return s\n", "def add(a, b):\n    return b + a\n", REF]
EXAMPLES = int(os.environ.get("REFSCORE_PROPERTY_EXAMPLES", "8"))
_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
ENGINES = {"in-memory": (), "block-wise": ("--block-lines", "3")}

pytestmark = pytest.mark.timeout(600)

#: Text a comment or an id may hold: anything but NUL and lone surrogates (those are bad rows).
any_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)


@st.composite
def good_row(draw: Any) -> bytes:
    code = draw(st.sampled_from(BASES)) + "# " + draw(any_text).replace("\n", " ").replace("\r", " ") + "\n"
    row: dict[str, Any] = {"candidate": code, "reference": draw(st.sampled_from([REF, [REF, BASES[0]]])),
                           "language": "python"}
    if draw(st.booleans()):
        row["id"] = draw(st.one_of(any_text, st.integers(), st.lists(st.integers(), max_size=3)))
    if draw(st.booleans()):
        row["context"] = draw(any_text)
    return json.dumps(row, ensure_ascii=draw(st.booleans())).encode("utf-8")


def _json(row: dict[str, Any]) -> bytes:
    return json.dumps(row).encode("utf-8")


bad_row = st.one_of(
    st.binary(min_size=1, max_size=30).filter(lambda b: b"\n" not in b and b"\r" not in b and b.strip()
                                              and _not_utf8_or_not_json(b)),
    st.sampled_from([b"[1, 2]", b"42", b'"text"', b"null", b"{", b'{"candidate": }',
                     b'{"candidate": "' + b"[" * 3000 + b'"}', b"[" * 3000 + b"]" * 3000,
                     b'{"candidate": "x = \\"\\udc00\\"\\n", "reference": "x = 1\\n", "language": "python"}',
                     b'{"candidate": "x = 1\\n", "reference": "\\ud800", "language": "python"}',
                     b'{"candidate": "x = 1\\n", "reference": "x\\n", "context": "\\udfff", "language": "python"}',
                     _json({"candidate": "a\x00b", "reference": REF, "language": "python"}),
                     _json({"candidate": "   \n\t", "reference": REF, "language": "python"}),
                     _json({"candidate": REF, "reference": REF, "language": "cobol-85"}),
                     _json({"candidate": REF, "reference": []}), _json({"candidate": 5, "reference": REF}),
                     _json({"reference": REF, "language": "python"}), _json({"hyp": REF, "ref": REF})]),
)


def _not_utf8_or_not_json(data: bytes) -> bool:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return True
    return not isinstance(value, dict)


def _grade(tmp: Path, name: str, inputs: list[str], *extra: str) -> dict[str, dict[str, Any]]:
    """source -> row for one run (exit 0 asserted)."""
    out = tmp / name
    assert main(["grade", *inputs, "--metrics", "codebleu", "-q", "--no-cache", *extra, "--json",
                 str(out / "r.json")]) == 0
    rows = json.loads((out / "r.json").read_text(encoding="utf-8"))["submissions"]
    return {row["source"]: row for row in rows}


def _same_both_ways(runs: dict[str, dict[str, dict[str, Any]]]) -> None:
    strip = [{s: {k: v for k, v in r.items() if k != "cached"} for s, r in rows.items()} for rows in runs.values()]
    assert strip[0] == strip[1]


@_SETTINGS
@given(lines=st.lists(st.tuples(st.booleans(), st.data()), min_size=1, max_size=9), first=good_row())
def test_hostile_jsonl_rows_in_both_engines(tmp_path_factory: pytest.TempPathFactory, lines: list, first: bytes) -> None:
    tmp = tmp_path_factory.mktemp("jsonl")
    rows = [(True, first)] + [(good, data.draw(good_row() if good else bad_row)) for good, data in lines]
    (tmp / "runs.jsonl").write_bytes(b"\n".join(line for _, line in rows) + b"\n")
    runs = {name: _grade(tmp, name, ["--jsonl", str(tmp / "runs.jsonl")], *extra) for name, extra in ENGINES.items()}
    for result in runs.values():
        assert len(result) == len(rows)
        for number, (good, line) in enumerate(rows, 1):
            row = result[f"runs.jsonl:{number}"]
            if good:
                assert row["codebleu_native"] is not None and not row["errors"], (line, row)
            else:
                assert row["codebleu_native"] is None and row["errors"], (line, row)
    _same_both_ways(runs)


@_SETTINGS
@given(texts=st.lists(any_text, min_size=1, max_size=6), bad=st.lists(st.sampled_from(["", "  \n", "a\x00b"]),
                                                                       max_size=3))
def test_hostile_parquet_rows_in_both_engines(tmp_path_factory: pytest.TempPathFactory, texts: list[str],
                                              bad: list[str]) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    tmp = tmp_path_factory.mktemp("parquet")
    candidates = [BASES[i % len(BASES)] + "# " + t.replace("\n", " ") + "\n" for i, t in enumerate(texts)] + bad
    ids = [t or None for t in texts] + [f"bad{i}" for i in range(len(bad))]
    pq.write_table(pa.table({"id": ids, "candidate": candidates, "reference": [REF] * len(candidates),
                             "language": ["python"] * len(candidates)}), tmp / "rows.parquet")
    runs = {name: _grade(tmp, name, ["--jsonl", str(tmp / "rows.parquet")], *extra) for name, extra in ENGINES.items()}
    for result in runs.values():
        for number in range(1, len(candidates) + 1):
            row = result[f"rows.parquet:{number}"]
            assert (row["codebleu_native"] is not None) == (number <= len(texts)), row
    _same_both_ways(runs)


file_name = st.binary(min_size=1, max_size=12).filter(
    lambda b: b"/" not in b and b"\x00" not in b and b not in (b".", b"..") and not b.startswith(b"."))


@_SETTINGS
@given(names=st.lists(file_name, min_size=1, max_size=5, unique=True))
def test_hostile_file_names_in_a_class_folder(tmp_path_factory: pytest.TempPathFactory, names: list[bytes]) -> None:
    tmp = tmp_path_factory.mktemp("names")
    (tmp / "ref.py").write_text(REF)
    folder = os.path.join(os.fsencode(tmp), b"class")
    os.mkdir(folder)
    for number, name in enumerate(names):
        with open(os.path.join(folder, name + b".py"), "w", encoding="utf-8") as fh:
            fh.write(BASES[number % len(BASES)])
    runs = {name: _grade(tmp, name, ["-r", str(tmp / "ref.py"), str(tmp / "class")], *extra)
            for name, extra in {"in-memory": (), "block-wise": ("--block-lines", "1")}.items()}
    for result in runs.values():
        assert len(result) == len(names)
        assert all(row["codebleu_native"] is not None and not row["errors"] for row in result.values()), result
    _same_both_ways(runs)
