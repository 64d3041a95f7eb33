"""A researcher's JSONL through ``refscore grade`` (issue 28, items 7-9): other field names,
extra fields passed through with their JSON types, integer ids, a run with nothing scorable, the
columns of metrics asked for only, and CSV numbers as the JSON has them."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.grade.records import parse_fields
from refscore.errors import UsageError

pytestmark = pytest.mark.timeout(300)
#: the Parquet rows file is written when asked for (and pyarrow is there)
PARQUET = ["--parquet"] if importlib.util.find_spec("pyarrow") else []
REF = "def add(a, b):\n    return a + b\n"
CANDIDATES = ["def add(x, y):\n    return x + y\n", "def add(a, b):\n    return a - b\n",
              "def add(a, b):\n    total = a\n    total += b\n    return total\n"]


def _humaneval_like(path: Path) -> Path:
    rows = [{"id": 10 + i, "task_id": f"HumanEval/{i}", "hyp": c, "ref": REF, "language": "python",
             "passed": i != 1, "meta": {"sample": i, "tags": ["a"]}, "errors": i}
            for i, c in enumerate(CANDIDATES)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_missing_fields_are_named_and_a_run_with_nothing_scored_fails(tmp_path, capsys):
    data = _humaneval_like(tmp_path / "he.jsonl")
    code = main(["grade", "--jsonl", str(data), "--metrics", "codebleu", "-o", str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "no submission could be scored" in err and "Traceback" not in err
    rows = json.loads((tmp_path / "out" / "grade.json").read_text(encoding="utf-8"))["submissions"]
    first = rows[0]["errors"][0]
    assert "no 'candidate' field" in first and "hyp, ref" in first and "--fields candidate=" in first


def test_fields_rename_and_extras_pass_through_with_their_types(tmp_path, capsys):
    data = _humaneval_like(tmp_path / "he.jsonl")
    reports = {}
    for name, extra in (("memory", []), ("blocks", ["--block-lines", "1"])):
        out = tmp_path / name
        code = main(["grade", "--jsonl", str(data), "--fields", "candidate=hyp,reference=ref", "--metrics",
                     "codebleu", "-o", str(out), "-q", "--no-cache", *PARQUET, *extra])
        assert code == 0, capsys.readouterr().err
        reports[name] = out
    rows = json.loads((reports["memory"] / "grade.json").read_text(encoding="utf-8"))["submissions"]
    assert [r["id"] for r in rows] == [10, 11, 12]  # integer ids stay integers
    assert [r["task_id"] for r in rows] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    assert [r["passed"] for r in rows] == [True, False, True]
    assert rows[0]["meta"] == {"sample": 0, "tags": ["a"]}
    assert [r["input_errors"] for r in rows] == [0, 1, 2] and all(r["errors"] == [] for r in rows)
    assert "hyp" not in rows[0] and "ref" not in rows[0]
    assert not {"chrf", "tsed", "crystalbleu", "chrf_signature"} & set(rows[0])  # not asked for
    lines = [json.loads(x) for x in (reports["memory"] / "grade.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines == rows
    blocks = json.loads((reports["blocks"] / "grade.json").read_text(encoding="utf-8"))["submissions"]
    assert [{k: v for k, v in r.items() if k != "cached"} for r in blocks] == \
        [{k: v for k, v in r.items() if k != "cached"} for r in rows]

    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(reports["memory"] / "grade.parquet")
    types = {f.name: str(f.type) for f in table.schema}
    assert types["id"] == "int64" and types["passed"] == "bool" and types["input_errors"] == "int64"
    assert types["task_id"] == "string" and types["meta"] == "string"  # nested: its JSON text
    assert table.column("passed").to_pylist() == [True, False, True]
    assert json.loads(table.column("meta").to_pylist()[2]) == {"sample": 2, "tags": ["a"]}
    assert "chrf" not in types

    with (reports["memory"] / "grade.csv").open(encoding="utf-8", newline="") as fh:
        table_rows = list(csv.DictReader(fh))
    assert "task_id" in table_rows[0] and "tsed" not in table_rows[0]
    for got, want in zip(table_rows, rows):  # not rounded: the JSON's number
        assert float(got["codebleu_native"]) == want["codebleu_native"] and got["id"] == str(want["id"])
        assert json.loads(got["meta"]) == want["meta"]


def test_asked_for_text_metrics_get_their_columns(tmp_path, capsys):
    data = _humaneval_like(tmp_path / "he.jsonl")
    out = tmp_path / "out"
    assert main(["grade", "--jsonl", str(data), "--fields", "candidate=hyp,reference=ref", "--metrics",
                 "codebleu,chrf", "-o", str(out), "-q", "--no-cache"]) == 0, capsys.readouterr().err
    row = json.loads((out / "grade.json").read_text(encoding="utf-8"))["submissions"][0]
    assert isinstance(row["chrf"], float) and row["chrf_signature"] and "tsed" not in row


def test_mixed_ids_are_strings_in_parquet(tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    data = tmp_path / "mixed.jsonl"
    data.write_text(json.dumps({"id": 7, "candidate": CANDIDATES[0], "reference": REF, "language": "python"}) + "\n"
                    + json.dumps({"id": "x", "candidate": CANDIDATES[1], "reference": REF, "language": "python"})
                    + "\n" + json.dumps({"id": 7, "candidate": CANDIDATES[2], "reference": REF,
                                         "language": "python"}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["grade", "--jsonl", str(data), "--metrics", "codebleu", "-o", str(out), "-q", "--no-cache",
                 "--parquet"]) == 0
    rows = json.loads((out / "grade.json").read_text(encoding="utf-8"))["submissions"]
    assert [r["id"] for r in rows] == [7, "x", "7#2"]
    assert pq.read_table(out / "grade.parquet").column("id").to_pylist() == ["7", "x", "7#2"]


@pytest.mark.parametrize("text, needle", [("candidate", "FIELD=NAME"), ("answer=hyp", "not a field"),
                                          ("candidate=a,candidate=b", "twice")])
def test_bad_fields_are_usage_errors(text, needle):
    with pytest.raises(UsageError, match=needle):
        parse_fields(text)
    assert parse_fields("candidate=hyp, references=ref") == (("candidate", "hyp"), ("reference", "ref"))


def test_an_empty_reference_is_named_by_its_line_and_warned_in_its_row(tmp_path, capsys):
    """A JSONL row whose reference is empty scores 0: the note names the line (not a bare
    "reference 1") and the row's warnings say why its score is 0."""
    rows = [{"id": "ok", "candidate": CANDIDATES[0], "reference": REF},
            {"id": "blank", "candidate": CANDIDATES[0], "reference": "  \n"},
            {"id": "alt", "candidate": CANDIDATES[0], "reference": ["", REF]}]
    data = tmp_path / "e.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code = main(["grade", "--jsonl", str(data), "--lang", "python", "--metrics", "codebleu",
                 "-o", str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "reference reference" not in err
    assert "e.jsonl:2" in err and "e.jsonl:3" in err and "e.jsonl:1" not in err
    got = {r["id"]: r for r in json.loads((tmp_path / "out" / "grade.json").read_text())["submissions"]}
    assert got["blank"]["codebleu_native"] == 0.0
    assert any("reference is empty" in w for w in got["blank"]["warnings"])
    assert not any("empty" in w for w in got["ok"]["warnings"] + got["alt"]["warnings"])


def test_a_row_with_both_reference_and_references_is_an_error_whatever_the_key_order(tmp_path):
    """``reference`` and ``references`` are one field: a row giving both is ambiguous, so it is
    an error row naming both, rather than whichever key came first being scored."""
    both = [{"id": "ab", "candidate": CANDIDATES[0], "reference": REF, "references": [CANDIDATES[1]]},
            {"id": "ba", "candidate": CANDIDATES[0], "references": [CANDIDATES[1]], "reference": REF}]
    data = tmp_path / "both.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in both), encoding="utf-8")
    code = main(["grade", "--jsonl", str(data), "--lang", "python", "--metrics", "codebleu",
                 "-o", str(tmp_path / "out"), "-q"])
    assert code == 3
    rows = json.loads((tmp_path / "out" / "grade.json").read_text())["submissions"]
    for row in rows:
        assert row["codebleu_native"] is None
        assert "both 'reference' and 'references'" in row["errors"][0]
    assert [r["id"] for r in rows] == ["ab", "ba"]


def test_a_field_named_like_a_renamed_one_keeps_its_own_column(tmp_path):
    """``errors`` is written as ``input_errors``: a row that also has an ``input_errors`` field
    keeps both values, each under one column name whatever other fields its row has."""
    rows = [{"id": "both", "candidate": CANDIDATES[0], "reference": REF, "errors": 7, "input_errors": 5},
            {"id": "one", "candidate": CANDIDATES[0], "reference": REF, "errors": 8},
            {"id": "other", "candidate": CANDIDATES[0], "reference": REF, "input_errors": 6, "input_task": 1}]
    data = tmp_path / "clash.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["grade", "--jsonl", str(data), "--lang", "python", "--metrics", "codebleu", "-o", str(out),
                 "-q"]) == 0
    got = json.loads((out / "grade.json").read_text())["submissions"]
    assert [r.get("input_errors") for r in got] == [7, 8, None]
    assert [r.get("input_input_errors") for r in got] == [5, None, 6]
    assert got[2]["input_task"] == 1


def test_nan_and_infinity_in_a_passed_through_field_are_null_not_an_internal_error(tmp_path):
    """Python's ``json.dumps`` writes ``NaN`` and ``Infinity`` (JSON has neither), pandas' NaN
    reaches Parquet: such a field is passed through as null, the row is scored, every report is
    written (it was 'internal error: ValueError: Out of range float values', exit 5, no report)."""
    line = (f'{{"id": "n", "candidate": {json.dumps(CANDIDATES[0])}, "reference": {json.dumps(REF)}, '
            '"score": NaN, "hi": Infinity, "lo": -Infinity}\n')
    data = tmp_path / "nan.jsonl"
    data.write_text(line + json.dumps({"id": "ok", "candidate": CANDIDATES[1], "reference": REF, "score": 0.5})
                    + "\n", encoding="utf-8")
    out = tmp_path / "out"
    for extra in ([], ["--block-lines", "1"]):
        code = main(["grade", "--jsonl", str(data), "--lang", "python", "--metrics", "codebleu", "-o", str(out),
                     "-q", "--no-cache", *PARQUET, *extra])
        assert code == 0
        rows = json.loads((out / "grade.json").read_text())["submissions"]
        assert [r["score"] for r in rows] == [None, 0.5] and rows[0]["hi"] is None and rows[0]["lo"] is None
        assert rows[0]["codebleu_native"] is not None and rows[0]["errors"] == []
        assert (out / "grade.csv").exists() and (out / "grade.html").exists()


def test_integers_beyond_int64_are_their_json_text_in_parquet(tmp_path):
    """Parquet's int64 cannot hold 2**64: a field or id with such a number was 'internal error:
    OverflowError', exit 5, no report; it is the column's JSON text, as mixed values are."""
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [{"id": 2 ** 70, "candidate": CANDIDATES[0], "reference": REF, "big": 2 ** 64, "small": 1},
            {"id": 7, "candidate": CANDIDATES[1], "reference": REF, "big": 3, "small": -(2 ** 63)}]
    data = tmp_path / "big.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["grade", "--jsonl", str(data), "--lang", "python", "--metrics", "codebleu", "-o", str(out),
                 "-q", "--no-cache", "--parquet"]) == 0
    table = pq.read_table(out / "grade.parquet")
    types = {f.name: str(f.type) for f in table.schema}
    assert types["big"] == "string" and types["small"] == "int64" and types["id"] == "string"
    assert table.column("big").to_pylist() == [str(2 ** 64), "3"] and table.column("id").to_pylist()[0] == str(2 ** 70)
    assert json.loads((out / "grade.json").read_text())["submissions"][0]["big"] == 2 ** 64  # JSON keeps it


@pytest.mark.parametrize("value, says", [(True, "'language' must be a string, not true/false"),
                                         (["python"], "'language' must be a string, not a list"),
                                         ({}, "'language' must be a string, not an object"),
                                         (3, "'language' must be a string, not a number")])
def test_a_language_that_is_not_text_says_so_not_a_python_repr(tmp_path, value, says):
    """``"language": true`` was "unknown language 'True'" and ``["python"]`` "unknown language
    "['python']"" (Python reprs), ``[]`` or ``{}`` "no 'language'" although the row has one."""
    data = tmp_path / "lang.jsonl"
    data.write_text(json.dumps({"id": "a", "candidate": CANDIDATES[0], "reference": REF, "language": value}) + "\n")
    out = tmp_path / "out"
    main(["grade", "--jsonl", str(data), "--metrics", "codebleu", "-o", str(out), "-q", "--no-cache"])
    row = json.loads((out / "grade.json").read_text())["submissions"][0]
    assert row["errors"] == [f"lang.jsonl:1: {says}"]


def test_one_jsonl_file_named_twice_is_graded_once(tmp_path):
    """As a submission file named by two arguments is graded once, so is a ``--jsonl`` file named
    twice (directly or through another path): its rows were all graded twice, as ``#2`` ids."""
    data = _humaneval_like(tmp_path / "he.jsonl")
    out = tmp_path / "out"
    code = main(["grade", "--jsonl", str(data), "--jsonl", str(tmp_path / "." / "he.jsonl"), "--fields",
                 "candidate=hyp,reference=ref", "--metrics", "codebleu", "-o", str(out), "-q", "--no-cache"])
    assert code == 0
    rows = json.loads((out / "grade.json").read_text())["submissions"]
    assert [r["id"] for r in rows] == [10, 11, 12]


def _first_error(tmp_path: Path, capsys, data: Path) -> str:
    code = main(["grade", "--jsonl", str(data), "--metrics", "codebleu", "--lang", "python", "--json",
                 str(tmp_path / "g.json"), "-q", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 3 and "Traceback" not in err, err
    return json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))["submissions"][0]["errors"][0]


@pytest.mark.parametrize("row, guess", [
    ({"task_id": "t", "hyp": "x = 1", "ref": "x = 2"}, "did you mean --fields candidate=hyp,reference=ref?"),
    ({"completion": "x = 1", "reference": "x = 2"}, "did you mean --fields candidate=completion?"),
    ({"id": 1, "Prediction": "x = 1", "target": "x = 2"}, "did you mean --fields candidate=Prediction,reference=target?"),
])
def test_a_missing_field_guesses_the_fields_option(tmp_path, capsys, row, guess):
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    first = _first_error(tmp_path, capsys, data)
    assert guess in first and "(the row has: " in first, first
    assert parse_fields(guess.split("--fields ")[1].rstrip("?"))  # the guess is a valid --fields value


def test_the_lm_eval_example_says_it_holds_prompts_not_completions(tmp_path, capsys):
    """``examples/lm-eval/refscore_example.jsonl`` is the lm-evaluation-harness task's data (the
    model writes the completions): graded as it is, every row said "name the field holding it with
    --fields candidate=NAME", which led to ``--fields candidate=prompt``: scoring the prompts."""
    example = Path(__file__).resolve().parents[2] / "examples/lm-eval/refscore_example.jsonl"
    first = _first_error(tmp_path, capsys, example)
    assert "no 'candidate' field (the row has: prompt, reference)" in first, first
    assert "candidate=prompt" not in first and "'prompt' is what a model is asked" in first, first
    assert "docs/harness.md" in first, first


def test_a_reference_list_that_is_empty_or_holds_a_non_string_says_which(tmp_path):
    """``"reference": []`` and ``"reference": [REF, null]`` were both "'reference' must be a string
    or a list of strings" (an empty list is one): now the error row says the list is empty, or
    which item is not text."""
    rows = [{"id": "none", "candidate": CANDIDATES[0], "reference": []},
            {"id": "null", "candidate": CANDIDATES[0], "reference": [REF, None]},
            {"id": "number", "candidate": CANDIDATES[0], "reference": 5}]
    data = tmp_path / "r.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    main(["grade", "--jsonl", str(data), "--lang", "python", "--metrics", "codebleu", "-o", str(tmp_path / "out"), "-q"])
    got = {r["id"]: r["errors"] for r in json.loads((tmp_path / "out" / "grade.json").read_text())["submissions"]}
    assert got["none"] == ["r.jsonl:1: 'reference' is an empty list: give at least one reference"], got
    assert got["null"] == ["r.jsonl:2: 'reference' item 2 is null, not a string"], got
    assert got["number"] == ["r.jsonl:3: 'reference' must be a string or a list of strings, not a number"], got
