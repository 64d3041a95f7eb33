"""Similarity among students (``metrics.similarity`` over ``analysis.similarity_tokens``), real
tree-sitter throughout: planted copies in a generated class of 30+ students (Python and Java) are
flagged, and no other pair; renaming, reordering functions and comments change nothing; starter
code counts for no one; empty, unparsable and unsupported submissions get a defined status; the
result is the same in every process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from refscore.analysis.similarity_tokens import structural_tokens
from refscore.metrics.similarity import (DEFAULT_THRESHOLD, EMPTY, ONLY_STARTER, TOO_SHORT, UNSUPPORTED, Submission,
                                         compare, fingerprint, pair_score)
from tests.similarity_class import expected_pairs, make_class

REPO = Path(__file__).resolve().parents[2]
EXTENSIONS = {"python": "py", "java": "java"}


def _submissions(language: str, students: int = 30, seed: int = 0) -> tuple[list, list[Submission]]:
    klass = make_class(language, students, seed)
    return klass, [Submission(s.id, structural_tokens(s.text, language)) for s in klass]


@pytest.mark.parametrize("method", ["all", "lsh"])
@pytest.mark.parametrize("language", ["python", "java"])
def test_planted_copies_are_flagged_and_no_other_pair(language: str, method: str) -> None:
    klass, submissions = _submissions(language)
    assert len(klass) >= 33
    result = compare(submissions, DEFAULT_THRESHOLD, method=method)
    flagged = {frozenset((p.first, p.second)) for p in result.pairs}
    assert flagged == expected_pairs(klass)
    assert {frozenset(c) for c in result.clusters} == {frozenset({"s03", "copy_renamed", "copy_commented"}),
                                                       frozenset({"s10", "copy_renamed_2"})}
    assert result.method == method and result.possible == len(klass) * (len(klass) - 1) // 2
    if method == "lsh":
        assert result.compared < result.possible  # candidates only
    for pair in result.pairs:  # the side-by-side view marks lines
        assert pair.first_lines and pair.second_lines


@pytest.mark.parametrize("language", ["python", "java"])
def test_other_classes_have_no_false_flag(language: str) -> None:
    """Another seed, another class: still exactly the planted pairs."""
    klass, submissions = _submissions(language, 40, seed=7)
    result = compare(submissions)
    assert {frozenset((p.first, p.second)) for p in result.pairs} == expected_pairs(klass)


PROGRAM = '''def total(values):
    acc = 0
    for v in values:
        if v > 0:
            acc += v
    return acc


def count_big(values, limit):
    n = 0
    for v in values:
        if v >= limit:
            n = n + 1
    return n
'''
DISGUISED = '''# my own work!
def how_many(xs, bound):
    """Count the big ones."""
    k = 0  # counter
    for item in xs:
        if item >= bound:
            k = k + 1
    return k

def add_positive(numbers):
    s = 0
    for num in numbers:  # loop
        if num > 0:
            s += num
    return s
'''


def test_renaming_reordering_and_comments_change_nothing() -> None:
    first, second = structural_tokens(PROGRAM, "python"), structural_tokens(DISGUISED, "python")
    assert sorted(u.tokens for u in first.units) == sorted(u.tokens for u in second.units)
    assert pair_score(fingerprint(first), fingerprint(second)).score == 1.0


def test_a_different_program_scores_low() -> None:
    other = "def total(values):\n    return sum(v for v in values if v > 0)\n\n\n" \
            "def count_big(values, limit):\n    return len([v for v in values if v >= limit])\n"
    found = pair_score(fingerprint(structural_tokens(PROGRAM, "python")), fingerprint(structural_tokens(other, "python")))
    assert found.score < 0.3


def test_starter_code_counts_for_no_one() -> None:
    starter = PROGRAM
    own_a = starter + "\n\ndef solve(xs):\n    best = None\n    for x in xs:\n        if best is None or x > best:\n" \
                      "            best = x\n    return best\n"
    own_b = starter + "\n\ndef solve(xs):\n    return sorted(xs, key=lambda x: -x)[0] if len(xs) > 0 else None\n"
    subs = [Submission("a", structural_tokens(own_a, "python")), Submission("b", structural_tokens(own_b, "python")),
            Submission("only", structural_tokens(starter, "python"))]
    without = compare(subs, 0.5)
    assert {frozenset((p.first, p.second)) for p in without.pairs} >= {frozenset(("a", "b"))}
    removed = compare(subs, 0.5, starter=[structural_tokens(starter, "python")])
    assert removed.pairs == ()
    assert removed.status == {"a": "compared", "b": "compared", "only": ONLY_STARTER}


def test_empty_unparsable_and_unsupported_submissions_have_a_status() -> None:
    broken = PROGRAM.replace("for v in values:", "for v in values", 1)  # a syntax error, recovered
    subs = [Submission("empty", structural_tokens("", "python")),
            Submission("blank", structural_tokens("\n\n# only a comment\n", "python")),
            Submission("short", structural_tokens("x = 1", "python")),
            Submission("cobol", structural_tokens("DISPLAY 'HI'.", "cobol")),
            Submission("broken", structural_tokens(broken, "python")),
            Submission("fine", structural_tokens(PROGRAM, "python")),
            Submission("escaped", structural_tokens(PROGRAM.replace("acc = 0", "acc = '\udcff'"), "python"))]
    result = compare(subs, 0.8)
    assert result.status == {"empty": EMPTY, "blank": EMPTY, "short": TOO_SHORT, "cobol": UNSUPPORTED,
                             "broken": "compared", "fine": "compared", "escaped": "compared"}
    assert result.syntax_errors == ("broken",)
    # still close to its original; a lone surrogate (an undecodable byte) reads as U+FFFD
    assert {(p.first, p.second) for p in result.pairs} >= {("broken", "fine"), ("fine", "escaped")}
    assert result.compared == 3 and result.possible == 3
    nothing = compare([], 0.8)
    assert nothing.pairs == () and nothing.compared == 0 and nothing.status == {}


def test_bad_arguments_are_one_clear_error() -> None:
    with pytest.raises(ValueError, match="not in 0..1"):
        compare([], 1.5)
    same = structural_tokens(PROGRAM, "python")
    with pytest.raises(ValueError, match="unique"):
        compare([Submission("a", same), Submission("a", same)])


_DUMP = """
import json, sys
from dataclasses import asdict
from refscore.analysis.similarity_tokens import structural_tokens
from refscore.metrics.similarity import Submission, compare
from tests.similarity_class import make_class
subs = [Submission(s.id, structural_tokens(s.text, "java")) for s in make_class("java", 40, 3)]
print(json.dumps(asdict(compare(subs, 0.5, method="lsh")), sort_keys=True))
"""


def test_the_same_result_in_every_process() -> None:
    """LSH candidates, scores and order do not depend on the process (hash seeds) or on repeats."""
    outputs = []
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed,
               "PYTHONPATH": os.pathsep.join([str(REPO / "server"), str(REPO)])}
        done = subprocess.run([sys.executable, "-c", _DUMP], env=env, capture_output=True, text=True, timeout=300,
                              cwd=REPO)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    subs = [Submission(s.id, structural_tokens(s.text, "java")) for s in make_class("java", 40, 3)]
    here = json.loads(json.dumps(asdict(compare(subs, 0.5, method="lsh")), sort_keys=True))
    assert outputs[0] == outputs[1] == here
    assert here["method"] == "lsh" and here["pairs"]


def test_a_class_of_identical_submissions_is_one_group() -> None:
    """150 copies of one program: every pair is flagged, one group holds them all,
    and only the first LINES_FOR pairs get their shared lines (the page shows far fewer)."""
    from refscore.metrics.similarity import LINES_FOR

    same = structural_tokens(PROGRAM, "python")
    subs = [Submission(f"c{i:03d}", same) for i in range(150)]
    result = compare(subs, 0.9)
    assert len(result.pairs) == 150 * 149 // 2 and result.unlisted == 0
    assert result.compared == 0  # the same k-grams: scored once, by their digest
    assert result.clusters == (tuple(s.id for s in subs),)
    assert all(p.first_lines for p in result.pairs[:LINES_FOR])
    assert not any(p.first_lines for p in result.pairs[LINES_FOR:])
    partners = result.partners()
    assert len(partners["c000"]) == 149 and partners["c000"][0] == ("c001", 1.0)


def test_past_max_pairs_the_groups_still_hold_everyone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two groups of 20 identical copies, the groups close to each other: 780 flagged pairs; with
    MAX_PAIRS at 100, the 100 highest are listed, the rest counted, and one group holds all 40."""
    import refscore.metrics.similarity as similarity

    monkeypatch.setattr(similarity, "MAX_PAIRS", 100)
    close = PROGRAM + "\n\ndef extra(values):\n    return values\n"
    subs = [Submission(f"a{i:02d}", structural_tokens(PROGRAM, "python")) for i in range(20)]
    subs += [Submission(f"b{i:02d}", structural_tokens(close, "python")) for i in range(20)]
    result = compare(subs, 0.7, method="lsh")
    assert len(result.pairs) == 100 and result.unlisted == 780 - 100
    assert result.compared == 1  # one exact score: the two structures
    assert all(p.score == 1.0 for p in result.pairs)
    assert result.clusters == (tuple(s.id for s in subs),)
    assert compare(subs, 0.7, method="lsh") == result


OTHER_LANGUAGES = {
    "javascript": ("function total(values) {\n  let acc = 0;\n  for (const v of values) { if (v > 0) acc += v; }\n"
                   "  return acc;\n}\nfunction countBig(values, limit) {\n  let n = 0;\n"
                   "  for (let i = 0; i < values.length; i++) { if (values[i] >= limit) n++; }\n  return n;\n}\n",
                   "// mine\nfunction howMany(xs, bound) {\n  let k = 0; // c\n"
                   "  for (let j = 0; j < xs.length; j++) { if (xs[j] >= bound) k++; }\n  return k;\n}\n"
                   "/* block */\nfunction addPos(nums) {\n  let s = 0;\n  for (const num of nums) { if (num > 0) s += num; }\n"
                   "  return s;\n}\n"),
    "cpp": ("int total(const std::vector<int>& values) {\n  int acc = 0;\n  for (int v : values) { if (v > 0) acc += v; }\n"
            "  return acc;\n}\nint countBig(const std::vector<int>& values, int limit) {\n  int n = 0;\n"
            "  for (size_t i = 0; i < values.size(); i++) { if (values[i] >= limit) n++; }\n  return n;\n}\n",
            "// mine\nint howMany(const std::vector<int>& xs, int bound) {\n  int k = 0; // c\n"
            "  for (size_t j = 0; j < xs.size(); j++) { if (xs[j] >= bound) k++; }\n  return k;\n}\n"
            "int addPos(const std::vector<int>& nums) {\n  int s = 0;\n  for (int num : nums) { if (num > 0) s += num; }\n"
            "  return s;\n}\n"),
    "go": ("package main\n\nfunc total(values []int) int {\n\tacc := 0\n\tfor _, v := range values {\n\t\tif v > 0 {\n"
           "\t\t\tacc += v\n\t\t}\n\t}\n\treturn acc\n}\n\nfunc countBig(values []int, limit int) int {\n\tn := 0\n"
           "\tfor i := 0; i < len(values); i++ {\n\t\tif values[i] >= limit {\n\t\t\tn++\n\t\t}\n\t}\n\treturn n\n}\n",
           "package main\n\n// mine\nfunc howMany(xs []int, bound int) int {\n\tk := 0\n\tfor j := 0; j < len(xs); j++ {\n"
           "\t\tif xs[j] >= bound {\n\t\t\tk++\n\t\t}\n\t}\n\treturn k\n}\n\nfunc addPos(nums []int) int {\n\ts := 0\n"
           "\tfor _, num := range nums {\n\t\tif num > 0 {\n\t\t\ts += num\n\t\t}\n\t}\n\treturn s\n}\n"),
}


@pytest.mark.parametrize("language", sorted(OTHER_LANGUAGES))
def test_disguised_copies_in_other_languages(language: str) -> None:
    """The registry's other languages: renamed, reordered and commented, still the same program."""
    original, disguised = OTHER_LANGUAGES[language]
    found = pair_score(fingerprint(structural_tokens(original, language)),
                       fingerprint(structural_tokens(disguised, language)))
    assert found.score == 1.0
    assert [u.name for u in structural_tokens(original, language).units if u.name != "<module>"] == ["total", "countBig"]
