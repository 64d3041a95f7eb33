"""Block-wise grading without Ray: any block size gives the one-block run's reports, resume from
parts, and the pieces (blocks, parts, unique ids, streamed statistics, the summary page)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.grade.assemble import parquet_schema
from refscore.grade.blocks import items_of, read_block, scan_blocks
from refscore.grade.html_report import build_html
from refscore.grade.ids import IdNamer
from refscore.grade.blocks import load_jsonl
from refscore.grade.parts import PartStore
from refscore.grade.stream_stats import RowStats

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(300)


def _lines() -> list[str]:
    rows = []
    for language in ("go", "rust", "ruby"):
        for line in (ROOT / "tests" / "data" / "parity" / f"{language}.jsonl").read_text(encoding="utf-8").splitlines():
            pair = json.loads(line)
            rows.append(json.dumps({"id": pair["id"][:5], "candidate": pair["candidate"],
                                    "reference": pair["reference"], "language": language}))
    rows[3:3] = ["", "{broken", json.dumps({"candidate": "x", "reference": "y"})]
    return rows


@pytest.fixture(scope="module")
def jsonl(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("blocks") / "pairs.jsonl"
    path.write_text("\r\n".join(_lines()), encoding="utf-8")  # CRLF, no final line end
    return path


@pytest.fixture(scope="module")
def in_memory(jsonl, tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("memory")
    assert main(["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "-o", str(out), "-q", "--no-cache"]) == 0
    return json.loads((out / "grade.json").read_text(encoding="utf-8"))["submissions"]


def summary(rows: list[dict], per_language: bool = True) -> dict:
    """The statistics of ``rows``, computed here the plain way (the reports stream them), with
    each language's own."""
    out: dict = {"submissions": len(rows), "with_errors": sum(1 for r in rows if r["errors"]),
                 "handed_nothing_in": 0, "not_parsing": sum(1 for r in rows if r.get("parse_error")), "metrics": {}}
    columns = [c for c in parquet_schema().names if parquet_schema().field(c).type == "double"]
    for column in columns:
        values = [r[column] for r in rows if isinstance(r.get(column), float)]
        if values:
            out["metrics"][column] = {"n": len(values), "mean": sum(values) / len(values), "min": min(values),
                                      "max": max(values)}
    languages = sorted({r["language"] for r in rows if r.get("language")})
    if per_language and languages:
        out["by_language"] = {lang: summary([r for r in rows if r.get("language") == lang], False)
                              for lang in languages}
    return out


def unique_ids(ids: list[str]) -> list[str]:
    """Repeats suffixed ``#2``, ``#3``... skipping names already taken, the plain way."""
    seen: dict[str, int] = {}
    taken = set(ids)
    out = []
    for item_id in ids:
        count = seen.get(item_id, 0) + 1
        seen[item_id] = count
        name = item_id
        if count > 1:
            name = f"{item_id}#{count}"
            while name in taken:
                count += 1
                name = f"{item_id}#{count}"
            seen[item_id] = count
            taken.add(name)
        out.append(name)
    return out


def _jsonl_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _without(rows: list[dict], key: str = "cached") -> list[dict]:
    return [{k: v for k, v in row.items() if k != key} for row in rows]


def test_streaming_engine_writes_the_in_memory_rows(jsonl, in_memory, tmp_path):
    assert main(["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "--block-lines", "7",
                 "-o", str(tmp_path), "-q"]) == 0
    rows = _jsonl_rows(tmp_path / "grade.jsonl")
    assert rows == json.loads((tmp_path / "grade.json").read_text(encoding="utf-8"))["submissions"]
    assert _without(rows) == _without(in_memory)  # exact: same requests, same Scorer calls
    assert len({r["id"] for r in rows}) == len(rows) and any("#2" in r["id"] for r in rows)
    report = json.loads((tmp_path / "grade.json").read_text(encoding="utf-8"))
    assert report["summary"] == summary(in_memory)
    csv_lines = (tmp_path / "grade.csv").read_bytes().decode("utf-8").split("\r\n")
    assert csv_lines[0].startswith("id,problem,language") and len([c for c in csv_lines if c]) == len(rows) + 1


def test_rerun_scores_only_what_no_part_holds(jsonl, in_memory, tmp_path, capsys):
    args = ["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "--block-lines", "9", "-o", str(tmp_path)]
    assert main(args) == 0
    parts = sorted((tmp_path / "grade.parts" / "parts").glob("b*.jsonl"))
    lost = parts[1].read_text(encoding="utf-8").count("\n") + parts[4].read_text(encoding="utf-8").count("\n")
    parts[1].unlink()
    parts[4].unlink()
    capsys.readouterr()
    assert main(args) == 0
    assert f"; {len(in_memory) - lost} from earlier runs" in capsys.readouterr().out
    settings = json.loads((tmp_path / "grade.json").read_text(encoding="utf-8"))["settings"]
    assert settings["scored_now"] == lost
    rows = _jsonl_rows(tmp_path / "grade.jsonl")
    assert _without(rows) == _without(in_memory)
    assert 0 < sum(r["cached"] for r in rows) <= len(rows) - lost


def test_large_runs_get_the_summary_page_and_the_same_files(jsonl, in_memory, tmp_path, monkeypatch):
    from refscore.grade import steps

    small = tmp_path / "small"
    assert main(["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "-o", str(small), "-q", "--parquet"]) == 0
    html = (small / "grade.html").read_text(encoding="utf-8")
    assert 'id="results"' in html and "<details" in html and 'id="lowest"' not in html
    monkeypatch.setattr(steps, "DETAIL_LIMIT", 10)
    large = tmp_path / "large"
    assert main(["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "-o", str(large), "-q", "--parquet"]) == 0
    assert sorted(p.name for p in large.iterdir()) == sorted(p.name for p in small.iterdir())
    assert (large / "grade.jsonl").exists() and (large / "grade.parquet").exists()
    assert (large / "grade.csv").read_bytes() == (small / "grade.csv").read_bytes()
    html = (large / "grade.html").read_text(encoding="utf-8")
    assert 'id="summary"' in html and 'id="lowest"' in html and 'id="results"' not in html
    # the rows that could not be scored are named, not only counted: a teacher must find them
    errors = html[html.index('id="errors"'):]
    assert "pairs.jsonl:5" in errors and "not valid JSON" in errors and "pairs.jsonl:6" in errors
    assert main(["grade", "--jsonl", str(jsonl), "--block-lines", "0"]) == 2


def test_blocks_read_back_the_lines_they_scanned(tmp_path):
    long_line = json.dumps({"id": "long", "candidate": "x" * 100, "reference": "y"})
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\r\n".join([b'{"id": "a"}', b"", long_line.encode(), b"   ", "é".encode(), b"last"]))
    scanned = list(scan_blocks([path], 2, "tag"))
    assert [s.lines for s, _ in scanned] == [2, 2, 2] and [s.items for s, _ in scanned] == [1, 1, 2]
    for spec, lines in scanned:
        assert read_block(spec) == lines
    items = [item for spec, lines in scanned for _, item in items_of(spec.name, spec.first_line, lines, None)]
    expected = load_jsonl(path).items
    assert [(i.id, i.error, i.candidate) for i in items] == [(i.id, i.error, i.candidate) for i in expected]
    again = [s.key for s, _ in scan_blocks([path], 2, "tag")]
    assert again == [s.key for s, _ in scanned] and again != [s.key for s, _ in scan_blocks([path], 2, "other")]


def test_parts_union_without_duplicates(tmp_path):
    store = PartStore(tmp_path)
    row = {"id": "x", "errors": []}
    store.write(3, "ab" * 20, [(0, {**row, "n": 0}), (1, {**row, "n": 1})])
    store.write(3, "ab" * 20, [(1, {**row, "n": 1}), (2, {**row, "n": 2})])  # a retried, overlapping piece
    (tmp_path / ".b00000003-x.tmp").write_text("torn", encoding="utf-8")  # an unfinished write
    assert sorted(store.rows(3, "ab" * 20)) == [0, 1, 2]
    assert store.done_offsets(3, "ab" * 20, 3) is None and store.done_offsets(3, "ab" * 20, 4) == {0, 1, 2}
    assert PartStore(tmp_path).rows(3, "cd" * 20) == {}


def test_id_namer_names_as_unique_ids_does():
    rng = random.Random(4)
    for _ in range(50):
        ids = [rng.choice(["a", "b", "a#2", "c#3", "c", "d"]) for _ in range(rng.randint(0, 30))]
        namer = IdNamer()
        for i in ids:
            namer.add(i)
        namer.freeze()
        assert [namer.name(i) for i in ids] == unique_ids(ids)


def test_summary_page_stays_small_and_statistics_match(tmp_path):
    rng = random.Random(1)
    stats, rows = RowStats("codebleu", keep=10), []
    for n in range(30_000):
        value = rng.random()
        row = {"id": f"item-{n}", "problem": None, "language": "go", "source": "f:1", "codebleu": value,
               "ngram_match": value / 2, "errors": [] if n % 97 else ["codebleu: failed"]}
        stats.add(row)
        rows.append(row)
    for column, expected in summary(rows)["metrics"].items():
        got = stats.summary()["metrics"][column]
        assert got["n"] == expected["n"] and got["min"] == expected["min"] and got["max"] == expected["max"]
        assert got["mean"] == pytest.approx(expected["mean"], abs=1e-12)
    assert [r["id"] for r in stats.lowest()] == [r["id"] for r in sorted(rows, key=lambda r: r["codebleu"])[:10]]
    assert [r["id"] for r in stats.highest()][0] == max(rows, key=lambda r: r["codebleu"])["id"]
    html = build_html(stats, {"metrics": ["codebleu"]}, "t", ["grade.parquet"])
    # statistics (header + 1), lowest and highest (header + 10 each), the first 10 error rows (+ header)
    assert len(html) < 100_000 and html.count("<tr") == 2 + 1 + 3 * 11
    failed = [r["id"] for r in rows if r["errors"]]
    errors = html[html.index('id="errors"'):]
    assert all(f">{i}<" in errors for i in failed[:10]) and f">{failed[10]}<" not in errors
    assert f"{len(failed):,} submissions with errors" in html and f"{len(failed) - 10:,} more" in errors


def test_parquet_rows_only_when_asked(jsonl, tmp_path):
    out = tmp_path / "plain"
    assert main(["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "-o", str(out), "-q", "--no-cache"]) == 0
    assert (out / "grade.jsonl").exists() and not (out / "grade.parquet").exists()
    assert main(["grade", "--jsonl", str(jsonl), "--metrics", "codebleu", "--parquet", "-q"]) == 2  # no report file


def test_parquet_schema_types_every_report_column():
    schema = parquet_schema()
    assert str(schema.field("codebleu").type) == "double" and str(schema.field("errors").type) == "list<item: string>"


def test_hostile_inputs_are_one_line(tmp_path, capsys):
    (tmp_path / "empty.jsonl").write_bytes(b"\n\n")
    (tmp_path / "bad.jsonl.gz").write_bytes(b"not gzip")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    for name in ("empty.jsonl", "bad.jsonl.gz", "bad.parquet", "missing.jsonl"):
        for extra in ([], ["--block-lines", "4"]):
            capsys.readouterr()
            assert main(["grade", "--jsonl", str(tmp_path / name), "--metrics", "codebleu", "-q", *extra]) == 3
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and "Traceback" not in err[0], (name, err)


def test_a_field_name_with_a_line_break_gives_the_same_csv_block_by_block(tmp_path: Path) -> None:
    """The CSV of every block after the first is written without its header: a header cell that
    holds a line break (a passed-through field's name) must not leave half the header behind."""
    data = tmp_path / "crlf.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "candidate": f"x = {i}", "reference": "x = 2",
                                        "language": "python", "a\r\nb": i}) + "\n" for i in range(3)))
    texts = []
    for block_lines in ("1", "1024"):
        out = tmp_path / f"out{block_lines}"
        assert main(["grade", "--jsonl", str(data), "--metrics", "codebleu", "--block-lines", block_lines,
                     "--no-cache", "-q", "-o", str(out)]) == 0
        texts.append((out / "grade.csv").read_bytes())
    assert texts[0] == texts[1]
