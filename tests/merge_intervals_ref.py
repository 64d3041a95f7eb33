"""The reference of the feedback, teacher-page and similarity tests (issue 42): merging intervals,
with the docstring example behaviour makes its inputs from; its starter code; and four students
(Ana and Bob: the same program with the same bug, functions swapped and renamed; Cid: correct,
written another way; Dee: the reference renamed)."""

import re
from pathlib import Path

MERGE = '''def merge_intervals(intervals):
    """Merge overlapping intervals.

    >>> merge_intervals([[1, 3], [2, 4], [6, 8]])
    [[1, 4], [6, 8]]
    """
    result = []
    for start, end in sorted(intervals):
        if result and start <= result[-1][1]:
            result[-1][1] = max(result[-1][1], end)
        else:
            result.append([start, end])
    return result
'''

STARTER = "def merge_intervals(intervals):\n    pass\n"
ANA = '''def touches(last, start):
    return start < last[1]


def merge_intervals(intervals):
    out = []
    for a, b in intervals:
        if out and touches(out[-1], a):
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out
'''
# Ana's two functions, swapped and renamed: the same program, the same bug
BOB = '''def merge_intervals(xs):
    res = []
    for lo, hi in xs:
        if res and near(res[-1], lo):
            res[-1][1] = max(res[-1][1], hi)
        else:
            res.append([lo, hi])
    return res


def near(prev, lo):
    return lo < prev[1]
'''
CID = '''def merge_intervals(intervals):
    ordered = sorted(intervals, key=lambda pair: pair[0])
    merged = []
    index = 0
    while index < len(ordered):
        low, high = ordered[index]
        index += 1
        while index < len(ordered) and ordered[index][0] <= high:
            high = max(high, ordered[index][1])
            index += 1
        merged.append([low, high])
    return merged
'''
DEE = re.sub(r"\bend\b", "e", re.sub(r"\bstart\b", "s", MERGE.replace("result", "acc")))

CLAMP = '''def clamp(x, lo, hi):
    """Clamp x into [lo, hi].

    >>> clamp(5, 0, 3)
    3
    """
    return max(lo, min(x, hi))
'''


def write_canvas_class(root: Path, files: dict[str, str]) -> None:
    """A Canvas download of ``files`` (name -> text) in ``root``/canvas, the two references and
    ``class.toml`` mapping problems merge and clamp onto it."""
    (root / "refs").mkdir()
    (root / "refs" / "merge.py").write_text(MERGE)
    (root / "refs" / "clamp.py").write_text(CLAMP)
    (root / "canvas").mkdir()
    for name, text in files.items():
        (root / "canvas" / name).write_text(text)
    (root / "class.toml").write_text(
        '[[problem]]\nname = "merge"\nreference = "refs/merge.py"\nsubmissions = ["canvas"]\npattern = "merge.py"\n\n'
        '[[problem]]\nname = "clamp"\nreference = "refs/clamp.py"\nsubmissions = ["canvas"]\npattern = "clamp.py"\n')
