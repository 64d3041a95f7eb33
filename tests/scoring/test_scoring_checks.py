"""Issue 44 item 2: the pipeline's checks stage records parse errors (the parser's line), bidi
controls and why a metric or the combined number did not run in the report, once; the report's
JSON form carries them; the grader, ``score`` and the editor render them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from refscore import languages
from refscore.bidi import bidi_warning, find_bidi
from refscore.grade.block_score import submission_warnings
from refscore.lsp.references import ReferenceChoice
from refscore.lsp.results import Result
from refscore.scoring.checks import Checks
from refscore.scoring.parts import CpuScores
from refscore.scoring.pipeline import finish, prepare, run_stages
from refscore.scoring.report import ScoreReport, ScoreRequest
from refscore.service import DaemonClient
from tests.support.daemons import refscore
from tests.service.test_daemon import Place, place  # noqa: F401 - the daemon's private runtime directory

REF = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b):\n    total = a + b\n    for x in [a, b]\n        total += x\n    return total\n"
TROJAN = "def add(a, b):\n    # \u202e }\u2066 nothing to see\n    return a + b\n"


def _checks(candidate: str, references: tuple[str, ...], language: str = "python",
            metrics: tuple[str, ...] = ("codebleu",)) -> Checks:
    checks = run_stages([ScoreRequest(candidate, references, language, metrics=metrics)])[0].checks
    assert checks is not None
    return checks


def test_parse_errors_are_recorded_with_the_parsers_line_for_every_text() -> None:
    with pytest.raises(SyntaxError) as python:
        compile(BROKEN, "c.py", "exec")
    checks = _checks(BROKEN, (REF, BROKEN))
    assert checks.syntax_error == python.value.lineno == 3
    assert checks.reference_syntax_errors == (None, 3)
    assert checks.parse_error == "syntax error near line 3"  # one reference parses
    assert _checks(BROKEN, (BROKEN,)).parse_error is None  # no reference parses: a snippet, not flagged
    assert _checks(REF, (REF,)) == Checks(None, (None,), (), ((),))
    js = _checks("function f(a) {\n  return a +;\n}\n", ("function f(a) {\n  return a + 1;\n}\n",), "javascript")
    assert js.syntax_error == 2 and js.reference_syntax_errors == (None,)  # tree-sitter's line


def test_bidi_controls_are_recorded_where_they_are_in_candidate_and_references() -> None:
    checks = _checks(TROJAN, (REF, "x = 1\n\u200f"))
    assert checks.bidi == tuple(find_bidi(TROJAN))
    assert [(c.offset, c.line, c.code) for c in checks.bidi] == [
        (TROJAN.index("\u202e"), 1, "U+202E"), (TROJAN.index("\u2066"), 1, "U+2066")]
    assert checks.reference_bidi == ((), (find_bidi("x = 1\n\u200f")[0],))


def test_a_metric_that_did_not_run_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFSCORE_MAX_CODE_TOKENS", "5")
    report = run_stages([ScoreRequest(BROKEN, (REF,), "python", metrics=("codebleu",))])[0]
    assert report.codebleu is None and report.checks is not None
    assert report.checks.not_run == (("codebleu", report.errors[0]),)
    assert report.checks.not_run[0][1].startswith("codebleu: over budget")
    assert report.checks.syntax_error is None  # a text over the budget is not parsed either
    monkeypatch.delenv("REFSCORE_MAX_CODE_TOKENS")
    assert _checks(BROKEN, (REF,)).not_run == ()


def test_the_checks_travel_in_the_reports_json() -> None:
    """What the daemon's wire and the grader's parts carry: the checks come back equal."""
    report = run_stages([ScoreRequest(TROJAN.replace("return", "return (", 1), (REF, TROJAN), "python",
                                      metrics=("codebleu",))])[0]
    assert report.checks is not None and report.checks.bidi and report.checks.syntax_error == 3
    data = json.loads(json.dumps(report.to_dict(explain=True)))
    assert data["checks"]["bidi"][0] == [TROJAN.index("\u202e"), 1, "U+202E"]
    assert ScoreReport.from_dict(data) == report
    cpu = CpuScores.of(report)  # the CPU stage's results between Ray's stages: no checks of their own
    assert "checks" not in cpu.to_dict("python") and CpuScores.from_dict(cpu.to_dict("python")) == cpu


def test_the_daemon_answers_the_checks_its_finish_stage_made(place: Place) -> None:  # noqa: F811
    request = ScoreRequest(TROJAN.replace("return", "return (", 1), (REF, BROKEN), "python", metrics=("codebleu",))
    started = refscore("daemon", "start", "--no-preload", env=place.env)
    assert started.returncode == 0, started.stderr
    with DaemonClient(autostart=False) as client:
        answered = client.submit(request).result(timeout=120)
    assert answered.checks is not None and answered.checks == run_stages([request])[0].checks
    assert answered.checks.bidi and answered.checks.reference_syntax_errors == (None, 3)


def test_the_grader_renders_the_reports_checks() -> None:
    """The warnings are made from the report's checks, not from the texts again."""
    report = run_stages([ScoreRequest(BROKEN.replace("a + b\n", "a + b  # \u202e\n", 1), (REF,), "python",
                                      metrics=("codebleu",))])[0]
    assert report.checks is not None
    warnings = submission_warnings(report.checks, combined=False)
    assert warnings[0] == bidi_warning(report.checks.bidi) and "line(s) 2" in warnings[0]
    assert "does not parse: syntax error near line 3; its scores are for the code the parser" in warnings[1]
    said = submission_warnings(replace(report.checks, syntax_error=7, bidi=()))
    assert said == [submission_warnings(replace(report.checks, bidi=()))[0].replace("line 3", "line 7")]


def test_the_editor_shows_the_controls_the_report_recorded() -> None:
    request = ScoreRequest(TROJAN, (REF,), "python", metrics=())
    report = finish(prepare(request))
    choice = ReferenceChoice((Path("/r/ref.py"),), "settings")
    shown = Result("file:///c.py", 1, TROJAN, languages.get("python"), choice, (REF,), ("file:///r/ref.py",), report)
    assert shown.bidi == list(report.checks.bidi) and len(shown.bidi) == 2
    assert report.checks is not None
    told = replace(report, checks=replace(report.checks, bidi=report.checks.bidi[:1]))
    assert Result("file:///c.py", 1, TROJAN, languages.get("python"), choice, (REF,), (), told).bidi == [shown.bidi[0]]
    problem = Result("file:///c.py", 1, TROJAN, languages.get("python"), choice, problem="no reference")
    assert problem.bidi == shown.bidi  # no report: the document itself is scanned
