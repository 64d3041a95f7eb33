"""Behaviour in ``refscore grade``: its columns in every report, the counter-examples on the HTML
page, the same numbers from every engine (in memory, blocks and their resume, the daemon, JSONL;
Ray: tests/scale/test_ray_grade.py), a teacher's inputs from ``--inputs``, a mapping's ``inputs =`` and a
JSONL row's ``inputs``; and, without a sandbox, one note and nothing executed."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.cli import main
from tests.support.behaviour_class import (BEHAVIOUR_KEYS, INPUTS, PARTIAL_ON_INPUTS, behaviour_by_name, write_files,
                                           write_jsonl)
from tests.service.test_daemon import place  # noqa: F401 - the fixture

pytestmark = pytest.mark.timeout(240)
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
METRICS = ("--metrics", "codebleu,behaviour")


def _grade(*args: str) -> tuple[int, str, str]:
    """``refscore grade ARGS`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["grade", *args, "--progress", "none"])
    return code, out.getvalue(), err.getvalue()


def _rows(folder: Path) -> list[dict]:
    return json.loads((folder / "grade.json").read_text(encoding="utf-8"))["submissions"]


def _by_name(rows: list[dict]) -> dict[str, dict]:
    return {Path(str(row["id"])).stem: row for row in rows}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """The class graded in memory (one block), with every report."""
    root = tmp_path_factory.mktemp("behaviour-class")
    reference, subs = write_files(root)
    out = root / "out"
    code, stdout, stderr = _grade("-r", str(reference), str(subs), *METRICS, "-o", str(out))
    return {"root": root, "reference": reference, "subs": subs, "out": out, "code": code, "stdout": stdout,
            "stderr": stderr, "rows": _rows(out)}


@needs_bwrap
def test_the_behaviour_column_ranks_the_class_in_every_report(graded) -> None:
    assert graded["code"] == 0, graded["stderr"]
    rows = _by_name(graded["rows"])
    assert rows["correct"]["behaviour"] == 1.0 and rows["correct"]["behaviour_note"] is None
    assert rows["correct"]["behaviour_agreed"] == rows["correct"]["behaviour_inputs"] > 0
    assert 1.0 > rows["partial"]["behaviour"] > rows["wrong"]["behaviour"]
    assert rows["partial"]["behaviour_note"].startswith("differs on count_small(")
    assert rows["syntax"]["behaviour"] == 0.0 and "does not parse" in rows["syntax"]["behaviour_note"]
    assert rows["loop"]["behaviour"] == 0.0 and "timeout" in rows["loop"]["behaviour_note"]
    assert rows["partial"]["behaviour_signature"].startswith("behaviour|lang:python|")
    with open(graded["out"] / "grade.csv", newline="", encoding="utf-8") as handle:
        table = {Path(r["id"]).stem: r for r in csv.DictReader(handle)}
    assert float(table["partial"]["behaviour"]) == rows["partial"]["behaviour"]
    assert table["partial"]["behaviour_note"] == rows["partial"]["behaviour_note"]
    assert int(table["wrong"]["behaviour_agreed"]) == rows["wrong"]["behaviour_agreed"]
    jsonl = [json.loads(line) for line in (graded["out"] / "grade.jsonl").read_text(encoding="utf-8").splitlines()]
    assert behaviour_by_name(jsonl) == behaviour_by_name(graded["rows"])
    # the terminal: behaviour's mean and how many it ran for, no run-wide note
    assert "Behaviour mean" in graded["stdout"] and "(run for 5 of 5)" in graded["stdout"]
    assert "behaviour not run" not in graded["stderr"]


@needs_bwrap
def test_the_html_page_has_the_column_and_the_counter_examples(graded) -> None:
    html = (graded["out"] / "grade.html").read_text(encoding="utf-8")
    table = html[html.index('id="results"'):html.index("</table>", html.index('id="results"'))]
    assert "<th>Behaviour</th>" in table
    partial = next(part for part in html.split("<details ")[1:] if "partial.py" in part.split("</summary>")[0])
    assert "agrees with the reference on" in partial and 'class="behaviour counter-examples"' in partial
    assert "<th>Input</th><th>Expected</th><th>Got</th><th>Reason</th>" in partial
    assert '<td class="code">count_small' in partial and "<td>different result</td>" in partial
    assert '<td class="code">count_small</td>' in partial  # the per-function table
    loop = next(part for part in html.split("<details ")[1:] if "loop.py" in part.split("</summary>")[0])
    assert "<td>timeout</td>" in loop


@needs_bwrap
def test_every_local_engine_and_the_resumed_run_give_the_same_behaviour(graded, place, tmp_path,  # noqa: F811
                                                                       monkeypatch) -> None:
    want = behaviour_by_name(graded["rows"])
    reference, subs = str(graded["reference"]), str(graded["subs"])
    # blocks of two submissions, then a rerun that takes every row from the parts
    code, _, err = _grade("-r", reference, subs, *METRICS, "-o", str(tmp_path / "blocks"), "--block-lines", "2")
    assert code == 0, err
    assert behaviour_by_name(_rows(tmp_path / "blocks")) == want
    code, _, err = _grade("-r", reference, subs, *METRICS, "-o", str(tmp_path / "blocks"), "--block-lines", "2")
    resumed = _rows(tmp_path / "blocks")
    assert code == 0 and all(row["cached"] for row in resumed), err
    assert behaviour_by_name(resumed) == want
    html = (tmp_path / "blocks" / "grade.html").read_text(encoding="utf-8")
    assert 'class="behaviour counter-examples"' in html  # the detail rebuilt from the parts keeps behaviour
    # JSONL pairs (read block by block)
    jsonl = write_jsonl(tmp_path / "class.jsonl")
    code, _, err = _grade("--jsonl", str(jsonl), *METRICS, "-o", str(tmp_path / "jsonl"), "--no-cache")
    assert code == 0, err
    assert behaviour_by_name(_rows(tmp_path / "jsonl")) == want
    # the daemon's CPU stage (started first: grade --daemon uses a running one)
    import refscore.engines as engines

    engines.open_scorer("daemon").close()
    kinds = []
    real = engines.open_scorer

    def spy(*args, **kwargs):
        scorer = real(*args, **kwargs)
        kinds.append(getattr(scorer, "kind", type(scorer).__name__))
        return scorer

    monkeypatch.setattr(engines, "open_scorer", spy)
    code, _, err = _grade("-r", reference, subs, *METRICS, "-o", str(tmp_path / "daemon"), "--daemon", "--no-cache")
    assert code == 0, err
    assert kinds == ["daemon"], err
    assert behaviour_by_name(_rows(tmp_path / "daemon")) == want


@needs_bwrap
def test_an_inputs_file_is_used_and_a_rerun_with_other_inputs_rescores(tmp_path) -> None:
    reference, subs = write_files(tmp_path, ("correct", "partial"))
    inputs = subs / "inputs.txt"  # beside the submissions: read as inputs, never graded
    inputs.write_text(INPUTS, encoding="utf-8")
    other = tmp_path / "other.txt"
    other.write_text("count_small([2], 2)\n", encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = _grade("-r", str(reference), str(subs), *METRICS, "-o", str(out), "--pattern", "*.py")
    assert code == 0, err
    plain = _by_name(_rows(out))
    code, _, err = _grade("-r", str(reference), str(subs), *METRICS, "-o", str(out), "--inputs", str(other),
                          "--pattern", "*.py")
    assert code == 0, err
    before = _by_name(_rows(out))
    assert not any(row["cached"] for row in before.values())  # inputs given: scored again
    assert before["partial"]["behaviour_note"] == "differs on count_small([2], 2): expected 1, got 0"
    assert before["partial"]["behaviour_signature"] != plain["partial"]["behaviour_signature"]
    code, _, err = _grade("-r", str(reference), str(subs), *METRICS, "-o", str(out), "--inputs", str(inputs))
    assert code == 0, err
    after = _by_name(_rows(out))
    assert set(after) == {"correct", "partial"}  # not inputs.txt
    assert not any(row["cached"] for row in after.values())  # other inputs: scored again
    assert after["partial"]["behaviour_note"] == PARTIAL_ON_INPUTS and after["correct"]["behaviour"] == 1.0
    assert after["partial"]["behaviour_signature"] != before["partial"]["behaviour_signature"]
    code, _, err = _grade("-r", str(reference), str(subs), *METRICS, "-o", str(out), "--inputs", str(inputs))
    assert code == 0 and all(row["cached"] for row in _rows(out)), err
    # --inputs without behaviour changes nothing: one warning, ignored
    code, _, err = _grade("-r", str(reference), str(subs), "--metrics", "codebleu", "--json", str(tmp_path / "c.json"),
                          "--no-cache", "--inputs", str(inputs))
    assert code == 0 and "--inputs only changes Behaviour" in err
    rows = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))["submissions"]
    assert not any(key in rows[0] for key in BEHAVIOUR_KEYS)


@needs_bwrap
def test_a_mapping_problem_s_inputs_come_before_the_command_line_s(tmp_path, capsys) -> None:
    reference, subs = write_files(tmp_path, ("correct", "partial"))
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "equal.txt").write_text(INPUTS, encoding="utf-8")
    (tmp_path / "other.txt").write_text("count_small([2], 2)\n", encoding="utf-8")
    mapping = tmp_path / "class.toml"
    mapping.write_text('[[problem]]\nname = "own"\nreference = "ref.py"\nsubmissions = ["subs/*.py"]\n'
                       'inputs = "inputs/equal.txt"\n\n'
                       '[[problem]]\nname = "shared"\nreference = "ref.py"\nsubmissions = ["subs/*.py"]\n',
                       encoding="utf-8")
    code, _, err = _grade("--mapping", str(mapping), *METRICS, "--json", str(tmp_path / "g.json"), "--no-cache",
                          "--inputs", str(tmp_path / "other.txt"))
    assert code == 0, err
    rows = {row["id"]: row for row in json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))["submissions"]}
    assert rows["own/subs/partial.py"]["behaviour_note"] == PARTIAL_ON_INPUTS
    assert rows["shared/subs/partial.py"]["behaviour_note"] == "differs on count_small([2], 2): expected 1, got 0"
    assert rows["own/subs/correct.py"]["behaviour"] == rows["shared/subs/correct.py"]["behaviour"] == 1.0
    # a problem's inputs file that is not there: one line naming the problem, nothing scored
    mapping.write_text('[[problem]]\nname = "own"\nreference = "ref.py"\nsubmissions = ["subs/*.py"]\n'
                       'inputs = "inputs/missing.txt"\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["grade", "--mapping", str(mapping), *METRICS, "--json", str(tmp_path / "h.json"), "-q"]) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "problem 1 ('own'): inputs:" in lines[0] and "missing.txt" in lines[0], lines
    assert not (tmp_path / "h.json").exists()


@needs_bwrap
def test_a_jsonl_row_s_inputs_field(tmp_path) -> None:
    path = tmp_path / "pairs.jsonl"
    write_jsonl(path, ("partial",), inputs=INPUTS)
    listed = write_jsonl(tmp_path / "listed.jsonl", ("partial",), inputs=["count_small([7, 7, 7], 7)"])
    bad = write_jsonl(tmp_path / "bad.jsonl", ("partial",), inputs=7)
    renamed = write_jsonl(tmp_path / "renamed.jsonl", ("partial",), calls=INPUTS)
    for source, fields in ((path, ()), (listed, ()), (renamed, ("--fields", "inputs=calls"))):
        code, _, err = _grade("--jsonl", str(source), *fields, *METRICS, "--json", str(tmp_path / "g.json"),
                              "--no-cache")
        assert code == 0, err
        row, = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))["submissions"]
        assert row["behaviour_note"] == PARTIAL_ON_INPUTS, source
        assert "inputs" not in row and "calls" not in row  # a known field, not passed through
    code, _, _ = _grade("--jsonl", str(bad), *METRICS, "--json", str(tmp_path / "b.json"), "--no-cache")
    row, = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["submissions"]
    assert code == 3 and "'inputs' must be" in row["errors"][0]


def test_without_a_sandbox_one_note_no_behaviour_numbers_and_nothing_runs(tmp_path) -> None:
    reference, subs = write_files(tmp_path, ("correct", "partial"))
    marker = tmp_path / "ran"
    evil = f"open({str(marker)!r}, 'w').write('x')\n"
    (subs / "evil.py").write_text(evil + "def count_small(values, limit):\n    return 0\n", encoding="utf-8")
    reference.write_text(reference.read_text(encoding="utf-8") + evil, encoding="utf-8")
    env = {**os.environ, "PATH": str(tmp_path / "no-bwrap-here")}  # find_sandbox looks bwrap up on PATH
    env.pop("REFSCORE_BEHAVIOUR_UNSANDBOXED", None)
    done = subprocess.run([sys.executable, "-m", "refscore", "grade", "-r", str(reference), str(subs), *METRICS,
                           "-o", str(tmp_path / "out"), "--progress", "none"],
                          capture_output=True, text=True, timeout=200, env=env)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    why = "behaviour not run: no sandbox: bubblewrap (bwrap) is not installed"
    assert done.stderr.count("not run") == 1 and f"refscore: note: {why}" in done.stderr, done.stderr
    assert "Behaviour mean" not in done.stdout and "CodeBLEU mean" in done.stdout
    report = json.loads((tmp_path / "out" / "grade.json").read_text(encoding="utf-8"))
    assert report["settings"]["behaviour_not_run"] == why
    for row in report["submissions"]:
        assert row["behaviour"] is None and row["behaviour_inputs"] is None and row["codebleu_native"] is not None
        assert row["behaviour_note"] == "not run: no sandbox: bubblewrap (bwrap) is not installed"
    html = (tmp_path / "out" / "grade.html").read_text(encoding="utf-8")
    assert html.count("not run: no sandbox") == 1 and "Behaviour not run: no sandbox" in html  # the header only
    assert "<th>Behaviour</th>" not in html
