"""A realistic class written for tests: 30+ students x 3 problems (Python, Java, a notebook),
with starter code and planted copies, delivered as an LMS would: a Moodle zip or a Canvas folder.

    spec = make_class(30)
    write_moodle_zip(spec, tmp / "moodle.zip"); write_canvas_folder(spec, tmp / "canvas")
    write_refs(spec, tmp)  # refs/, starter/, roster.csv, mapping.toml (submissions = ["CLASS"])

Students' solutions come from a few templates with other names (correct in two styles, partial,
wrong), so many pairs are alike by design: a class for the input side and the grade book, not for
similarity tests. Two more students are on the roster who hand nothing in (``spec.absent``); every
ninth student is late (Canvas marks it).
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken",
         "Radia", "Tim", "Shafi", "Leslie", "Niklaus", "Hedy", "Dennis", "Sophie", "Guido", "Annie"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Hamilton",
        "Thompson", "Perlman", "Lee", "Goldwasser", "Lamport", "Wirth", "Lamarr", "Ritchie", "Wilson", "Rossum",
        "Easley"]

PY_HELPER = "def read_numbers(path):\n    with open(path) as f:\n        return [int(line) for line in f]\n"
PY_STARTER = PY_HELPER + "\n\ndef second_largest(nums):\n    # TODO\n    pass\n"
PY_REF = PY_HELPER + ("\n\ndef second_largest(nums):\n    distinct = sorted(set(nums))\n"
                      "    if len(distinct) < 2:\n        return None\n    return distinct[-2]\n")
PY_VARIANTS = [
    "def second_largest({a}):\n    {b} = sorted(set({a}))\n    if len({b}) < 2:\n        return None\n"
    "    return {b}[-2]\n",
    "def second_largest({a}):\n    {b} = None\n    {c} = None\n    for x in {a}:\n"
    "        if {b} is None or x > {b}:\n            {b}, {c} = x, {b}\n"
    "        elif x != {b} and ({c} is None or x > {c}):\n            {c} = x\n    return {c}\n",
    "def second_largest({a}):\n    return max({a})\n",  # wrong
    "def second_largest({a}):\n    {b} = list({a})\n    {b}.sort()\n    return {b}[-2]\n",  # partial
]
JAVA_STARTER = ("public class Palindrome {\n    static String clean(String s) {\n"
                "        return s.toLowerCase().replaceAll(\"[^a-z]\", \"\");\n    }\n\n"
                "    static boolean isPalindrome(String s) {\n        // TODO\n        return false;\n    }\n}\n")
JAVA_REF = JAVA_STARTER.replace("        // TODO\n        return false;\n",
                                "        String t = clean(s);\n        int i = 0, j = t.length() - 1;\n"
                                "        while (i < j) {\n            if (t.charAt(i++) != t.charAt(j--)) return false;\n"
                                "        }\n        return true;\n")
JAVA_VARIANTS = [
    "        String {b} = clean(s);\n        return new StringBuilder({b}).reverse().toString().equals({b});\n",
    "        String {b} = clean(s);\n        for (int {c} = 0; {c} < {b}.length() / 2; {c}++) {{\n"
    "            if ({b}.charAt({c}) != {b}.charAt({b}.length() - 1 - {c})) return false;\n        }}\n"
    "        return true;\n",
    "        return s.length() > 0;\n",  # wrong
]
NB_REF_CODE = ("def word_count(text):\n    counts = {}\n    for word in text.lower().split():\n"
               "        counts[word] = counts.get(word, 0) + 1\n    return counts\n")
NB_VARIANTS = [
    "def word_count({a}):\n    {b} = {{}}\n    for w in {a}.lower().split():\n        {b}[w] = {b}.get(w, 0) + 1\n"
    "    return {b}\n",
    "from collections import Counter\n\ndef word_count({a}):\n    return dict(Counter({a}.lower().split()))\n",
    "def word_count({a}):\n    return len({a}.split())\n",  # wrong
]
NAMES = [("nums", "ordered", "second"), ("values", "uniq", "runner"), ("xs", "srt", "nxt"), ("data", "ranked", "other"),
         ("arr", "ds", "sec"), ("items", "vals", "below")]


def notebook(cells: list[tuple[str, str]]) -> str:
    """An nbformat 4 notebook with these (kind, source) cells."""
    return json.dumps({"nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
                       "cells": [{"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": src,
                                  **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                                 for i, (kind, src) in enumerate(cells)]}, indent=1)


@dataclass
class Student:
    name: str
    id: str
    files: dict[str, str] = field(default_factory=dict)  # file name -> text (one per problem)
    late: bool = False

    @property
    def canvas_name(self) -> str:
        first, last = self.name.split(" ", 1)
        return (last + first).lower()


@dataclass
class ClassSpec:
    students: list[Student]
    absent: list[Student] = field(default_factory=list)  # on the roster, handed nothing in


def _python(k: int) -> str:
    a, b, c = NAMES[k % len(NAMES)]
    return PY_HELPER + "\n\n" + PY_VARIANTS[k % len(PY_VARIANTS)].format(a=a, b=b, c=c)


def _java(k: int) -> str:
    _, b, c = NAMES[k % len(NAMES)]
    body = JAVA_VARIANTS[k % len(JAVA_VARIANTS)].format(b=b, c=c)
    return JAVA_STARTER.replace("        // TODO\n        return false;\n", body)


def _nb(k: int) -> str:
    a, b, _ = NAMES[(k + 1) % len(NAMES)]
    return notebook([("markdown", f"# Word count\nstudent {k}"),
                     ("code", NB_VARIANTS[k % len(NB_VARIANTS)].format(a=a, b=b)),
                     ("code", "word_count('a b a')")])


def make_class(size: int = 30) -> ClassSpec:
    """``size`` students (two more on the roster who hand nothing in), three problems each."""
    people = [Student(f"{FIRST[i % len(FIRST)]} {LAST[(i * 7) % len(LAST)]}", str(20000 + i)) for i in range(size + 2)]
    for k, student in enumerate(people[:size]):
        student.files = {"second_largest.py": _python(k), "Palindrome.java": _java(k), "word_count.ipynb": _nb(k)}
        student.late = k % 9 == 4
    return ClassSpec(people[:size], people[size:])


def write_moodle_zip(spec: ClassSpec, path: Path) -> Path:
    """The class as Moodle's "Download all submissions" zip."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for student in spec.students:
            for name, text in student.files.items():
                archive.writestr(f"{student.name}_{student.id}_assignsubmission_file_/{name}", text)
    return path


def write_canvas_folder(spec: ClassSpec, folder: Path) -> Path:
    """The class as Canvas's submissions download, unzipped."""
    folder.mkdir(parents=True, exist_ok=True)
    for n, student in enumerate(spec.students):
        late = "_late" if student.late else ""
        for k, (name, text) in enumerate(student.files.items()):
            (folder / f"{student.canvas_name}{late}_{student.id}_{900000 + 10 * n + k}_{name}").write_text(text)
    return folder


def write_refs(spec: ClassSpec, root: Path, source: str) -> Path:
    """References, starter code, the roster and a mapping of the three problems graded from
    ``source`` (relative to ``root``); the mapping's path."""
    (root / "refs").mkdir(parents=True, exist_ok=True)
    (root / "starter").mkdir(exist_ok=True)
    (root / "refs" / "second_largest.py").write_text(PY_REF)
    (root / "refs" / "Palindrome.java").write_text(JAVA_REF)
    (root / "refs" / "word_count.ipynb").write_text(notebook([("markdown", "# Word count"), ("code", NB_REF_CODE)]))
    (root / "starter" / "second_largest.py").write_text(PY_STARTER)
    (root / "starter" / "Palindrome.java").write_text(JAVA_STARTER)
    roster = "Name,ID\n" + "".join(f"{s.name},{s.id}\n" for s in [*spec.students, *spec.absent])
    (root / "roster.csv").write_text(roster)
    mapping = root / "mapping.toml"
    mapping.write_text(
        f'[[problem]]\nname = "second_largest"\nreference = "refs/second_largest.py"\nsubmissions = ["{source}"]\n'
        f'starter = "starter/second_largest.py"\n\n'
        f'[[problem]]\nname = "Palindrome"\nreference = "refs/Palindrome.java"\nsubmissions = ["{source}"]\n'
        f'starter = "starter/Palindrome.java"\n\n'
        f'[[problem]]\nname = "word_count"\nreference = "refs/word_count.ipynb"\nsubmissions = ["{source}"]\n')
    return mapping
