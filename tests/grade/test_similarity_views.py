"""Issue 42 item 10: similarity like JPlag/Dolos. Each matched region in its own colour on both
sides, the histogram of every pair's score with the threshold on it, the pairs just below the
threshold, a mapping's ``starter =`` used by the similarity, and students failing in the same way
noted, through the real ``refscore grade`` (behaviour in the real sandbox)."""

from __future__ import annotations

import json
import re

import pytest

from refscore.analysis.similarity_tokens import structural_tokens
from refscore.cli import main
from refscore.metrics.similarity import BINS, Submission, compare
from tests.merge_intervals_ref import ANA, BOB, CID, DEE, MERGE, STARTER

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("simviews")
    (root / "ref.py").write_text(MERGE)
    (root / "given.py").write_text(STARTER)
    (root / "subs").mkdir()
    for name, text in (("ana", ANA), ("bob", BOB), ("cid", CID), ("dee", DEE)):
        (root / "subs" / f"{name}.py").write_text(text)
    (root / "class.toml").write_text('[[problem]]\nname = "merge"\nreference = "ref.py"\nsubmissions = ["subs"]\n'
                                     'starter = "given.py"\n')
    (root / "rubric.toml").write_text('metric = "codebleu"\nlinear = { floor = 0.1, ceiling = 0.9 }\n')
    code = main(["grade", "--mapping", str(root / "class.toml"), "--metrics", "codebleu,behaviour", "-o",
                 str(root / "out"), "--rubric", str(root / "rubric.toml"), "--similarity", "0.8", "-q"])
    assert code == 0
    return root / "out"


def test_each_region_has_its_own_colour_on_both_sides():
    first, second = structural_tokens(ANA, "python"), structural_tokens(BOB, "python")
    result = compare([Submission("ana", first), Submission("bob", second)], 0.5)
    pair = result.pairs[0]
    assert len(pair.regions) == 2  # one per function: no k-gram spans two functions
    lines = {tuple(r.first_lines): tuple(r.second_lines) for r in pair.regions}
    assert lines[(0, 1)] == (10, 11)  # touches() is near(), at the end of Bob's file
    assert (4, 5, 6, 7, 8, 9, 10, 11) in lines and lines[(4, 5, 6, 7, 8, 9, 10, 11)] == (0, 1, 2, 3, 4, 5, 6, 7)


def test_the_histogram_counts_every_pair_and_the_near_pairs_are_below_the_threshold():
    docs = [Submission(n, structural_tokens(t, "python")) for n, t in (("ana", ANA), ("bob", BOB), ("cid", CID),
                                                                       ("dee", DEE), ("eve", MERGE))]
    result = compare(docs, 0.8)
    assert len(result.histogram) == BINS and sum(result.histogram) == result.possible == 10
    assert result.near and all(p.score < 0.8 for p in result.near)
    assert [p.score for p in result.near] == sorted((p.score for p in result.near), reverse=True)
    flagged = {frozenset((p.first, p.second)) for p in result.pairs}
    assert not flagged & {frozenset((p.first, p.second)) for p in result.near}


def test_the_page_draws_regions_histogram_threshold_and_near_pairs(run):
    page = (run / "similarity.html").read_text(encoding="utf-8")
    assert '<svg class="hist"' in page and 'class="threshold"' in page and "threshold 0.80" in page
    assert "Just below the threshold" in page
    pair = page[page.index("<details"):page.index("</details>")]
    left, right = pair.split('<div class="pane">')[1:3]
    colours = [dict(re.findall(r'class="region r(\d+)" style="background:([^"]+)"', side)) for side in (left, right)]
    assert len(set(colours[0].values())) >= 2  # two regions, two colours
    assert colours[0] == colours[1]  # each region the same colour on both sides


def test_the_mappings_starter_is_used_and_the_json_has_it_all(run):
    data = json.loads((run / "similarity.json").read_text(encoding="utf-8"))["problems"][0]
    assert data["starter_files"] == 1
    assert sum(data["histogram"]) == data["possible_pairs"] == 6
    assert data["pairs"] and data["pairs"][0]["regions"]
    assert all(p["score"] < 0.8 for p in data["near_pairs"])
    assert "starter code removed (1 file)" in (run / "similarity.html").read_text(encoding="utf-8")


def test_students_failing_in_the_same_way_are_noted(run):
    rows = json.loads((run / "grade.json").read_text())["submissions"]
    ana = next(r for r in rows if r["id"].endswith("ana.py"))
    if ana.get("behaviour") is None:
        pytest.skip(f"behaviour cannot run here: {ana.get('behaviour_note')}")
    page = (run / "grade.html").read_text(encoding="utf-8")
    listed = re.findall(r"<li>merge: (.*?) &mdash;", page[page.index('id="same-failures"'):])
    assert listed == ["ana, bob"]


def test_the_same_failure_needs_every_counter_example_alike():
    from refscore.classroom.teacher_html import same_failures

    note = "differs on f(1): expected 2, got 3"
    rows = [{"id": n, "problem": "p", "behaviour": 0.5, "behaviour_note": note, "behaviour_agreed": 2,
             "behaviour_inputs": 4} for n in ("a", "b", "c")]
    names = {"a": "Ana", "b": "Bob", "c": "Cid"}
    assert [g.students for g in same_failures(rows, names)] == [("Ana", "Bob", "Cid")]  # the rows alone
    wrong = {"a": (("f(1)", "3"), ("f(2)", "5")), "b": (("f(1)", "3"), ("f(2)", "5")), "c": (("f(1)", "3"), ("f(2)", "4"))}
    assert [g.students for g in same_failures(rows, names, wrong)] == [("Ana", "Bob")]
