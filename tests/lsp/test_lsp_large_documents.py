"""Large documents in the editor (issue 43, item 2): what is known from a text's size is said with
the first summary, and an edit asks again only for what it changed. Real server, pytest-lsp
client; the tests wait for events, never for a clock (the times are ``benchmarks/bench_lsp.py``'s)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from refscore.embed.bertscorer import DEFAULT_MAX_CHARS
from refscore.lsp.memo import ReportMemo
from refscore.scoring.report import ScoreReport, ScoreRequest
from tests.lsp.harness import session


def _statements(count: int, name: str) -> str:
    return "".join(f"{name}_{i} = {i} * 2 + {i % 7}\n" for i in range(count))


@pytest.mark.asyncio
async def test_a_text_over_the_codebertscore_limit_is_said_with_the_first_summary(tmp_path: Path) -> None:
    """No daemon here at all: the verdict comes from the lengths alone, before any model is asked
    (before, the summary waited for the daemon's answer, and without one said "unavailable")."""
    text = _statements(12_000, "value")
    assert len(text) > DEFAULT_MAX_CHARS
    (tmp_path / "big.ref.py").write_text(text.replace("* 2", "* 3"), encoding="utf-8")
    (tmp_path / "big.py").write_text(text, encoding="utf-8")
    async with session(tmp_path, settings={"metrics": ["codebleu", "codebertscore"]}) as s:
        doc = s.open(tmp_path / "big.py")
        first = await s.wait_summary(doc, 1)
        assert first.data["codebertscoreState"] == "skipped"
        assert first.data["codebertscoreNote"].startswith(f"CodeBERTScore skipped: text of {len(text)} characters")
        assert f"limit of {DEFAULT_MAX_CHARS} characters" in first.data["codebertscoreNote"]
        assert "CodeBERTScore skipped" in first.message
        assert 0 < first.data["codebleu"]["score"] < 1
        states = [d.data.get("codebertscoreState") for uri, _, found in s.published if uri == doc
                  for d in found if d.code == "refscore.summary"]
        assert "pending" not in states  # never "pending" on the way to "skipped"


def _request(text: str) -> ScoreRequest:
    return ScoreRequest(candidate=text, references=("ref",), language="python", metrics=("codebleu",))


def test_the_memo_asks_only_for_what_it_has_not_kept() -> None:
    asked: list[list[str]] = []

    def compute(requests: list[ScoreRequest]) -> list[ScoreReport]:
        asked.append([r.candidate for r in requests])
        return [ScoreReport(language="python") for r in requests]

    memo = ReportMemo(entries=3, chars=10_000)
    first = memo.answer([_request("a"), _request("b"), _request("a")], compute)
    assert asked == [["a", "b"]] and first[0] is first[2]
    memo.answer([_request("a"), _request("c")], compute)  # "a" kept: only "c" is asked for
    assert asked[-1] == ["c"]
    memo.answer([_request("d")], compute)  # four entries: the least recently used ("b") goes
    assert _request("b") not in memo and _request("a") in memo and len(memo) == 3
    memo.put(_request("e"), ScoreReport(language="python", errors=("codebertscore: failed",)))
    assert _request("e") not in memo  # a failure is asked for again next time
    small = ReportMemo(entries=100, chars=10)
    small.answer([_request("x" * 6), _request("y" * 6)], compute)  # 9 characters each (with "ref")
    assert len(small) == 1 and _request("y" * 6) in small


def test_an_edit_scores_again_only_the_function_it_touched() -> None:
    """The functions' CodeBLEU through the server's scorers: after a one-character edit, pairing
    the file again asks the scorer for the one function it touched, with the same numbers."""
    from refscore import languages
    from refscore.lsp.scorers import Scorers
    from refscore.scoring.pairing import pair_functions

    body = "def f{i}(values):\n    total = 0\n    for value in values:\n        total += value * {i}\n    return total\n\n"
    text = "".join(body.format(i=i) for i in range(30))
    reference = text.replace("total", "acc")
    scorers = Scorers(allow_daemon=False)
    real = scorers._local_scorer()
    asked: list[int] = []

    class Counting:
        def score_many(self, requests):
            asked.append(len(requests))
            return real.score_many(requests)

    scorers._local_scorer = lambda: Counting()  # type: ignore[method-assign]
    spec = languages.get("python")
    first = pair_functions(text, (reference,), spec, scorers.codebleu_many, (0.25, 0.25, 0.25, 0.25))
    assert len(first) == 30 and sum(asked) >= 30
    asked.clear()
    edited = text.replace("value * 7\n", "value * 77\n")
    again = pair_functions(edited, (reference,), spec, scorers.codebleu_many, (0.25, 0.25, 0.25, 0.25))
    assert asked == [1]
    changed = [k for k, (a, b) in enumerate(zip(first, again)) if a.codebleu != b.codebleu]
    assert changed == [7]
    fresh = pair_functions(edited, (reference,), spec, Scorers(allow_daemon=False).codebleu_many,
                           (0.25, 0.25, 0.25, 0.25))
    assert [p.codebleu for p in fresh] == [p.codebleu for p in again]  # kept reports, same numbers


@pytest.mark.asyncio
async def test_many_functions_get_their_f3_when_a_lens_is_resolved(tmp_path: Path) -> None:
    """Over ``EAGER_FUNCTIONS`` paired functions: the summary's CodeBERTScore does not wait for
    every function's; their lenses go out unresolved and ``codeLens/resolve`` asks for one."""
    from refscore.lsp.lazy_lenses import EAGER_FUNCTIONS
    from tests.lsp.daemon import bert_unavailable, daemon_env, stop_daemon

    reason = bert_unavailable()
    if reason is not None:
        pytest.skip(reason)
    body = "def f{i}(values):\n    total = 0\n    for value in values:\n        total += value * {i}\n    return total\n\n"
    count = EAGER_FUNCTIONS + 10
    text = "".join(body.format(i=i) for i in range(count))
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "many.ref.py").write_text(text.replace("total", "acc"), encoding="utf-8")
    (ws / "many.py").write_text(text, encoding="utf-8")
    env = daemon_env(tmp_path)
    try:
        async with session(ws, settings={"metrics": ["codebleu", "codebertscore"]}, daemon=True, env=env) as s:
            doc = s.open(ws / "many.py")
            await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebertscoreState"] == "done",
                             timeout=180, what="CodeBERTScore in the summary")
            lenses = [lens for lens in await s.lenses(doc) if lens.data.get("kind") != "behaviour"]
            assert len(lenses) == count and all(lens.command is None for lens in lenses)
            assert all(lens.data["resolve"]["index"] == k for k, lens in enumerate(lenses))
            caps = s.initialize_result.capabilities.code_lens_provider
            assert caps is not None and caps.resolve_provider
            lens = await asyncio.wait_for(s.client.code_lens_resolve_async(lenses[7]), 60)
            assert lens.command is not None and "F3" in lens.command.title and "vs f7" in lens.command.title
            assert 0 < lens.data["f3"] <= 1
    finally:
        stop_daemon(env)
