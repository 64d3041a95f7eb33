"""Issue 23 item 6: a feedback page (HTML and Markdown) per student; ``--reveal hints`` (the
default) and ``scores`` never put the reference's code into a student's page, checked by text
search and in the page as headless Chromium renders it."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import pytest

from refscore.cli import main

CHROMIUM = "/usr/bin/chromium"
REFERENCE = '''def second_largest(numbers):
    """Return the second largest distinct value."""
    distinct_values = sorted(set(numbers), reverse=True)
    if len(distinct_values) < 2:
        raise ValueError("need two distinct values")
    return distinct_values[1]
'''
STUDENTS = {
    "ana": '''def second_largest(xs):
    best = second = None
    for x in xs:
        if best is None or x > best:
            best, second = x, best
        elif x != best and (second is None or x > second):
            second = x
    return second
''',
    "ben": "def second_largest(xs):\n    return max(xs)\n",
}
pytestmark = pytest.mark.timeout(240)


def _reference_only_lines() -> list[str]:
    """Reference lines (stripped) that no student wrote: none may appear in a hints page."""
    theirs = {line.strip() for text in STUDENTS.values() for line in text.splitlines()}
    return [line.strip() for line in REFERENCE.splitlines() if len(line.strip()) > 8 and line.strip() not in theirs]


def _reference_names() -> set[str]:
    """Identifiers only the reference uses."""
    mine = set(re.findall(r"[A-Za-z_]\w+", " ".join(STUDENTS.values())))
    return set(re.findall(r"[A-Za-z_]\w+", REFERENCE)) - mine - {"Return", "the", "value", "need", "two"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("feedback")
    (root / "ref").mkdir()
    (root / "ref" / "second_largest.py").write_text(REFERENCE)
    (root / "subs").mkdir()
    for name, text in STUDENTS.items():
        (root / "subs" / f"{name}.py").write_text(text)
    (root / "class.toml").write_text('[[problem]]\nname = "second_largest"\nreference = "ref/second_largest.py"\n'
                                     'submissions = ["subs"]\n')
    (root / "rubric.toml").write_text('title = "Week 5"\nlinear = { floor = 0.1, ceiling = 0.9 }\n')
    outs = {}
    for mode in ("hints", "reveal", "scores"):
        out = root / mode
        code = main(["grade", "--mapping", str(root / "class.toml"), "--metrics", "codebleu", "-o", str(out),
                     "--rubric", str(root / "rubric.toml"), "--reveal", mode, "-q"])
        assert code == 0
        outs[mode] = out / "feedback"
    return outs


def test_one_html_and_one_markdown_page_per_student(graded):
    names = sorted(p.name for p in graded["hints"].iterdir())
    assert names == ["ana.html", "ana.md", "ben.html", "ben.md"]
    page = (graded["hints"] / "ana.html").read_text(encoding="utf-8")
    assert "feedback for ana" in page and 'id="total"' in page and "of 10 points" in page
    assert "<script" not in page and "http://" not in page and "https://" not in page  # self-contained
    assert "best, second = x, best" in html.unescape(page)  # their own code is shown
    markdown = (graded["hints"] / "ana.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Week 5: feedback for ana") and "### Your code" in markdown
    assert "What the reference has that yours lacks" in markdown


def test_hints_pages_hold_no_reference_code(graded):
    lines, names = _reference_only_lines(), _reference_names()
    assert lines and "distinct_values" in names
    for page in graded["hints"].iterdir():
        raw = page.read_text(encoding="utf-8")  # the text as shown (spans may split a name) and the tooltips
        text = html.unescape(re.sub(r"<[^>]+>", "", raw)) + "\n" + html.unescape(raw)
        assert not [line for line in lines if line in text], page
        assert not [name for name in names if re.search(rf"\b{name}\b", text)], page
    assert "the reference has" in (graded["hints"] / "ana.md").read_text()  # hints there are, in words


def test_reveal_shows_the_reference_and_scores_shows_no_code(graded):
    revealed = html.unescape((graded["reveal"] / "ben.html").read_text(encoding="utf-8"))
    assert "distinct_values = sorted(set(numbers), reverse=True)" in revealed and "Reference: " in revealed
    scores = html.unescape((graded["scores"] / "ben.html").read_text(encoding="utf-8"))
    assert "return max(xs)" not in scores and "distinct_values" not in scores and "CodeBLEU" in scores
    assert "### Your code" not in (graded["scores"] / "ben.md").read_text()


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_hints_page_as_chromium_renders_it(graded, tmp_path):
    profile = tmp_path / "profile"
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}"]
    page = (graded["hints"] / "ana.html").resolve().as_uri()
    dom = subprocess.run([*args, "--dump-dom", page], capture_output=True, text=True, timeout=90)
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = html.unescape(re.sub(r"<[^>]+>", "", dom.stdout))
    assert "feedback for ana" in text and "best, second = x, best" in text
    assert not [line for line in _reference_only_lines() if line in text]
    assert not [name for name in _reference_names() if re.search(rf"\b{name}\b", text)]


def test_token_heat_with_codebertscore_names_no_reference_token(tmp_path):
    """With CodeBERTScore (the real embedded model) the student's tokens are coloured; their
    tooltips give the similarity only, never the reference token it matched."""
    (tmp_path / "ref.py").write_text(REFERENCE)
    (tmp_path / "ana.py").write_text(STUDENTS["ana"])
    (tmp_path / "rubric.toml").write_text("linear = { floor = 0.0, ceiling = 1.0 }\n")
    out = tmp_path / "out"
    code = main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "ana.py"), "-o", str(out),
                 "--rubric", str(tmp_path / "rubric.toml"), "-q"])
    import json

    rows = json.loads((out / "grade.json").read_text())["submissions"]
    if any("codebertscore unavailable" in e for r in rows for e in r["errors"]):
        pytest.skip(f"CodeBERTScore cannot run here: {rows[0]['errors'][0]}")
    assert code == 0 and rows[0]["codebertscore_f1"] is not None
    page = (out / "feedback" / "ana.html").read_text(encoding="utf-8")
    titles = re.findall(r'title="([^"]*)"', page)
    assert len([t for t in titles if re.fullmatch(r"similarity \d\.\d{3}.*", t)]) > 10
    assert "best match" not in page and "background:hsl(" in page
    assert "coloured by how closely each part matches the reference" in page
    # the counter-examples say what the reference does on an input (the rubric's show_expected, on
    # by default): an outcome such as "raises ValueError: need two distinct values" is behaviour the
    # teacher chose to show, not a token of the reference's text, so the check reads the rest
    shown = re.sub(r'<ul class="wrong">.*?</ul>', "", page, flags=re.S)
    assert "the reference raises ValueError" in html.unescape(re.sub(r"<[^>]+>", "", page))
    text = html.unescape(re.sub(r"<[^>]+>", "", shown))  # token spans split identifiers
    assert not [name for name in _reference_names() if re.search(rf"\b{name}\b", text)]


def test_a_feedback_page_name_keeps_accented_letters_as_their_base_letter():
    """``Émile Zola`` was ``mile_Zola.html`` (the É dropped): accents are taken off, not the letter."""
    from refscore.classroom.outputs import safe_name

    assert safe_name("Émile Zola_1004") == "Emile_Zola_1004"
    assert safe_name("Zoë Ångström-Ødegård") == "Zoe_Angstrom-Odegard"
    assert safe_name("../../etc/passwd") == "etc_passwd" and safe_name("李雷") == "student"


def test_feedback_pages_of_names_differing_in_case_are_two_files_everywhere(tmp_path):
    """Folders ``Alice`` and ``alice`` gave ``Alice.html`` and ``alice.html``: one file on the
    case-insensitive disks of macOS and Windows (or in a zip opened there), where the second page
    overwrote the first and a student was sent another's feedback. Page names now differ
    whatever the case, and each page is its own student's."""
    names = ("Alice", "alice", "ALICE", "a b", "a_b")
    for name in names:
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "second.py").write_text(STUDENTS["ben"], encoding="utf-8")
    (tmp_path / "ref.py").write_text(REFERENCE, encoding="utf-8")
    (tmp_path / "rubric.toml").write_text("points = 10\n", encoding="utf-8")
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "class"), "--layout", "plain", "--rubric",
                 str(tmp_path / "rubric.toml"), "--metrics", "codebleu", "-o", str(tmp_path / "out"), "-q",
                 "--no-cache"]) == 0
    pages = sorted((tmp_path / "out" / "feedback").glob("*.md"))
    assert len({p.name.casefold() for p in pages}) == len(names), [p.name for p in pages]
    owners = sorted(re.search(r"feedback for (.*)", p.read_text(encoding="utf-8")).group(1) for p in pages)
    assert owners == sorted(names), owners


def test_a_feedback_page_is_never_named_as_a_windows_device():
    """A student called ``Con`` or ``Aux`` (a plain folder, a GitHub user) got ``Con.html``: on
    Windows ``CON`` with any extension is the console, so the page cannot be made there or
    unpacked from a zip of the folder. Such a name gets a ``_`` before its first dot."""
    from refscore.classroom.outputs import safe_name

    assert [safe_name(n) for n in ("Con", "aux", "NUL", "com1", "Lpt9", "con.txt")] == \
        ["Con_", "aux_", "NUL_", "com1_", "Lpt9_", "con_.txt"]
    assert safe_name("Connor") == "Connor" and safe_name("com10") == "com10"


def test_a_submission_that_could_not_be_scored_is_said_once(tmp_path):
    """An empty or wrong-language submission's page said why twice: the grade's note ("not scored:
    X") and the submission's own error (X), one under the other, in HTML and Markdown alike."""
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "cy.py").write_text("", encoding="utf-8")
    (subs / "di.java").write_text("class A {}\n", encoding="utf-8")
    (subs / "ana.py").write_text(STUDENTS["ana"], encoding="utf-8")
    (tmp_path / "ref.py").write_text(REFERENCE, encoding="utf-8")
    (tmp_path / "rubric.toml").write_text('points = 10\nbands = { ">= 0.5" = 10 }\n', encoding="utf-8")
    code = main(["grade", "-r", str(tmp_path / "ref.py"), str(subs), "--rubric", str(tmp_path / "rubric.toml"),
                 "--metrics", "codebleu", "-o", str(tmp_path / "out"), "-q", "--no-cache"])
    assert code == 0
    for student, why in (("cy", "empty submission"), ("di", "wrong language")):
        for suffix in (".md", ".html"):
            page = (tmp_path / "out" / "feedback" / f"{student}{suffix}").read_text(encoding="utf-8")
            assert page.count(why) == 1, (student, suffix, page)


def test_a_warning_on_a_scored_submission_is_not_shown_as_an_error(tmp_path):
    """A scored submission's warnings (Trojan Source controls here) were in the page's error red:
    they say "Warning:" and have their own colour, in HTML; "Warning:" in Markdown."""
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "eve.py").write_text(STUDENTS["ana"] + "# \u202eevil\n", encoding="utf-8")
    (tmp_path / "ref.py").write_text(REFERENCE, encoding="utf-8")
    (tmp_path / "rubric.toml").write_text('points = 10\nbands = { ">= 0.5" = 10 }\n', encoding="utf-8")
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(subs), "--rubric", str(tmp_path / "rubric.toml"),
                 "--metrics", "codebleu", "-o", str(tmp_path / "out"), "-q", "--no-cache"]) == 0
    page = (tmp_path / "out" / "feedback" / "eve.html").read_text(encoding="utf-8")
    shown = re.search(r'<span class="note-warning">Warning: ([^<]*Trojan Source)', page)
    assert shown and 'class="note-error"' not in page
    colours = dict(re.findall(r"\.note-(error|warning)\{color:(#[0-9a-f]+)", page))
    assert set(colours) == {"error", "warning"} and colours["error"] != colours["warning"]
    markdown = (tmp_path / "out" / "feedback" / "eve.md").read_text(encoding="utf-8")
    assert re.search(r"^- Warning: .*Trojan Source", markdown, re.M)
