"""Weak tokens and heat on whole code tokens, never word pieces, never in comments or docstrings
(issue 43, item 6): the grouping on real tree-sitter parses, and end to end with the real daemon
and model."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from refscore import languages
from refscore.lsp.words import code_tokens
from refscore.parsing.prose import prose_spans
from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, own_daemon
from tests.lsp.harness import session

CANDIDATE = '''def add_all(items):
    """Add the numbers up and hand the total back to the caller."""
    accumulated_total = 0  # the running sum of everything seen so far
    for x in items:
        accumulated_total += x
    return accumulated_total
'''
LANGUAGE = languages.get("python")  # the test's own sample language


def _piece(text: str, word: str, offset: int, length: int, similarity: float) -> SimpleNamespace:
    start = text.index(word) + offset
    return SimpleNamespace(start=start, end=start + length, similarity=similarity, match_start=None,
                           match_end=None, match_text=None)


def test_comments_and_docstrings_are_prose() -> None:
    found = [CANDIDATE[a:b] for a, b in prose_spans(CANDIDATE, LANGUAGE)]
    assert found == ['"""Add the numbers up and hand the total back to the caller."""',
                     "# the running sum of everything seen so far"]
    java = "// one\nint f() { /* two */ return \"// no\".length(); }\n"
    assert [java[a:b] for a, b in prose_spans(java, languages.get("java"))] == ["// one", "/* two */"]


def test_pieces_join_their_code_token_and_prose_is_left_out() -> None:
    pieces = [_piece(CANDIDATE, "accumulated_total =", 0, 5, 0.2),   # "accum"
              _piece(CANDIDATE, "accumulated_total =", 5, 6, 0.6),   # "ulated"
              _piece(CANDIDATE, "+=", 0, 1, 0.3), _piece(CANDIDATE, "+=", 1, 1, 0.5),
              _piece(CANDIDATE, "numbers", 0, 7, 0.1),  # in the docstring
              _piece(CANDIDATE, "running", 0, 7, 0.1)]  # in the comment
    tokens = code_tokens(CANDIDATE, LANGUAGE, pieces)
    assert [(t.text, round(t.similarity, 3)) for t in tokens] == [("accumulated_total", 0.4), ("+=", 0.4)]


BOTH = {"metrics": ["codebleu", "codebertscore"], "weakTokens": {"threshold": 0.99, "maxCount": 100}}


@pytest.mark.asyncio
@pytest.mark.skipif(bert_unavailable() is not None, reason=bert_unavailable() or "")
async def test_weak_tokens_and_heat_are_whole_code_tokens(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task", CANDIDATE)
    with own_daemon(tmp_path) as env:
        async with session(ws, settings=BOTH, init_options={"tokenScores": True}, daemon=True, env=env) as s:
            doc = s.open(cand)
            await s.wait_scored(doc)
            weak = [d for d in s.diagnostics(doc) if d.code == "refscore.weak-token"]
            heat = await s.wait_for(lambda: s.token_scores and s.token_scores[-1]["tokens"], what="token scores")
            slips = [d.range for d in s.diagnostics(doc) if d.code == "refscore.difference"]
            marked_slips = s.token_scores[-1]["differences"]
    lines = CANDIDATE.splitlines()
    prose = [(CANDIDATE.index('"""'), CANDIDATE.rindex('"""') + 3), (CANDIDATE.index("#"), CANDIDATE.index("far") + 3)]
    starts = [0] + [m.end() for m in re.finditer("\n", CANDIDATE)]

    def span(rng: dict) -> tuple[int, int, str]:
        start = starts[rng["start"]["line"]] + rng["start"]["character"]
        end = starts[rng["end"]["line"]] + rng["end"]["character"]
        return start, end, CANDIDATE[start:end]

    marked = [span({"start": {"line": d.range.start.line, "character": d.range.start.character},
                    "end": {"line": d.range.end.line, "character": d.range.end.character}}) for d in weak]
    marked += [span(t["range"]) for t in heat]
    assert weak and len(lines) > 1
    for start, end, text in marked:
        assert not any(a <= start < b for a, b in prose), (text, "in a comment or docstring")
        if re.fullmatch(r"\w+", text):  # a name or number: the whole of it
            assert not (start > 0 and re.match(r"\w", CANDIDATE[start - 1])), text
            assert not (end < len(CANDIDATE) and re.match(r"\w", CANDIDATE[end])), text
    # the heat map also gets the ranked differences, so the real slip is marked however alike its tokens look
    assert slips and all({"start": {"line": r.start.line, "character": r.start.character},
                          "end": {"line": r.end.line, "character": r.end.character}} in marked_slips for r in slips)
    names = {text for _, _, text in marked}
    assert "accumulated_total" in names and "add_all" in names, names
