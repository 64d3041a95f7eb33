"""End to end: hovers (summary: scores and what is missing; tokens: breakdown and reference
occurrence), per-function code lenses (same name, else best aligned) and the
``refscore.missingFromReference`` command they run."""

from __future__ import annotations

from pathlib import Path

import pytest

from refscore.scoring.codebleu import score_codebleu
from tests.lsp import samples
from tests.lsp.harness import session, uri

pytestmark = pytest.mark.asyncio


def function_text(text: str, name: str) -> str:
    start = text.index(f"def {name}")
    end = text.find("\n\n\ndef ", start)
    return text[start:] if end < 0 else text[start:end + 1]


async def test_summary_and_token_hovers(tmp_path: Path) -> None:
    ref = tmp_path / "h.ref.py"
    ref.write_text(samples.REFERENCE, encoding="utf-8")
    cand = tmp_path / "h.py"
    cand.write_text(samples.CANDIDATE, encoding="utf-8")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        summary = (await s.hover(doc, 0, 3)).contents.value
        assert "CodeBLEU" in summary and "dataflow" in summary
        assert "Missing from the candidate" in summary
        assert f"{uri(ref)}#L" in summary  # explanations link to reference lines
        assert "more (RefScore: Show What the Reference Has That This File Lacks)" in summary  # a command away
        line = samples.CANDIDATE.splitlines()[3]  # '    elif n % 3 == 0:'
        elif_hover = await s.hover(doc, 3, line.index("elif") + 1)
        assert "**elif**" in elif_hover.contents.value and "not in the reference" in elif_hover.contents.value
        ret = await s.hover(doc, 2, samples.CANDIDATE.splitlines()[2].index("return"))
        assert "also in the reference" in ret.contents.value and f"{uri(ref)}#L4" in ret.contents.value
        assert "CodeBLEU" in ret.contents.value
        assert await s.hover(doc, 8, 0) is None  # blank line


async def test_lenses_per_function(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "l")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        lenses = sorted(await s.lenses(doc), key=lambda lens: lens.range.start.line)
        assert [lens.range.start.line for lens in lenses] == [0, 10]
        by_name, aligned = lenses
        assert by_name.data["matchedBy"] == "name" and by_name.data["referenceFunction"] == "fizzbuzz"
        assert aligned.data["matchedBy"] == "alignment" and aligned.data["referenceFunction"] == "total"
        assert aligned.data["referenceLine"] == 11
        expected = score_codebleu([function_text(samples.REFERENCE, "fizzbuzz")],
                                  function_text(samples.CANDIDATE, "fizzbuzz"), "python").score
        assert by_name.data["codebleu"] == pytest.approx(expected)
        assert f"CodeBLEU {expected:.2f}" in by_name.command.title and "same name" in by_name.command.title
        assert "best aligned" in aligned.command.title
        assert by_name.command.command == "refscore.missingFromReference"
        missing = await s.command(by_name.command.command, *by_name.command.arguments)
        kinds = {m["kind"] for m in missing}
        assert {"ngram_match", "syntax_match"} <= kinds
        for item in missing:
            lines = samples.REFERENCE.splitlines()
            start, end = item["range"]["start"], item["range"]["end"]
            assert item["uri"] == uri(tmp_path / "l.ref.py")
            assert 0 <= start["line"] <= end["line"] < len(lines)
        assert await s.command("refscore.missingFromReference", uri(tmp_path / "unknown.py")) == []


async def test_java_lenses_qualified_by_class(tmp_path: Path) -> None:
    ref = "class Calc {\n  int add(int a, int b) { return a + b; }\n  int mul(int a, int b) { return a * b; }\n}\n"
    cand = "class Calc {\n  int times(int x, int y) { return x * y; }\n  int add(int x, int y) { return x + y; }\n}\n"
    (tmp_path / "Calc.ref.java").write_text(ref, encoding="utf-8")
    path = tmp_path / "Calc.java"
    path.write_text(cand, encoding="utf-8")
    async with session(tmp_path) as s:
        doc = s.open(path, language_id="java")
        await s.wait_summary(doc)
        lenses = {lens.data["function"]: lens.data for lens in await s.lenses(doc)}
        assert lenses["Calc.add"]["referenceFunction"] == "Calc.add" and lenses["Calc.add"]["matchedBy"] == "name"
        assert lenses["Calc.times"]["referenceFunction"] == "Calc.mul"
        assert lenses["Calc.times"]["matchedBy"] == "alignment"


async def test_token_hover_matches_whole_tokens_of_the_reference(tmp_path: Path) -> None:
    """Without CodeBERTScore a token is in the reference when the reference has that same
    whitespace token (CodeBLEU's n-gram unit), not when its text occurs inside another one:
    `s` is not in a reference that only has `result` and `values`; `0` is, on line 13."""
    ref = tmp_path / "t.ref.py"
    ref.write_text(samples.REFERENCE, encoding="utf-8")
    cand = tmp_path / "t.py"
    cand.write_text(samples.CANDIDATE, encoding="utf-8")
    lines = samples.CANDIDATE.splitlines()
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        s_hover = (await s.hover(doc, 11, lines[11].index("s"))).contents.value  # '    s = 0'
        assert s_hover.startswith("**s**") and "not in the reference" in s_hover, s_hover
        zero = (await s.hover(doc, 11, lines[11].index("0"))).contents.value
        assert "also in the reference" in zero and f"{uri(ref)}#L13" in zero, zero
