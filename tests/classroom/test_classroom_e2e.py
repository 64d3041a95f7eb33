"""Issue 23's "Done when", end to end through the real ``refscore grade`` (CodeBLEU only: no model).

A class of 33 students (30 of their own work, 3 planted copiers) hands in three problems: a
Python program (with the teacher's starter code), a Java class and a Jupyter notebook (with a
starter cell). It arrives twice, as a Moodle "download all submissions" zip and as a Canvas
submissions folder. Checked: each student's points against the rubric applied by hand to the
report's scores, the same points from both deliveries, the Canvas and Moodle CSVs (columns and
values), a Gradescope ``results.json`` validated against the schema written from Gradescope's
documented format, the per-student feedback pages (no reference code in a ``hints`` page, also
as headless Chromium renders it), and that the similarity report flags the planted copies
(renamed variables and reordered functions; comments added) and no other pair.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import jsonschema
import pytest

from refscore.cli import main
from tests.similarity_class import PYTHON_STARTER, expected_pairs, make_class, render

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "tests" / "data" / "classroom" / "gradescope-results.schema.json"
CHROMIUM = "/usr/bin/chromium"
FIRST = ("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Katherine", "Linus", "Margaret",
         "Niklaus", "Radia", "Ken", "Shafi", "Tim", "Yukihiro", "Guido", "Hedy", "Annie", "Dennis", "Sophie",
         "Leslie", "Tony", "Anita", "Bjarne", "Carol", "Dorothy", "Elena", "Fran", "Gustavo", "Hana", "Ivan")
LAST = ("Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Johnson", "Torvalds",
        "Hamilton", "Wirth", "Perlman", "Thompson", "Goldwasser", "Berners", "Matsumoto", "Rossum", "Lamarr",
        "Easley", "Ritchie", "Wilson", "Lamport", "Hoare", "Borg", "Stroustrup", "Shaw", "Vaughan", "Ortiz",
        "Bilas", "Pereira", "Novak", "Sutherland")
NOTEBOOK_STARTER = "import statistics\n\n\ndef clean(grades):\n    return [g for g in grades if g is not None]\n"
RUBRIC = '''title = "Week 6 (4242)"
fallback = "codebleu"
points = 10
bands = { ">= 0.5" = 10, ">= 0.35" = 7, ">= 0.2" = 4, "> 0.0" = 1 }

[problem.java_stats]
points = 20
linear = { floor = 0.1, ceiling = 0.6 }
step = 0.5
'''
BANDS = [(0.5, True, 10), (0.35, True, 7), (0.2, True, 4), (0.0, False, 1)]
pytestmark = pytest.mark.timeout(600)


def notebook(cells: list[tuple[str, str]]) -> str:
    """An nbformat 4 notebook of (kind, source) cells."""
    body = [{"cell_type": kind, "metadata": {}, "source": text,
             **({"outputs": [], "execution_count": None} if kind == "code" else {})} for kind, text in cells]
    return json.dumps({"cells": body, "nbformat": 4, "nbformat_minor": 4,
                       "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}})


def as_cells(text: str) -> list[tuple[str, str]]:
    """A program as a notebook: a title, the starter cell, then one code cell per function."""
    chunks = [c for c in text.split("\n\n") if c.strip()]
    return [("markdown", "# Grade report"), ("code", NOTEBOOK_STARTER), *(("code", c) for c in chunks)]


class Klass:
    """The generated class: every student's three files, who copied whom, and the references."""

    def __init__(self) -> None:
        self.python = make_class("python", 30, seed=3)
        self.java = make_class("java", 30, seed=4)
        self.notebook = make_class("python", 30, seed=5)
        ids = [s.id for s in self.python]
        assert ids == [s.id for s in self.java] == [s.id for s in self.notebook] and len(ids) == 33
        self.people = {sid: (f"{FIRST[i]} {LAST[i]}", str(2001 + i), str(3001 + i)) for i, sid in enumerate(ids)}
        self.files = {sid: {"grades.py": PYTHON_STARTER + "\n\n" + py.text, "Grades.java": jv.text,
                            "report.ipynb": notebook(as_cells(nb.text))}
                      for sid, py, jv, nb in zip(ids, self.python, self.java, self.notebook)}
        self.copied = {"py_stats": expected_pairs(self.python), "java_stats": expected_pairs(self.java),
                       "nb_report": expected_pairs(self.notebook)}
        self.ref_python = PYTHON_STARTER + "\n\n" + render("python", (0, 1, 0, 1, 0, 1), random.Random(90))
        self.ref_java = render("java", (1, 0, 1, 0, 1, 0), random.Random(91))
        self.ref_notebook = render("python", (1, 1, 0, 0, 1, 1), random.Random(92))

    def write_common(self, root: Path) -> None:
        (root / "refs").mkdir(parents=True)
        (root / "refs" / "grades.py").write_text(self.ref_python)
        (root / "refs" / "Grades.java").write_text(self.ref_java)
        (root / "refs" / "report.ipynb").write_text(notebook(as_cells(self.ref_notebook)))
        (root / "given").mkdir()
        (root / "given" / "grades.py").write_text(PYTHON_STARTER)
        (root / "given" / "report.ipynb").write_text(notebook([("code", NOTEBOOK_STARTER)]))
        (root / "rubric.toml").write_text(RUBRIC)

    def mapping(self, root: Path, source: str) -> Path:
        lines = []
        for name, ref, pattern, starter in (("py_stats", "grades.py", "grades.py", "given/grades.py"),
                                            ("java_stats", "Grades.java", "Grades.java", None),
                                            ("nb_report", "report.ipynb", "report.ipynb", "given/report.ipynb")):
            lines += ["[[problem]]", f'name = "{name}"', f'reference = "refs/{ref}"', f'submissions = ["{source}"]',
                      f'pattern = "{pattern}"', *([f'starter = "{starter}"'] if starter else []), ""]
        path = root / f"{Path(source).stem}.toml"
        path.write_text("\n".join(lines))
        return path

    def moodle_zip(self, path: Path) -> None:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for sid, files in self.files.items():
                name, moodle, _ = self.people[sid]
                for file, text in files.items():
                    archive.writestr(f"{name}_{moodle}_assignsubmission_file_/{file}", text)

    def canvas_folder(self, folder: Path) -> None:
        folder.mkdir()
        for number, (sid, files) in enumerate(self.files.items()):
            name, _, canvas = self.people[sid]
            login = "".join(reversed(name.lower().split()))
            for index, (file, text) in enumerate(files.items()):
                (folder / f"{login}_{canvas}_{90000 + 3 * number + index}_{file}").write_text(text)


@pytest.fixture(scope="module")
def klass() -> Klass:
    return Klass()


def _grade(root: Path, mapping: Path, out: Path, *extra: str) -> int:
    return main(["grade", "--mapping", str(mapping), "--metrics", "codebleu", "-o", str(out), "--rubric",
                 str(root / "rubric.toml"), "--similarity", "-q", *extra])


@pytest.fixture(scope="module")
def runs(klass, tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    klass.write_common(root)
    klass.moodle_zip(root / "week6.zip")
    klass.canvas_folder(root / "canvas")
    assert _grade(root, klass.mapping(root, "week6.zip"), root / "moodle-out") == 0
    assert _grade(root, klass.mapping(root, "canvas"), root / "canvas-out", "--assignment", "Week 6 (4242)") == 0
    return root


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _by_hand(problem: str, score: float | None) -> float:
    """The rubric applied by hand: bands for two problems, linear 0.1..0.6 in 0.5 steps for Java."""
    if score is None:
        return 0.0
    if problem == "java_stats":
        share = min(1.0, max(0.0, (score - 0.1) / 0.5))
        return math.floor(share * 20 / 0.5 + 1e-9) * 0.5
    return next((points for low, inclusive, points in BANDS if (score >= low if inclusive else score > low)), 0)


def _expected_points(report: dict) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for row in report["submissions"]:
        if row["student"]:
            out.setdefault(row["student"], {})[row["problem"]] = _by_hand(row["problem"], row["codebleu_native"])
    return out


@pytest.mark.parametrize("delivery", ["moodle", "canvas"])
def test_points_per_student_follow_the_rubric(runs, klass, delivery):
    out = runs / f"{delivery}-out"
    report = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    rows = report["submissions"]
    assert len(rows) == 33 * 3 and not [r for r in rows if r["errors"]], [r["errors"] for r in rows if r["errors"]][:3]
    assert {r["problem"] for r in rows} == {"py_stats", "java_stats", "nb_report"}
    assert report["settings"]["classes"][0]["layout"] == delivery
    expected = _expected_points(report)
    points = _csv(out / "points.csv")
    assert len(points) == 33 and list(points[0]) == ["student", "student_id", "py_stats", "java_stats", "nb_report",
                                                     "late_days", "late_points", "total", "max_total", "notes"]
    for row in points:
        mine = expected[row["student"]]
        assert {p: float(row[p]) for p in mine} == pytest.approx(mine), row["student"]
        assert float(row["total"]) == pytest.approx(sum(mine.values())) and row["max_total"] == "40"
    totals = sorted(float(r["total"]) for r in points)
    assert totals[0] < totals[-1]  # the rubric tells the students apart


def test_both_deliveries_give_every_student_the_same_points(runs, klass):
    moodle = {r["student"]: r for r in _csv(runs / "moodle-out" / "points.csv")}
    canvas = {r["student"]: r for r in _csv(runs / "canvas-out" / "points.csv")}
    for name, _, _ in klass.people.values():
        login = "".join(reversed(name.lower().split()))
        assert moodle[name]["total"] == canvas[login]["total"], name


def test_canvas_and_moodle_csvs(runs, klass):
    canvas = list(csv.reader((runs / "canvas-out" / "canvas.csv").open(encoding="utf-8", newline="")))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Week 6 (4242)"]
    assert canvas[1] == ["    Points Possible", "", "", "", "", "40"]
    points = {r["student_id"]: r["total"] for r in _csv(runs / "canvas-out" / "points.csv")}
    ids = {canvas_id for _, _, canvas_id in klass.people.values()}
    assert {row[1] for row in canvas[2:]} == ids and len(canvas) == 2 + 33
    assert all(row[5] == points[row[1]] for row in canvas[2:])
    moodle = _csv(runs / "moodle-out" / "moodle.csv")
    assert list(moodle[0]) == ["Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments"]
    people = {moodle_id: name for name, moodle_id, _ in klass.people.values()}
    totals = {r["student"]: r["total"] for r in _csv(runs / "moodle-out" / "points.csv")}
    assert {r["Identifier"] for r in moodle} == {f"Participant {m}" for m in people}
    for row in moodle:
        name = people[row["Identifier"].split()[-1]]
        assert row["Full name"] == name and row["Grade"] == totals[name] and row["Maximum Grade"] == "40"
        assert row["Feedback comments"].startswith("py_stats: ") and "java_stats: " in row["Feedback comments"]


def test_gradescope_results_json_for_one_submission(runs, klass, tmp_path):
    """As in Gradescope's run_autograder: one student's files in submission/, the course's problems."""
    sub = tmp_path / "submission"
    sub.mkdir()
    for file, text in klass.files["s07"].items():
        (sub / file).write_text(text)
    for folder in ("refs", "given"):
        shutil.copytree(runs / folder, tmp_path / folder)
    shutil.copy(runs / "rubric.toml", tmp_path / "rubric.toml")
    mapping = klass.mapping(tmp_path, "submission")
    results = tmp_path / "results" / "results.json"
    assert main(["grade", "--mapping", str(mapping), "--metrics", "codebleu", "--rubric", str(tmp_path / "rubric.toml"),
                 "--gradescope", str(results), "-q"]) == 0
    data = json.loads(results.read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert [t["name"] for t in data["tests"]] == ["py_stats", "java_stats", "nb_report"]
    assert [t["max_score"] for t in data["tests"]] == [10, 20, 10]
    moodle = {r["student"]: r for r in _csv(runs / "moodle-out" / "points.csv")}[klass.people["s07"][0]]
    assert data["score"] == pytest.approx(float(moodle["total"]))  # the same points as in the class run


def _reference_only(klass: Klass) -> tuple[list[str], set[str]]:
    """Reference lines no student wrote (stripped, long enough to mean something)."""
    theirs = {line.strip() for files in klass.files.values() for text in files.values()
              for line in (text.splitlines() if not text.startswith("{") else
                           "".join(c["source"] for c in json.loads(text)["cells"]).splitlines())}
    lines = [line.strip() for ref in (klass.ref_python, klass.ref_java, klass.ref_notebook)
             for line in ref.splitlines() if len(line.strip()) > 12 and line.strip() not in theirs]
    return lines, theirs


def test_feedback_pages_per_student_hold_no_reference_code(runs, klass):
    pages = runs / "moodle-out" / "feedback"
    htmls, mds = sorted(pages.glob("*.html")), sorted(pages.glob("*.md"))
    assert len(htmls) == len(mds) == 33
    lines, _ = _reference_only(klass)
    assert len(lines) > 5
    for page in [*htmls, *mds]:
        raw = page.read_text(encoding="utf-8")  # the text as shown (spans may split a line) and the tooltips
        text = html.unescape(re.sub(r"<[^>]+>", "", raw)) + "\n" + html.unescape(raw)
        assert not [line for line in lines if line in text], page.name
    ada = html.unescape((pages / "Ada_Lovelace_2001.html").read_text(encoding="utf-8"))
    assert "feedback for Ada Lovelace" in ada and "py_stats" in ada and "nb_report" in ada and "cell " in ada
    notebook_part = ada[ada.index('data-problem="nb_report"'):]
    assert re.search(r'<pre class="gutter">3:1\n3:2\n', notebook_part)  # numbered by cell and line


def _chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            "--hide-scrollbars"]
    return subprocess.run(base + args, capture_output=True, text=True, timeout=90)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_hints_page_in_headless_chromium_and_the_screenshots(runs, klass, tmp_path):
    page = runs / "moodle-out" / "feedback" / "Ada_Lovelace_2001.html"
    dom = _chromium(["--dump-dom", page.as_uri()], tmp_path / "p1")
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = html.unescape(re.sub(r"<[^>]+>", "", dom.stdout))
    lines, _ = _reference_only(klass)
    assert "feedback for Ada Lovelace" in text and not [line for line in lines if line in text]
    shots = {"grade-feedback.png": page, "grade-similarity.png": runs / "moodle-out" / "similarity.html"}
    for name, source in shots.items():
        shot = tmp_path / name
        size = "1200,900" if "feedback" in name else "1400,1100"  # the flagged pairs and the first side by side
        done = _chromium([f"--screenshot={shot}", f"--window-size={size}", source.as_uri()],
                         tmp_path / f"profile-{Path(name).stem}")
        assert done.returncode == 0 and shot.stat().st_size > 10_000, done.stderr[-2000:]
        if os.environ.get("REFSCORE_UPDATE_SCREENSHOT") == "1":
            shutil.copyfile(shot, REPO / "docs" / name)


@pytest.mark.parametrize("delivery", ["moodle", "canvas"])
def test_the_similarity_report_flags_the_planted_copies_and_no_other_pair(runs, klass, delivery):
    data = json.loads((runs / f"{delivery}-out" / "similarity.json").read_text(encoding="utf-8"))
    problems = {p["problem"]: p for p in data["problems"]}
    assert set(problems) == set(klass.copied)
    who = {}
    for sid, (name, moodle, canvas) in klass.people.items():
        login = "".join(reversed(name.lower().split()))
        who[f"{name} ({moodle})" if delivery == "moodle" else f"{login} ({canvas})"] = sid
    for problem, expected in klass.copied.items():
        flagged = {frozenset(who[p[k].split("/", 1)[1]] for k in ("first", "second")) for p in problems[problem]["pairs"]}
        assert flagged == expected, problem
    assert expected_pairs(klass.python) == {frozenset(p) for p in (("s03", "copy_renamed"), ("s03", "copy_commented"),
                                                                   ("copy_renamed", "copy_commented"),
                                                                   ("s10", "copy_renamed_2"))}
