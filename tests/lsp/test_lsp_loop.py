"""End to end: the live loop (debounce, one task per document, stale versions dropped, rapid
edits), non-ASCII text (UTF-16 ranges), odd documents, and the summary's shape."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from refscore.scoring.codebleu import score_codebleu
from tests.lsp import samples
from tests.lsp.harness import session

pytestmark = pytest.mark.asyncio


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def big_reference(lines: int = 600) -> str:
    return "\n".join(f"def f{i}(x):\n    y = x * {i} + {i % 7}\n    return y - {i}\n" for i in range(lines // 4))


async def test_rapid_edits_publish_only_current_versions_with_their_own_scores(tmp_path: Path) -> None:
    reference = big_reference()
    (tmp_path / "big.ref.py").write_text(reference, encoding="utf-8")
    cand = tmp_path / "big.py"
    cand.write_text("", encoding="utf-8")
    texts = {1: ""}
    async with session(tmp_path, settings={"debounceMs": 0}) as s:
        doc = s.open(cand, text="")
        lines = reference.splitlines(keepends=True)
        for version in range(2, 22):  # each version a longer prefix of the reference, sent back to back
            text = "".join(lines[: version * 25])
            texts[version] = text
            assert s.replace_all(doc, text) == version
            await asyncio.sleep(0.02)  # edits keep arriving while earlier versions are being scored
        final = await s.wait_summary(doc, version=21)
        published = [(v, d) for u, v, d in s.published if u == doc]
        versions = [v for v, _ in published]
        assert versions == sorted(versions), f"an older version was published after a newer one: {versions}"
        for version, diags in published:
            summary = next(d for d in diags if d.code == "refscore.summary")
            assert summary.data["version"] == version
            expected = score_codebleu([reference], texts[version], "python").score
            assert summary.data["codebleu"]["score"] == pytest.approx(expected), f"v{version} mixed up"
        assert final.data["codebleu"]["score"] == pytest.approx(score_codebleu([reference], texts[21], "python").score)


async def test_debounce_scores_a_burst_once(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "t")
    async with session(tmp_path, settings={"debounceMs": 400}) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        before = len(s.published)
        text = samples.CANDIDATE
        for i in range(10):  # a burst of keystrokes, far faster than the debounce
            text += "#"
            s.replace_all(doc, text)
        await s.wait_summary(doc, version=11)
        burst = [v for u, v, _ in s.published[before:] if u == doc]
        # the first keystroke after the quiet spell is scored at once (the leading edge): on a busy
        # machine its run can end before the next keystroke arrives; what follows waits for the pause
        assert set(burst) <= {2, 11} and burst[-1] == 11, f"the burst should be scored once, as its last version: {burst}"


async def test_an_isolated_edit_is_scored_without_waiting_for_the_debounce(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "t")
    debounce = 10.0  # far longer than scoring this sample takes, even on a machine at load 10
    async with session(tmp_path, settings={"debounceMs": int(debounce * 1000)}) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        await asyncio.sleep(debounce + 0.2)  # typing paused longer than the debounce
        started = asyncio.get_running_loop().time()
        version = s.replace_all(doc, samples.CANDIDATE + "\n# edited\n")
        await s.wait_summary(doc, version=version)
        assert asyncio.get_running_loop().time() - started < debounce  # the leading edge


async def test_non_ascii_text_gives_utf16_ranges(tmp_path: Path) -> None:
    reference = 'def greet(name):\n    label = "😀 naïve 😀"; total = len(name)\n    return label + name\n'
    candidate = '# 😀😀 ünïcödé\ndef greet(who):\n    tag = "😀😀"; count = len(who)\n    return tag + who\n'
    (tmp_path / "g.ref.py").write_text(reference, encoding="utf-8")
    cand = tmp_path / "g.py"
    cand.write_text(candidate, encoding="utf-8")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        assert summary.range.end.character == utf16("# 😀😀 ünïcödé")
        line = candidate.splitlines()[2]
        hover = await s.hover(doc, 2, utf16(line[: line.index("count")]) + 1)
        assert hover is not None and "count" in hover.contents.value
        assert hover.range.start.character == utf16(line[: line.index("count")])
        assert hover.range.end.character == utf16(line[: line.index("count") + len("count")])
        missing = await s.command("refscore.missingFromReference", doc)
        ref_lines = reference.splitlines()
        on_emoji_line = [m for m in missing if m["range"]["start"]["line"] == 1 and m["kind"] == "ngram_match"]
        assert on_emoji_line, missing
        for item in on_emoji_line:  # each UTF-16 range points exactly at the text it names
            start = from_utf16(ref_lines[1], item["range"]["start"]["character"])
            assert ref_lines[1][start:].startswith(item["text"].split()[0]), (item, ref_lines[1][start:])
        assert any(from_utf16(ref_lines[1], m["range"]["start"]["character"]) != m["range"]["start"]["character"]
                   for m in on_emoji_line), "expected a range after an astral character"


def from_utf16(line: str, units: int) -> int:
    """Code-point column of a UTF-16 column."""
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += utf16(char)
    return len(line)


async def test_odd_documents_get_defined_results(tmp_path: Path) -> None:
    (tmp_path / "odd.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    cand = tmp_path / "odd.py"
    cand.write_text("", encoding="utf-8")
    deep = "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n"
    broken = "def (((:\n  return ]]] @@@ \x00\n\tclass\n"
    async with session(tmp_path, settings={"debounceMs": 0}) as s:
        doc = s.open(cand, text="")
        empty = await s.wait_summary(doc, version=1)
        assert "CodeBLEU" in empty.message
        for text in (deep, broken, "\ufeff" + samples.CANDIDATE, "\n" * 5000):
            version = s.replace_all(doc, text)
            summary = await s.wait_summary(doc, version=version)
            assert summary.code == "refscore.summary"
        huge = "x = 1\n" * 200_000
        version = s.replace_all(doc, huge)
        problem = await s.wait_for(
            lambda: [d for u, v, ds in s.published if u == doc and v == version for d in ds], what="huge")
        assert problem[0].code == "refscore.problem" and "too large" in problem[0].message
        s.replace_all(doc, samples.CANDIDATE)  # and it recovers
        await s.wait_summary(doc, version=version + 1)
        assert s.client.error is None


async def test_close_clears_diagnostics(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "c")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        s.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=doc)))
        await s.wait_for(lambda: s.diagnostics(doc) == [], what="cleared diagnostics")
        await asyncio.sleep(0.3)
        assert s.diagnostics(doc) == []
