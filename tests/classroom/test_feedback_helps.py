"""Issue 42 item 8: feedback that helps a student, through the real ``refscore grade`` (CodeBLEU and
behaviour in the real sandbox): each input their code got wrong on their page, the reference's
outcome shown or hidden as the rubric's ``show_expected`` says; hints true of the lines they name;
line numbers in the Markdown comment too; bands in plain words; an empty file called empty."""

from __future__ import annotations

import html
import json
import re

import pytest

from refscore.cli import main
from tests.merge_intervals_ref import MERGE as REFERENCE
from refscore.classroom.hints import constructs_on_line, remarks
from refscore.metrics.differences.model import Difference

STARTER = "def merge_intervals(intervals):\n    pass\n"
STUDENTS = {
    # does not merge intervals that only touch ([1, 1] and [1, 3])
    "ana": "def merge_intervals(intervals):\n    out = []\n    for a, b in intervals:\n        if out and a < out[-1][1]:\n"
           "            out[-1][1] = max(out[-1][1], b)\n        else:\n            out.append([a, b])\n    return out\n",
    "ben": REFERENCE.replace("result", "merged"),
    "cat": "",
    "dan": STARTER,
}
RUBRIC = 'title = "Week 5"\nmetric = "codebleu"\nbands = { ">= 0.9" = 10, ">= 0.5" = 6, "> 0" = 2 }\n'
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("helps")
    (root / "ref").mkdir()
    (root / "ref" / "merge.py").write_text(REFERENCE)
    (root / "given").mkdir()
    (root / "given" / "merge.py").write_text(STARTER)
    (root / "subs").mkdir()
    for name, text in STUDENTS.items():
        (root / "subs" / f"{name}.py").write_text(text)
    (root / "class.toml").write_text('[[problem]]\nname = "merge"\nreference = "ref/merge.py"\nsubmissions = ["subs"]\n'
                                     'starter = "given/merge.py"\n')
    out = {}
    for show in ("true", "false"):
        (root / f"rubric-{show}.toml").write_text(RUBRIC + f"show_expected = {show}\n")
        code = main(["grade", "--mapping", str(root / "class.toml"), "--metrics", "codebleu,behaviour", "-o",
                     str(root / show), "--rubric", str(root / f"rubric-{show}.toml"), "-q"])
        assert code == 0
        out[show] = root / show
    rows = json.loads((out["true"] / "grade.json").read_text())["submissions"]
    ana = next(r for r in rows if r["id"].endswith("ana.py"))
    if ana.get("behaviour") is None:
        pytest.skip(f"behaviour cannot run here: {ana.get('behaviour_note')}")
    return out


def _text(path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


def test_each_counter_example_is_on_the_page_with_the_reference_outcome(pages):
    md = (pages["true"] / "feedback" / "ana.md").read_text(encoding="utf-8")
    page = _text(pages["true"] / "feedback" / "ana.html")
    rows = json.loads((pages["true"] / "grade.json").read_text())["submissions"]
    ana = next(r for r in rows if r["id"].endswith("ana.py"))
    assert ana["behaviour"] < 1.0
    got = re.search(r"differs on (merge_intervals\(.*\)): expected (.*), got (.*)$", ana["behaviour_note"])
    call, expected, actual = got.groups()
    sentence = f"for {call} your function returns {actual}; the reference returns {expected}"
    assert sentence in page
    assert f"for `{call}` your function returns `{actual}`; the reference returns `{expected}`" in md
    assert f"did what the reference does on {ana['behaviour_agreed']} of {ana['behaviour_inputs']} inputs" in md
    assert "did what the reference does on all" in (pages["true"] / "feedback" / "ben.md").read_text()


def test_show_expected_false_hides_the_reference_outcome(pages):
    md = (pages["false"] / "feedback" / "ana.md").read_text(encoding="utf-8")
    page = _text(pages["false"] / "feedback" / "ana.html")
    assert "your function returns `" in md and "your function returns " in page
    assert "the reference returns" not in md and "the reference returns" not in page


def test_markdown_code_has_the_line_numbers_the_hints_cite(pages):
    md = (pages["true"] / "feedback" / "ana.md").read_text(encoding="utf-8")
    assert "1 | def merge_intervals(intervals):" in md and "3 |     for a, b in intervals:" in md
    cited = [int(n) for n in re.findall(r"line (\d+)", md)]
    assert cited and all(re.search(rf"^ ?{n} \| ", md, re.M) for n in cited)


def test_bands_in_plain_words(pages):
    for name in ("ana", "ben"):
        for suffix in ("md", "html"):
            text = _text(pages["true"] / "feedback" / f"{name}.{suffix}")
            assert "(>" not in text and "(\\>" not in text, name
            assert re.search(r"points for a score (of at least|above) \d|a score below \S+ earns none", text), name


def test_an_empty_file_is_empty_and_the_starter_is_the_starter(pages):
    cat = (pages["true"] / "feedback" / "cat.md").read_text(encoding="utf-8")
    dan = (pages["true"] / "feedback" / "dan.md").read_text(encoding="utf-8")
    assert "empty submission" in cat and "Your submission is empty" in cat and "starter" not in cat.lower()
    assert "nothing but the starter code" in dan and "Your submission is empty" not in dan


def test_every_missing_hint_is_true_of_the_line_it_names(pages):
    for page in (pages["true"] / "feedback").glob("*.md"):
        md = page.read_text(encoding="utf-8")
        code = "\n".join(m[1] for m in re.finditer(r"^ ?\d+ \| ?(.*)$", md, re.M))
        for line, what in re.findall(r"near line (\d+): the reference has (.+?) that your code lacks", md):
            assert what not in constructs_on_line(code, "python", int(line) - 1), (page.name, line, what)


def test_a_construct_the_students_line_has_is_never_called_missing():
    """The defect the teacher saw: "the reference has a for loop that your code lacks" on a line
    that is a for loop. A ``missing`` difference placed on the student's for loop, whose reference
    code is a for loop, is said to differ there instead."""
    student = "def total(xs):\n    s = 0\n    for x in xs:\n        s = s + x\n    return s\n"
    reference = "def total(xs):\n    s = 0\n    for i in range(len(xs)):\n        s += xs[i]\n    return s\n"
    at = reference.index("for i")
    on = student.index("for x")
    missing = Difference("missing", on, on + 12, (2, 4, 2, 16), 0, at, reference.index(":\n", at) + 1,
                         (2, 4, 2, 30), "missing", 0.9)
    said = remarks([missing], [reference], "python", "hints", None, student)
    assert said[0].text == "line 3: your for loop here is written differently from the reference's"
    elsewhere = Difference("missing", 0, 3, (0, 0, 0, 3), 0, at, reference.index(":\n", at) + 1, (2, 4, 2, 30),
                           "missing", 0.9)
    assert "the reference has a for loop that your code lacks" in \
        remarks([elsewhere], [reference], "python", "hints", None, student)[0].text


def test_no_hint_names_a_blank_line():
    """A difference placed on a line the starter rule left blank names nothing of the student's."""
    student = "\n\ndef total(xs):\n    return sum(xs)\n"
    reference = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
    at = reference.index("for x")
    blank = Difference("missing", 0, 0, (0, 0, 0, 0), 0, at, at + 12, (2, 4, 2, 16), "missing", 0.9)
    placed = Difference("missing", 2, 15, (2, 0, 2, 13), 0, at, at + 12, (2, 4, 2, 16), "missing", 0.8)
    said = remarks([blank, placed], [reference], "python", "hints", None, student)
    assert [r.line for r in said] == [2] and said[0].text.startswith("near line 3:")


def test_counter_examples_say_what_happened_in_each_mode():
    from refscore.behaviour.result import Disagreement
    from refscore.classroom.feedback_words import counter_example, plain_text

    said = [plain_text(counter_example(d, True)) for d in (
        Disagreement("f([1, 2])", "3", "raises IndexError: list index out of range", "raised", "f"),
        Disagreement("f(0)", "0", "timeout", "timeout", "f"),
        Disagreement("f(0)", "0", "does not load: ModuleNotFoundError: numpy", "does not load: ModuleNotFoundError: numpy",
                     "f"),
        Disagreement("stdin '3\\n'", "'9\\n'", "'6\\n'", "different output"),
        Disagreement("stdin '3\\n'", "'9\\n'", "does not compile: error", "does not compile: error"))]
    assert said == [
        "for f([1, 2]) your function raises IndexError: list index out of range; the reference returns 3",
        "for f(0) your function does not finish in time; the reference returns 0",
        "for f(0) your function does not run: does not load: ModuleNotFoundError: numpy; the reference returns 0",
        "with the standard input '3\\n' your program prints '6\\n'; the reference prints '9\\n'",
        "with the standard input '3\\n' your program does not run: does not compile: error; the reference prints '9\\n'"]
