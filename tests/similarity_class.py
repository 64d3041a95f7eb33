"""A generated class of students' submissions to one problem (Python or Java), with planted copies.

Every student writes the same five or six functions of a "grades statistics" problem, each in one
of five structurally different ways (loops, builtins, comprehensions, while loops...), with their
own names for every variable and function, in their own order. The students of a class share at
most two ways of writing a function with any other student (``distinct_choices``), so no two of
them are the same program; the planted copies are: ``copy_renamed`` (another student's program,
every name changed and the functions reordered) and ``copy_commented`` (the same program with
comments and docstrings added). Used by tests/grade/test_similarity*.py and benchmarks/bench_similarity.py.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from string import Template

WORDS = ("x", "y", "z", "total", "acc", "n", "count", "s", "vals", "data", "items", "k", "idx", "res", "out",
         "tmp", "cur", "best", "mid", "size", "arr", "nums", "scores", "marks", "lim", "cut", "th", "pos", "j",
         "m", "q", "w", "value", "item", "entry", "points", "grade", "num", "length", "half", "low",
         "high_", "ordered", "result", "answer", "sum_", "running", "tally", "limit", "bound", "score", "mark",
         "level", "seq", "lst", "xs", "ys", "el", "elem", "first", "last", "pair", "key", "rank", "step")
FUNCTION_WORDS = {
    "mean": ("mean", "average", "avg", "mean_of", "compute_mean", "get_average", "averageOf", "meanScore"),
    "median": ("median", "middle", "med", "median_of", "compute_median", "getMedian", "mid_value"),
    "high": ("highest", "maximum", "top", "best_score", "max_of", "getMax", "largest"),
    "passing": ("passing", "count_passing", "passed", "num_pass", "countAbove", "how_many_passed"),
    "letter": ("letter", "to_letter", "grade_letter", "letterGrade", "band", "classify"),
    "report": ("report", "summary", "describe", "make_report", "summarize", "overview"),
}

PYTHON = {
    "mean": (
        "def $mean($v):\n    $a = 0\n    for $b in $v:\n        $a += $b\n    return $a / len($v) if $v else 0.0\n",
        "def $mean($v):\n    if not $v:\n        return 0.0\n    return sum($v) / len($v)\n",
        "def $mean($v):\n    $a = 0\n    $b = 0\n    $c = 0\n    while $c < len($v):\n        $a = $a + $v[$c]\n"
        "        $b += 1\n        $c += 1\n    if $b == 0:\n        return 0\n    return $a / $b\n",
        "def $mean($v):\n    return sum($v) / max(1, len($v))\n",
        "def $mean($v):\n    $a = [0, 0]\n    for $b in $v:\n        $a[0] += $b\n        $a[1] += 1\n"
        "    return $a[0] / $a[1] if $a[1] else 0.0\n",
    ),
    "median": (
        "def $median($v):\n    $a = sorted($v)\n    $b = len($a)\n    if $b == 0:\n        return 0\n    $c = $b // 2\n"
        "    if $b % 2:\n        return $a[$c]\n    return ($a[$c - 1] + $a[$c]) / 2\n",
        "def $median($v):\n    import statistics\n    return statistics.median($v) if $v else 0\n",
        "def $median($v):\n    $a = list($v)\n    $a.sort()\n    while len($a) > 2:\n        $a.pop(0)\n        $a.pop()\n"
        "    return sum($a) / len($a) if $a else 0\n",
        "def $median($v):\n    $a = sorted($v)\n    if not $a:\n        return 0\n    $b, $c = divmod(len($a), 2)\n"
        "    return $a[$b] if $c else sum($a[$b - 1:$b + 1]) / 2\n",
        "def $median($v):\n    $a = {}\n    for $b in sorted($v):\n        $a[len($a)] = $b\n    $c = len($a)\n"
        "    return 0 if not $c else ($a[($c - 1) // 2] + $a[$c // 2]) / 2\n",
    ),
    "high": (
        "def $high($v):\n    return max($v) if $v else None\n",
        "def $high($v):\n    $a = None\n    for $b in $v:\n        if $a is None or $b > $a:\n            $a = $b\n    return $a\n",
        "def $high($v):\n    if len($v) == 0:\n        return None\n    return sorted($v, reverse=True)[0]\n",
        "def $high($v):\n    $a = $v[0] if $v else None\n    for $b in range(1, len($v)):\n        if $v[$b] > $a:\n"
        "            $a = $v[$b]\n    return $a\n",
        "def $high($v):\n    $a = list($v)\n    while len($a) > 1:\n        $a.remove(min($a))\n    return $a[0] if $a else None\n",
    ),
    "passing": (
        "def $passing($v, $t=50):\n    return len([$a for $a in $v if $a >= $t])\n",
        "def $passing($v, $t=50):\n    $a = 0\n    for $b in $v:\n        if $b >= $t:\n            $a += 1\n    return $a\n",
        "def $passing($v, $t=50):\n    return sum(1 for $a in $v if $a >= $t)\n",
        "def $passing($v, $t=50):\n    return len(list(filter(lambda $a: $a >= $t, $v)))\n",
        "def $passing($v, $t=50):\n    $a = sorted($v)\n    $b = 0\n    while $b < len($a) and $a[$b] < $t:\n        $b += 1\n"
        "    return len($a) - $b\n",
    ),
    "letter": (
        "def $letter($v):\n    if $v >= 90:\n        return 'A'\n    elif $v >= 80:\n        return 'B'\n    elif $v >= 70:\n"
        "        return 'C'\n    elif $v >= 60:\n        return 'D'\n    return 'F'\n",
        "def $letter($v):\n    for $a, $b in ((90, 'A'), (80, 'B'), (70, 'C'), (60, 'D')):\n        if $v >= $a:\n"
        "            return $b\n    return 'F'\n",
        "def $letter($v):\n    return 'FFFFFFDCBAA'[min(int($v) // 10, 10)]\n",
        "def $letter($v):\n    $a = [60, 70, 80, 90]\n    $b = 'FDCBA'\n    $c = 0\n    while $c < len($a) and $v >= $a[$c]:\n"
        "        $c += 1\n    return $b[$c]\n",
        "def $letter($v):\n    $a = {9: 'A', 10: 'A', 8: 'B', 7: 'C', 6: 'D'}\n    return $a.get(int($v) // 10, 'F')\n",
    ),
    "report": (
        "def $report($v):\n    print(f'mean {$mean($v):.1f}')\n    print(f'median {$median($v)}')\n"
        "    print(f'top {$high($v)}')\n    print(f'passed {$passing($v)}')\n",
        "def $report($v):\n    return {'mean': $mean($v), 'median': $median($v), 'max': $high($v), "
        "'passing': $passing($v), 'letters': [$letter($a) for $a in $v]}\n",
        "def $report($v):\n    $a = []\n    $a.append('mean=' + str($mean($v)))\n    $a.append('median=' + str($median($v)))\n"
        "    $a.append('max=' + str($high($v)))\n    return '\\n'.join($a)\n",
        "def $report($v):\n    $a = ($mean, $median, $high, $passing)\n    return tuple($b($v) for $b in $a)\n",
        "def $report($v):\n    $a = {}\n    for $b in $v:\n        $c = $letter($b)\n        $a[$c] = $a.get($c, 0) + 1\n"
        "    return $a, $mean($v), $passing($v)\n",
    ),
}

JAVA = {
    "mean": (
        "    static double $mean(int[] $v) {\n        int $a = 0;\n        for (int $b : $v) {\n            $a += $b;\n        }\n"
        "        return $v.length == 0 ? 0.0 : (double) $a / $v.length;\n    }\n",
        "    static double $mean(int[] $v) {\n        if ($v.length == 0) {\n            return 0.0;\n        }\n"
        "        return java.util.Arrays.stream($v).average().orElse(0.0);\n    }\n",
        "    static double $mean(int[] $v) {\n        double $a = 0;\n        int $b = 0;\n        while ($b < $v.length) {\n"
        "            $a = $a + $v[$b];\n            $b++;\n        }\n        if ($b == 0) return 0;\n        return $a / $b;\n    }\n",
        "    static double $mean(int[] $v) {\n        long $a = 0;\n        for (int $b = 0; $b < $v.length; $b++) $a += $v[$b];\n"
        "        return $a / (double) Math.max(1, $v.length);\n    }\n",
        "    static double $mean(int[] $v) {\n        double[] $a = new double[2];\n        for (int $b : $v) {\n"
        "            $a[0] += $b;\n            $a[1] += 1;\n        }\n        return $a[1] > 0 ? $a[0] / $a[1] : 0.0;\n    }\n",
    ),
    "median": (
        "    static double $median(int[] $v) {\n        int[] $a = $v.clone();\n        java.util.Arrays.sort($a);\n"
        "        int $b = $a.length;\n        if ($b == 0) return 0;\n        if ($b % 2 == 1) return $a[$b / 2];\n"
        "        return ($a[$b / 2 - 1] + $a[$b / 2]) / 2.0;\n    }\n",
        "    static double $median(int[] $v) {\n        java.util.List<Integer> $a = new java.util.ArrayList<>();\n"
        "        for (int $b : $v) $a.add($b);\n        java.util.Collections.sort($a);\n        while ($a.size() > 2) {\n"
        "            $a.remove(0);\n            $a.remove($a.size() - 1);\n        }\n"
        "        return $a.isEmpty() ? 0 : $a.stream().mapToInt(Integer::intValue).average().getAsDouble();\n    }\n",
        "    static double $median(int[] $v) {\n        return java.util.Arrays.stream($v).sorted().skip(Math.max(0, ($v.length - 1) / 2))"
        ".limit($v.length % 2 == 0 ? 2 : 1).average().orElse(0);\n    }\n",
        "    static double $median(int[] $v) {\n        int[] $a = java.util.Arrays.copyOf($v, $v.length);\n"
        "        for (int $b = 1; $b < $a.length; $b++) {\n            int $c = $b;\n            while ($c > 0 && $a[$c - 1] > $a[$c]) {\n"
        "                int $d = $a[$c];\n                $a[$c] = $a[$c - 1];\n                $a[$c - 1] = $d;\n                $c--;\n"
        "            }\n        }\n        if ($a.length == 0) return 0;\n"
        "        return ($a[($a.length - 1) / 2] + $a[$a.length / 2]) / 2.0;\n    }\n",
        "    static double $median(int[] $v) {\n        java.util.TreeMap<Integer, Integer> $a = new java.util.TreeMap<>();\n"
        "        for (int $b : $v) $a.merge($b, 1, Integer::sum);\n        int $c = 0;\n"
        "        for (java.util.Map.Entry<Integer, Integer> $d : $a.entrySet()) {\n            $c += $d.getValue();\n"
        "            if (2 * $c >= $v.length) return $d.getKey();\n        }\n        return 0;\n    }\n",
    ),
    "high": (
        "    static int $high(int[] $v) {\n        int $a = Integer.MIN_VALUE;\n        for (int $b : $v) {\n"
        "            if ($b > $a) $a = $b;\n        }\n        return $a;\n    }\n",
        "    static int $high(int[] $v) {\n        return java.util.Arrays.stream($v).max().orElse(0);\n    }\n",
        "    static int $high(int[] $v) {\n        if ($v.length == 0) return 0;\n        int $a = $v[0];\n"
        "        for (int $b = 1; $b < $v.length; $b++) {\n            $a = Math.max($a, $v[$b]);\n        }\n        return $a;\n    }\n",
        "    static int $high(int[] $v) {\n        int[] $a = $v.clone();\n        java.util.Arrays.sort($a);\n"
        "        return $a.length > 0 ? $a[$a.length - 1] : 0;\n    }\n",
        "    static int $high(int[] $v) {\n        int $a = 0;\n        int $b = 0;\n        while ($b < $v.length) {\n"
        "            if ($b == 0 || $v[$b] > $a) {\n                $a = $v[$b];\n            }\n            $b += 1;\n        }\n"
        "        return $a;\n    }\n",
    ),
    "passing": (
        "    static int $passing(int[] $v, int $t) {\n        int $a = 0;\n        for (int $b : $v) {\n"
        "            if ($b >= $t) {\n                $a++;\n            }\n        }\n        return $a;\n    }\n",
        "    static int $passing(int[] $v, int $t) {\n        return (int) java.util.Arrays.stream($v).filter($a -> $a >= $t).count();\n    }\n",
        "    static int $passing(int[] $v, int $t) {\n        int $a = $v.length;\n        for (int $b = 0; $b < $v.length; $b++)\n"
        "            if ($v[$b] < $t) $a--;\n        return $a;\n    }\n",
        "    static int $passing(int[] $v, int $t) {\n        int[] $a = $v.clone();\n        java.util.Arrays.sort($a);\n"
        "        int $b = 0;\n        while ($b < $a.length && $a[$b] < $t) $b++;\n        return $a.length - $b;\n    }\n",
        "    static int $passing(int[] $v, int $t) {\n        java.util.List<Integer> $a = new java.util.ArrayList<>();\n"
        "        for (int $b : $v) {\n            if ($b >= $t) $a.add($b);\n        }\n        return $a.size();\n    }\n",
    ),
    "letter": (
        "    static char $letter(int $v) {\n        if ($v >= 90) return 'A';\n        else if ($v >= 80) return 'B';\n"
        "        else if ($v >= 70) return 'C';\n        else if ($v >= 60) return 'D';\n        return 'F';\n    }\n",
        "    static char $letter(int $v) {\n        int[] $a = {90, 80, 70, 60};\n        char[] $b = {'A', 'B', 'C', 'D'};\n"
        "        for (int $c = 0; $c < $a.length; $c++) {\n            if ($v >= $a[$c]) return $b[$c];\n        }\n"
        "        return 'F';\n    }\n",
        "    static char $letter(int $v) {\n        return \"FFFFFFDCBAA\".charAt(Math.min($v / 10, 10));\n    }\n",
        "    static char $letter(int $v) {\n        switch ($v / 10) {\n            case 10:\n            case 9: return 'A';\n"
        "            case 8: return 'B';\n            case 7: return 'C';\n            case 6: return 'D';\n"
        "            default: return 'F';\n        }\n    }\n",
        "    static char $letter(int $v) {\n        String $a = \"DCBA\";\n        int $b = ($v - 50) / 10;\n"
        "        if ($b < 1) return 'F';\n        return $a.charAt(Math.min($b, 4) - 1);\n    }\n",
    ),
}

COMMENTS = {"python": "# ", "java": "// "}


@dataclass(frozen=True)
class Student:
    """One submission: id, source text, and which student it was copied from (None: own work)."""

    id: str
    text: str
    copied_from: str | None = None


def distinct_choices(count: int, slots: int, variants: int = 5, share: int = 2, seed: int = 0) -> list[tuple[int, ...]]:
    """``count`` variant choices, one per slot, any two agreeing on at most ``share`` slots."""
    rng = random.Random(seed)
    chosen: list[tuple[int, ...]] = []
    attempts = 0
    while len(chosen) < count:
        attempts += 1
        if attempts > 200_000:
            raise RuntimeError(f"cannot find {count} distinct students")
        pick = tuple(rng.randrange(variants) for _ in range(slots))
        if share >= slots or all(sum(a == b for a, b in zip(pick, other)) <= share for other in chosen):
            chosen.append(pick)
    return chosen


def _names(rng: random.Random) -> dict[str, str]:
    names = {key: rng.choice(words) for key, words in FUNCTION_WORDS.items()}
    local = rng.sample(WORDS, 6)
    names.update(zip(("v", "t", "a", "b", "c", "d"), local))
    return names


def render(language: str, choice: tuple[int, ...], rng: random.Random, comments: bool = False) -> str:
    """One student's program: each slot's variant, the student's names, in a shuffled order."""
    table = PYTHON if language == "python" else JAVA
    names = _names(rng)
    slots = list(zip(table, choice))
    rng.shuffle(slots)
    parts = []
    for slot, variant in slots:
        body = Template(table[slot][variant]).substitute(names)
        if comments:
            marker = COMMENTS[language]
            indent = "    " if language == "python" else "        "
            lines = body.split("\n")
            lines.insert(1, f"{indent}{marker}{slot}: written for the assignment, step by step")
            if language == "python":
                lines.insert(1, f'{indent}"""Compute the {slot} of the class\'s grades."""')
            body = f"{marker}--- {slot} ---\n" + "\n".join(lines)
        parts.append(body)
    if language == "python":
        return "\n\n".join(parts) + "\n"
    head = f"public class {rng.choice(('Grades', 'Main', 'Stats', 'Solution', 'Assignment'))} {{\n"
    return head + "\n".join(parts) + "}\n"


def make_class(language: str, students: int = 30, seed: int = 0, share: int = 2) -> list[Student]:
    """``students`` own submissions plus the planted copies: s03 copied as ``copy_renamed`` and
    ``copy_commented``; s10 copied as ``copy_renamed_2`` (renamed, reordered, comments added).
    ``share``: the most ways of writing a function two students have in common (a large class
    needs more than 2: five functions written five ways give about 40 students sharing 2)."""
    table = PYTHON if language == "python" else JAVA
    rng = random.Random(seed)
    picks = distinct_choices(students, len(table), share=share, seed=seed)
    out: list[Student] = []
    texts: dict[str, tuple[tuple[int, ...], int]] = {}
    for number, pick in enumerate(picks, 1):
        student_seed = rng.randrange(1 << 30)
        sid = f"s{number:02d}" if students < 100 else f"s{number:04d}"
        texts[sid] = (pick, student_seed)
        out.append(Student(sid, render(language, pick, random.Random(student_seed))))
    first, second = out[2].id, out[9].id
    planted = (("copy_renamed", first, False), ("copy_commented", first, True), ("copy_renamed_2", second, True))
    for sid, source, comments in planted:
        pick, student_seed = texts[source]
        if sid == "copy_commented":  # same names and order, comments added
            text = render(language, pick, random.Random(student_seed), comments=True)
        else:  # other names, other order (and comments in the second)
            text = render(language, pick, random.Random(rng.randrange(1 << 30)), comments=comments)
        out.append(Student(sid, text, source))
    return out


def expected_pairs(students: list[Student]) -> set[frozenset[str]]:
    """The pairs a similarity check should flag: each copy with its original and with the other
    copies of the same original."""
    groups: dict[str, set[str]] = {}
    for s in students:
        if s.copied_from:
            groups.setdefault(s.copied_from, {s.copied_from}).add(s.id)
    return {frozenset((a, b)) for group in groups.values() for a in group for b in group if a < b}


#: Code handed out to every student (``--starter``): helpers they keep as given, then their own work.
PYTHON_STARTER = '''import csv
import sys


def read_grades(path):
    """Read one column of grades from a CSV file; skip rows that are not numbers."""
    grades = []
    with open(path, newline="") as handle:
        for row in csv.reader(handle):
            if not row:
                continue
            try:
                grades.append(float(row[0]))
            except ValueError:
                print("skipping", row[0], file=sys.stderr)
    return grades


def validate(grades, low=0, high=100):
    """Every grade between low and high, or a message naming the first that is not."""
    for index, grade in enumerate(grades):
        if grade < low or grade > high:
            return f"grade {index + 1} is {grade}, not between {low} and {high}"
    return None


def print_table(rows, width=12):
    """Rows of (label, value) as a two-column table."""
    print("-" * (2 * width + 3))
    for label, value in rows:
        shown = f"{value:.2f}" if isinstance(value, float) else str(value)
        print(f"| {label:<{width}}|{shown:>{width}} |")
    print("-" * (2 * width + 3))


def main(argv):
    if len(argv) != 2:
        print("usage: grades.py FILE", file=sys.stderr)
        return 2
    grades = read_grades(argv[1])
    problem = validate(grades)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    print_table([("count", len(grades)), ("lowest", min(grades)), ("highest", max(grades))])
    return 0
'''
