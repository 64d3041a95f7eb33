"""The ranking with CodeBERTScore's similarities (the editor's finish stage) reuses the token
alignment the CodeBLEU ranking made of the same texts, with the same differences."""

from __future__ import annotations

from refscore.metrics import differences as ranking
from refscore.scoring.differences import find_differences
from tests.support.calls import counted

REFERENCE = "def total(values):\n    result = 0\n    for v in values:\n        result += v\n    return result\n"
CANDIDATE = "def total(items):\n    acc = 1\n    for v in items:\n        acc -= v\n    return acc\n"


def test_the_same_texts_are_aligned_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls = counted(monkeypatch, ranking, "align", lambda reference, candidate: len(candidate))
    ranking._ALIGNED.clear()
    first = find_differences(CANDIDATE, [REFERENCE], None, "python")
    second = find_differences(CANDIDATE, [REFERENCE], None, "python")
    assert len(calls) == 1 and first.differences and first == second
    edited = find_differences(CANDIDATE.replace("acc -= v", "acc += v"), [REFERENCE], None, "python")
    assert len(calls) == 2 and len(edited.differences) < len(first.differences)


def test_a_run_matched_before_is_not_matched_again() -> None:
    import random

    from refscore.metrics.differences import bounded

    rng = random.Random(3)
    bounded.kept_match.clear()
    for _ in range(200):
        a = [rng.choice("xyz(=)") for _ in range(rng.randrange(0, 30))]
        b = [rng.choice("xyz(=)") for _ in range(rng.randrange(0, 30))]
        first = bounded.kept_match(a, b)
        assert first == bounded.match(a, b)
        assert bounded.kept_match(list(a), list(b)) is first  # the same elements: kept
        assert bounded.kept_match(a, b, autojunk=True) == bounded.match(a, b, autojunk=True)


def test_an_edit_inside_a_name_reuses_the_first_pass_line_matching(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The first pass reads every name as one word: renaming ``acc`` leaves its lines as they were,
    so only the second pass matches lines again, and the differences are those of a fresh run."""
    from refscore.metrics.differences import bounded

    made = counted(monkeypatch, bounded, "match", lambda *args: args)
    bounded.kept_lines_match.clear()
    ranking._ALIGNED.clear()
    find_differences(CANDIDATE, [REFERENCE], None, "python")
    before = len(made)
    edited = CANDIDATE.replace("acc", "total_so_far")
    found = find_differences(edited, [REFERENCE], None, "python")
    line_matchings = len(made) - before
    bounded.kept_lines_match.clear()
    bounded.kept_match.clear()
    ranking._ALIGNED.clear()
    fresh = find_differences(edited, [REFERENCE], None, "python")
    assert found == fresh and found.differences
    assert line_matchings < len(made) - before - line_matchings  # the fresh run matched more


def test_the_finish_stage_ranking_reuses_the_first_stage_and_equals_a_fresh_one(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The editor ranks a version twice: with CodeBLEU's explanations, then with CodeBERTScore's
    similarities too. The second ranking places the explanations and weighs the alignment once
    (``rank.bases``, kept), and its differences are those of a ranking made from nothing."""
    import re
    from dataclasses import replace

    from refscore.metrics.codebertscore_result import BertScore, TokenAlignment
    from refscore.scoring.report import ScoreRequest
    from refscore.scoring.scorer import LocalScorer

    report = LocalScorer().score(ScoreRequest(CANDIDATE, (REFERENCE,), "python", metrics=("codebleu",)))
    similarities = iter([0.9, 0.2, 0.75, 0.4, 0.95] * 40)
    tokens = tuple(TokenAlignment(m.group(), m.start(), m.end(), next(similarities)) for m in re.finditer(r"\w+|\S", CANDIDATE))
    bert = BertScore(0.8, 0.7, 0.75, 0.71, "m", 6, "cpu", False, False, False, "sig", tokens, ())
    both = replace(report, codebertscore=bert)
    ranking._FIRST.clear()
    made = counted(monkeypatch, ranking, "bases", lambda *args: 1)
    first = find_differences(CANDIDATE, [REFERENCE], report, "python")
    second = find_differences(CANDIDATE, [REFERENCE], both, "python")
    assert len(made) == 1 and first.differences != second.differences  # the similarities moved the weights
    ranking._FIRST.clear()
    ranking._ALIGNED.clear()
    assert find_differences(CANDIDATE, [REFERENCE], both, "python") == second and len(made) == 2
