"""One meaning per CodeBLEU name (issue 46, item 4): a field or column named ``codebleu`` (or a
``codebleu`` package key) holds the package's rule only, RefScore's rule is ``codebleu_native``:
in ``score --json``, ``grade``'s rows and columns, ``--per-function``'s records, ``--fail-metric``
and ``refscore.score``. A dummy answer (``lol``) against a real reference tells the rules apart:
the package's rule gives it 0.25 (no dataflow match earns the dataflow weight), RefScore's 0.0.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import refscore
from refscore.vocabulary import CODEBLEU_NAMES, PACKAGE_KEYS, SCORE_NAMES

from tests.support.cli import run_refscore

pytestmark = pytest.mark.timeout(300)

REFERENCE = "def total(values):\n    result = 0\n    for value in values:\n        result += value\n    return result\n"
DUMMY = "lol\n"
PACKAGE_COMPONENTS = [key for name, key in PACKAGE_KEYS.items() if name != "codebleu"]


@pytest.fixture()
def pair(tmp_path: Path) -> tuple[Path, Path]:
    reference, candidate = tmp_path / "ref.py", tmp_path / "cand.py"
    reference.write_text(REFERENCE, encoding="utf-8")
    candidate.write_text(DUMMY, encoding="utf-8")
    return reference, candidate


def _score_json(tmp_path: Path, reference: Path, candidate: Path, *rule: str) -> dict:
    done = run_refscore("score", str(reference), str(candidate), "--json", "--metrics", "codebleu",
                        "--per-function", *rule, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[0])


def test_the_vocabulary_names_each_rule_once() -> None:
    assert CODEBLEU_NAMES == {"compat": "codebleu", "native": "codebleu_native"}
    assert all(name in SCORE_NAMES for name in CODEBLEU_NAMES.values())


def test_score_json_names_the_rule(tmp_path: Path, pair: tuple[Path, Path]) -> None:
    native = _score_json(tmp_path, *pair)
    assert native["scores"]["codebleu_native"] == 0.0
    assert "codebleu" not in native["scores"] and "codebleu" not in native
    assert native["codebleu_native"]["codebleu_native"] == 0.0
    assert not set(PACKAGE_COMPONENTS) & set(native["codebleu_native"])  # package keys: package rule only
    assert native["codebleu_details"]["rule"] == "native"

    compat = _score_json(tmp_path, *pair, "--codebleu-rule", "compat")
    assert compat["scores"]["codebleu"] == pytest.approx(0.25)
    assert "codebleu_native" not in compat["scores"] and "codebleu_native" not in compat
    assert set(compat["codebleu"]) == set(PACKAGE_KEYS.values())


def test_per_function_records_name_the_rule(tmp_path: Path) -> None:
    reference, candidate = tmp_path / "ref.py", tmp_path / "cand.py"
    reference.write_text(REFERENCE, encoding="utf-8")
    candidate.write_text(REFERENCE.replace("result", "acc"), encoding="utf-8")
    for rule, name, other in (("native", "codebleu_native", "codebleu"), ("compat", "codebleu", "codebleu_native")):
        data = _score_json(tmp_path, reference, candidate, "--codebleu-rule", rule)
        assert data["functions"] and all(name in f and other not in f for f in data["functions"])


def test_grade_columns_name_the_rule(tmp_path: Path) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({"id": 1, "reference": REFERENCE, "candidate": DUMMY, "language": "python"}) + "\n",
                      encoding="utf-8")
    for rule, name, value in (("native", "codebleu_native", 0.0), ("compat", "codebleu", 0.25)):
        out = tmp_path / rule
        done = run_refscore("grade", "--jsonl", str(source), "-o", str(out), "--metrics", "codebleu", "--no-daemon",
                            "--no-cache", "--codebleu-rule", rule, "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        row = json.loads((out / "grade.jsonl").read_text(encoding="utf-8").splitlines()[0])
        assert row[name] == pytest.approx(value)
        other = next(n for n in CODEBLEU_NAMES.values() if n != name)
        assert other not in row
        with (out / "grade.csv").open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle))
        assert name in header and other not in header


def test_fail_metric_of_the_other_rule_is_a_usage_error(tmp_path: Path) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({"id": 1, "reference": REFERENCE, "candidate": DUMMY, "language": "python"}) + "\n",
                      encoding="utf-8")
    done = run_refscore("grade", "--jsonl", str(source), "-o", str(tmp_path / "out"), "--metrics", "codebleu",
                        "--no-daemon", "--no-cache", "--fail-under", "0.5", "--fail-metric", "codebleu", cwd=tmp_path)
    assert done.returncode == 2
    assert "codebleu_native" in done.stderr and "Traceback" not in done.stderr


def test_api_fields_name_the_rule() -> None:
    native = refscore.score([DUMMY], [REFERENCE], language="python", metrics=("codebleu",))[0]
    assert native.codebleu_native == 0.0 and native.codebleu is None
    assert all(getattr(native, key) is None for key in PACKAGE_COMPONENTS)
    assert native.ngram_match == 0.0
    compat = refscore.score([DUMMY], [REFERENCE], language="python", metrics=("codebleu",),
                            codebleu_rule="compat")[0]
    assert compat.codebleu == pytest.approx(0.25) and compat.codebleu_native is None
    assert compat.dataflow_match_score == 0.0
