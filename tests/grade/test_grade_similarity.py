"""`refscore grade --similarity` end to end (real CLI, real tree-sitter): a generated class of two
problems (Python and Java, 30+ students each, with planted copies) in a mapping file. The
similarity report flags the planted copies and no other pair, per problem; the grade report's
``similar_to`` column and HTML note name them; unreadable submissions get a status, not a
traceback; a run that has nowhere to write the pages is one usage line."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.grade.similarity_report import HINT
from tests.similarity_class import PYTHON_STARTER, expected_pairs, make_class

REFERENCES = {"python": "def mean(values):\n    return sum(values) / len(values) if values else 0.0\n",
              "java": "public class Ref {\n    static double mean(int[] v) {\n        double s = 0;\n"
                      "        for (int x : v) s += x;\n        return v.length == 0 ? 0 : s / v.length;\n    }\n}\n"}
EXTENSIONS = {"python": "py", "java": "java"}

pytestmark = pytest.mark.timeout(300)


def _class(root: Path) -> dict[str, set[frozenset[str]]]:
    """Two problems' folders and a mapping; the pairs to expect per problem (ids as the report has them)."""
    lines, expected = [], {}
    for language, extension in EXTENSIONS.items():
        folder = root / language
        folder.mkdir()
        klass = make_class(language, 30, seed=11)
        for student in klass:
            (folder / f"{student.id}.{extension}").write_text(student.text)
        (root / f"ref.{extension}").write_text(REFERENCES[language])
        lines += ["[[problem]]", f'name = "{language}_stats"', f'reference = "ref.{extension}"',
                  f'submissions = ["{language}/*.{extension}"]', ""]
        expected[f"{language}_stats"] = {frozenset(f"{language}/{i}.{extension}" for i in pair)
                                         for pair in expected_pairs(klass)}
    (root / "class.toml").write_text("\n".join(lines))
    (root / "python" / "broken.py").write_bytes(b"\xff\xfe\x00binary\x00")
    (root / "python" / "empty.py").write_text("")
    return expected


def _endings(pairs: list[dict]) -> set[frozenset[str]]:
    """Pairs as sets of their sources' last two path parts (the report's ids carry the problem)."""
    return {frozenset("/".join(Path(p[k]).parts[-2:]) for k in ("first_source", "second_source")) for p in pairs}


def test_grade_similarity_flags_the_planted_copies(tmp_path: Path) -> None:
    expected = _class(tmp_path)
    out = tmp_path / "out"
    code = main(["grade", "--mapping", str(tmp_path / "class.toml"), "--metrics", "codebleu", "-o", str(out),
                 "-q", "--similarity"])
    assert code == 0
    data = json.loads((out / "similarity.json").read_text())
    assert data["note"] == HINT and data["threshold"] == 0.8
    problems = {p["problem"]: p for p in data["problems"]}
    assert set(problems) == set(expected)
    for name, pairs in expected.items():
        assert _endings(problems[name]["pairs"]) == pairs, name
        assert len(problems[name]["clusters"]) == 2
    status = {Path(s["source"]).name: s["status"] for s in problems["python_stats"]["submissions"]}
    assert status["empty.py"].startswith("not compared: ") and "empty" in status["empty.py"]
    assert status["broken.py"].startswith("not compared: ")
    assert status["s01.py"] == "compared"
    with (out / "similarity.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == sum(len(p) for p in expected.values())
    assert all(float(r["score"]) >= 0.8 for r in rows)
    # the grade report: a similar_to column on exactly the flagged submissions, and a note on the page
    with (out / "grade.csv").open(newline="") as fh:
        grade = list(csv.DictReader(fh))
    flagged = {Path(r["source"]).stem for r in grade if r["similar_to"]}
    assert flagged == {"s03", "s10", "copy_renamed", "copy_commented", "copy_renamed_2"}
    report = json.loads((out / "grade.json").read_text())
    assert report["settings"]["similarity"] == {"threshold": 0.8, "flagged_pairs": len(rows),
                                             "possible_pairs": sum(p["possible_pairs"] for p in problems.values()),
                                             "nothing_to_compare": [],
                                             "page": "similarity.html"}
    html = (out / "grade.html").read_text()
    assert 'href="similarity.html"' in html and "never a verdict" in html and "similar to " in html
    page = (out / "similarity.html").read_text()
    assert "never a verdict" in page and page.count('<div class="panes">') == len(rows)
    assert '<span class="shared">' in page and "<script" not in page


def test_a_higher_threshold_and_a_quiet_class(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REFERENCES["python"])
    (tmp_path / "subs").mkdir()
    for student in make_class("python", 30, seed=2)[:30]:  # the originals only: nothing to flag
        (tmp_path / "subs" / f"{student.id}.py").write_text(student.text)
    out = tmp_path / "out"
    assert main(["grade", str(tmp_path / "subs"), "-r", str(tmp_path / "ref.py"), "--metrics", "codebleu",
                 "--similarity", "0.9", "-o", str(out), "-q"]) == 0
    data = json.loads((out / "similarity.json").read_text())
    assert data["threshold"] == 0.9 and data["problems"][0]["pairs"] == []
    assert "No pair at or above the threshold" in (out / "similarity.html").read_text()
    assert (out / "similarity.csv").read_text().count("\n") == 1  # the header only


def test_similarity_usage_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ref.py").write_text(REFERENCES["python"])
    (tmp_path / "a.py").write_text(REFERENCES["python"])
    base = ["grade", str(tmp_path / "a.py"), "-r", str(tmp_path / "ref.py"), "--metrics", "codebleu", "-q"]
    assert main([*base, "--similarity"]) == 2  # nowhere to write the pages
    assert "--similarity writes similarity.html" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main([*base, "--similarity", "1.5", "-o", str(tmp_path / "out")])
    assert exited.value.code == 2 and "not in 0..1" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["grade", "-r", str(tmp_path / "ref.py"), "--similarity", str(tmp_path / "a.py"), "-o", "x"])
    assert exited.value.code == 2 and "put --similarity after the SUBMISSION files" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert main([*base, "-o", str(tmp_path / "plain")]) == 0  # without --similarity: no column, no page
    assert "similar_to" not in (tmp_path / "plain" / "grade.csv").read_text().splitlines()[0]
    assert not (tmp_path / "plain" / "similarity.html").exists()


def test_starter_code_is_no_similarity_between_students(tmp_path: Path) -> None:
    """Every student keeps the handed-out helpers: without --starter they make unrelated students
    alike; with it, only the planted copies are flagged."""
    klass = make_class("python", 30, seed=5)
    (tmp_path / "subs").mkdir()
    for student in klass:
        (tmp_path / "subs" / f"{student.id}.py").write_text(PYTHON_STARTER + "\n\n" + student.text)
    (tmp_path / "starter.py").write_text(PYTHON_STARTER)
    (tmp_path / "ref.py").write_text(PYTHON_STARTER + "\n\n" + REFERENCES["python"])
    expected = {frozenset(f"{i}.py" for i in pair) for pair in expected_pairs(klass)}
    found = {}
    for name, extra in (("plain", []), ("starter", ["--starter", str(tmp_path / "starter.py")])):
        out = tmp_path / name
        assert main(["grade", str(tmp_path / "subs"), "-r", str(tmp_path / "ref.py"), "--metrics", "codebleu", *extra,
                     "--similarity", "0.7", "-o", str(out), "-q"]) == 0
        data = json.loads((out / "similarity.json").read_text())
        found[name] = {frozenset(Path(p[k]).name for k in ("first_source", "second_source"))
                       for p in data["problems"][0]["pairs"]}
    assert found["plain"] > expected  # the starter alone makes other pairs alike
    assert found["starter"] == expected


def test_blank_runs_are_folded_in_the_side_by_side_view() -> None:
    """The starter rule leaves its lines blank: a run of them is one line saying which."""
    from refscore.grade.similarity_report import _code

    text = "\n" * 34 + "def f(x):\n    return x\n\n\ny = 1"
    shown = _code(text, {34, 35})
    assert "lines 1-34: blank" in shown and shown.count("\n") == 5
    assert '<span class="ln">  35 </span><span class="shared">def f(x):</span>' in shown
    assert '<span class="ln">  37 </span>' in shown  # two blank lines in a row stay as they are


def test_one_submission_is_nothing_to_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One submission (or one that can be compared) makes no pair: every report says there was
    nothing to compare, not that every pair was compared and none was alike."""
    (tmp_path / "ref.py").write_text(REFERENCES["python"])
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "alone.py").write_text(make_class("python", 30, seed=2)[0].text)
    out = tmp_path / "out"
    assert main(["grade", str(tmp_path / "subs"), "-r", str(tmp_path / "ref.py"), "--metrics", "codebleu",
                 "--similarity", "-o", str(out)]) == 0
    page = (out / "similarity.html").read_text()
    assert "nothing to compare" in page and "every pair compared" not in page and "No pair at or above" not in page
    assert "nothing to compare" in (out / "grade.html").read_text()
    assert "nothing to compare" in capsys.readouterr().err
    data = json.loads((out / "similarity.json").read_text())
    assert data["problems"][0]["possible_pairs"] == 0
    # a second file with no code: still one submission to compare
    (tmp_path / "subs" / "empty.py").write_text("")
    again = tmp_path / "again"
    assert main(["grade", str(tmp_path / "subs"), "-r", str(tmp_path / "ref.py"), "--metrics", "codebleu",
                 "--similarity", "-o", str(again), "-q"]) == 0
    page = (again / "similarity.html").read_text()
    assert "nothing to compare" in page and "No pair at or above" not in page and "empty submission" in page


def test_the_grade_page_names_the_problems_with_nothing_to_compare(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Two problems, one with a single submission: the grade page's similarity line (and the
    terminal note) says that problem had nothing to compare, not only the similarity page."""
    (tmp_path / "ref.py").write_text(REFERENCES["python"])
    (tmp_path / "ref.java").write_text(REFERENCES["java"])
    (tmp_path / "py").mkdir()
    for student in make_class("python", 12, seed=3)[:4]:
        (tmp_path / "py" / f"{student.id}.py").write_text(student.text)
    (tmp_path / "java").mkdir()
    (tmp_path / "java" / "alone.java").write_text(make_class("java", 12, seed=3)[0].text)
    (tmp_path / "m.toml").write_text(
        '[[problem]]\nname = "py_mean"\nreference = "ref.py"\nsubmissions = ["py/*.py"]\n'
        '[[problem]]\nname = "java_mean"\nreference = "ref.java"\nsubmissions = ["java/*.java"]\n')
    out = tmp_path / "out"
    assert main(["grade", "--mapping", str(tmp_path / "m.toml"), "--metrics", "codebleu", "--similarity",
                 "-o", str(out)]) == 0
    page = (out / "grade.html").read_text(encoding="utf-8")
    line = page[page.index('id="similarity"'):].split("</p>", 1)[0]
    assert "nothing to compare in java_mean" in line and "py_mean" not in line, line
    err = capsys.readouterr().err
    assert "nothing to compare in java_mean" in err, err
    info = json.loads((out / "grade.json").read_text(encoding="utf-8"))["settings"]["similarity"]
    assert info["nothing_to_compare"] == ["java_mean"]


def test_the_grade_page_links_the_similarity_page_where_it_is(tmp_path: Path) -> None:
    """``--csv a/grade.csv --html b/grade.html --similarity`` writes the similarity files beside
    the first report (``a/``), but the grade page in ``b/`` linked ``similarity.html``, a page
    that is not there. The link (and ``settings.similarity.page``) is now the path from the grade
    page's folder."""
    import re

    (tmp_path / "subs").mkdir()
    for name in ("ann", "bob"):
        (tmp_path / "subs" / f"{name}.py").write_text(REFERENCES["python"])
    (tmp_path / "ref.py").write_text(REFERENCES["python"])
    html = tmp_path / "b" / "grade.html"
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "subs"), "--metrics", "codebleu", "-q",
                 "--csv", str(tmp_path / "a" / "grade.csv"), "--html", str(html), "--json",
                 str(tmp_path / "b" / "grade.json"), "--similarity", "--no-cache"]) == 0
    assert (tmp_path / "a" / "similarity.html").is_file()
    links = re.findall(r'<a href="([^"#]+)"', html.read_text(encoding="utf-8"))
    page = json.loads((tmp_path / "b" / "grade.json").read_text())["settings"]["similarity"]["page"]
    assert links == [page] and (html.parent / page).resolve() == (tmp_path / "a" / "similarity.html").resolve()
