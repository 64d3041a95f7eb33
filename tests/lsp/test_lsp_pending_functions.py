"""An edit's summary leaves the CodeBLEU of the functions it touched to the ranking that follows it
(issue 43, item 2: the first publish of a 200-line file within 1.5x of the in-process call): the
functions it did not touch keep their scores (asked again, answered from the memo), the touched
one is ``pending`` until ``ranking_phase`` scores it, and a lens never shows it pending: the lens
request waits for the ranking, and the summary's publish asks the client for no lens refresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from refscore import languages
from refscore.lsp import phases
from refscore.lsp.references import ReferenceChoice
from refscore.lsp.results import Result
from refscore.lsp.scorers import Scorers
from refscore.lsp.settings import Settings
from refscore.scoring.scorer import LocalScorer
from refscore.scoring.pairing import pair_functions, score_pending
from tests.lsp.harness import session

PYTHON = languages.get("python")
WEIGHTS = (0.25, 0.25, 0.25, 0.25)
FUNCTION = '''def step_{i}(values):
    best = None
    for value in values:
        if best is None or value > best:
            best = value
    return best


'''
CANDIDATE = "".join(FUNCTION.format(i=i) for i in range(4))
REFERENCE = CANDIDATE.replace("best", "top")


def _edited(text: str, function: int) -> str:
    """``text`` with one character typed into function ``function``'s loop."""
    at = text.index(f"def step_{function}")
    at = text.index("for value", at)
    return text[:at] + "x" + text[at:]


def _result(text: str, version: int) -> Result:
    return Result("file:///w/c.py", version, text, PYTHON, ReferenceChoice((Path("/w/c.ref.py"),), "convention"),
                  (REFERENCE,), ("file:///w/c.ref.py",))


def test_a_summary_leaves_only_the_touched_function_pending_and_its_ranking_scores_it() -> None:
    scorers, settings = Scorers(allow_daemon=False), Settings(metrics=("codebleu",))
    shown = phases.ranking_phase(phases.summary_phase(_result(CANDIDATE, 1), settings, None, scorers, None),
                                 settings, scorers)
    assert not shown.functions_pending and all(p.codebleu is not None for p in shown.functions)
    edited = _edited(CANDIDATE, 2)
    summary = phases.summary_phase(_result(edited, 2), settings, None, scorers, shown)
    assert [p.function.name for p in summary.functions if p.pending] == ["step_2"]
    assert summary.functions_pending
    ranked = phases.ranking_phase(summary, settings, scorers)
    assert not ranked.functions_pending
    fresh = pair_functions(edited, (REFERENCE,), PYTHON, LocalScorer().score_many, settings.codebleu_weights)
    assert ranked.functions == fresh  # the same pairs and scores as a pairing from nothing
    assert [p.codebleu for p in summary.functions if not p.pending] == \
        [p.codebleu for p in fresh if p.function.name != "step_2"]


def test_pending_pairs_are_paired_as_scored_ones_and_score_pending_scores_only_them() -> None:
    scorer = LocalScorer()
    asked: list[int] = []

    def counting(requests):  # how many requests each scoring call gets
        asked.append(len(requests))
        return scorer.score_many(requests)

    text = CANDIDATE + "def helper(values):\n    return sorted(values)\n"
    full = pair_functions(text, (REFERENCE,), PYTHON, scorer.score_many, WEIGHTS)
    later = pair_functions(text, (REFERENCE,), PYTHON, counting, WEIGHTS, later=lambda request: "step_1" in
                           request.candidate)
    assert [(p.function, p.region, p.matched_by) for p in later] == [(p.function, p.region, p.matched_by) for p in full]
    assert [p.function.name for p in later if p.pending] == ["step_1"]
    assert next(p for p in later if p.pending).codebleu is None
    asked.clear()
    assert score_pending(later, text, (REFERENCE,), PYTHON, counting, WEIGHTS) == full
    assert asked == [1]  # the pending one only


@pytest.mark.asyncio
async def test_lenses_asked_right_after_an_edits_summary_show_its_final_scores(tmp_path: Path) -> None:
    # 300 functions: the ranking takes tens of milliseconds, and the lens request comes within it
    candidate = "".join(FUNCTION.format(i=i) for i in range(300))
    (tmp_path / "steps.ref.py").write_text(candidate.replace("best", "top"), encoding="utf-8")
    path = tmp_path / "steps.py"
    path.write_text(candidate, encoding="utf-8")
    async with session(tmp_path, settings={"behaviour": {"enabled": False}, "metrics": ["codebleu"]}) as s:
        doc = s.open(path)
        await s.wait_summary(doc)  # ranked
        await s.wait_for(lambda: s.lens_refreshes >= 1, what="the opening ranking's lens refresh")
        refreshes = s.lens_refreshes
        line = candidate[:_edited(candidate, 2).index("xfor")].count("\n")
        version = s.insert(doc, line, 4, "x")
        await s.wait_for(lambda: (d := s.summary(doc)) is not None and d.data.get("version") == version,
                         what="the edit's summary")
        early = await s.lenses(doc)  # sent as the summary arrives: answered once step_2 is scored
        await s.wait_summary(doc, version)  # ranked
        final = await s.lenses(doc)
        await s.wait_for(lambda: s.lens_refreshes > refreshes, what="the ranking's lens refresh")
    titles = [lens.command.title for lens in early]
    assert not any("scoring" in title for title in titles)
    assert titles == [lens.command.title for lens in final]
    assert [lens.data["codebleu"] for lens in early] == [lens.data["codebleu"] for lens in final]
    assert all(isinstance(lens.data["codebleu"], float) for lens in early)
    assert s.lens_refreshes == refreshes + 1  # the ranking's publish only (the summary's came before it)


@pytest.mark.asyncio
async def test_a_large_lane_documents_pairs_are_scored_after_its_first_summary(tmp_path: Path) -> None:
    # over LARGE_CHARS with its reference: scored in the large lane, its 1,200 pairs in a second call
    candidate = "".join(FUNCTION.format(i=i) for i in range(1200))
    assert 2 * len(candidate) > phases.LARGE_CHARS
    (tmp_path / "steps.ref.py").write_text(candidate.replace("best", "top"), encoding="utf-8")
    path = tmp_path / "steps.py"
    path.write_text(candidate, encoding="utf-8")
    async with session(tmp_path, settings={"behaviour": {"enabled": False}, "metrics": ["codebleu"]}) as s:
        doc = s.open(path)
        await s.wait_for(lambda: s.summary(doc) is not None, timeout=300, what="the first summary")
        lenses = await s.lenses(doc)  # answered once the pairs are scored
        await s.wait_for(lambda: s.lens_refreshes >= 1, what="the scored pairs' lens refresh")
    assert len(lenses) >= 100  # (at most 500 are sent)
    assert all(isinstance(lens.data["codebleu"], float) and "scoring" not in lens.command.title for lens in lenses)
