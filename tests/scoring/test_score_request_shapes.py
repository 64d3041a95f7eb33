"""`ScoreRequest(candidate, reference_text, "python")`: one reference given as a string (or a
list) means that reference; it used to be taken as a sequence of one-character references and
scored silently (CodeBLEU 0.003 for the README's example pair instead of 0.532)."""

from __future__ import annotations

from pathlib import Path

from refscore.engines import open_scorer
from refscore.scoring.report import ScoreRequest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def test_a_reference_string_or_list_means_one_reference() -> None:
    candidate = (EXAMPLES / "candidate_close.py").read_text()
    reference = (EXAMPLES / "reference.py").read_text()
    scorer = open_scorer("local")
    try:
        shapes = [ScoreRequest(candidate, (reference,), "python", metrics=("codebleu",)),
                  ScoreRequest(candidate, reference, "python", metrics="codebleu"),
                  ScoreRequest(candidate, [reference], "python", metrics=["codebleu"])]
        assert all(r.references == (reference,) and r.metrics == ("codebleu",) for r in shapes)
        scores = [scorer.score(r).codebleu.score for r in shapes]
    finally:
        scorer.close()
    assert scores[0] > 0.5 and scores == [scores[0]] * 3
    assert ScoreRequest(candidate, reference, "python", weights=[1, 1, 1, 1]).weights == (1, 1, 1, 1)
