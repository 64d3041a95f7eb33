"""One version of a document is parsed once by the analyses that read it (CodeBLEU's structure,
the code tokens, the functions, the prose spans), and the kept trees stay within their bounds."""

from __future__ import annotations

from refscore import languages
from refscore.analysis.document import analyse_structure
from refscore.analysis.functions import top_level_functions
from refscore.analysis.leaves import code_tokens
from refscore.languages.spec import LanguageSpec
from refscore.parsing import parsed
from refscore.parsing.prose import prose_spans
from tests.support.calls import counted


def test_the_analyses_of_one_text_share_one_parse(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls = counted(monkeypatch, LanguageSpec, "parse", lambda spec, source: len(source))
    spec = languages.get("python")
    text = "def f(x):\n    # why\n    return x + 1  # shared-parse test\n\n\ndef g():\n    return f(2)\n"
    analyse_structure(text, "python", "native")
    assert [t.text for t in code_tokens(text, "python")][:3] == ["def", "f", "("]
    assert [f.name for f in top_level_functions(text, spec)] == ["f", "g"]
    assert [text[a:b] for a, b in prose_spans(text, spec)] == ["# why", "# shared-parse test"]
    assert calls == [len(text)]


def test_kept_trees_are_bounded() -> None:
    spec = languages.get("python")
    first = parsed.parse(spec, b"x = 1\n")
    assert parsed.parse(spec, b"x = 1\n") is first
    assert parsed.parse(spec, b"x = 2\n") is not first
    for k in range(parsed.KEPT_TREES + 1):
        parsed.parse(spec, f"y = {k}\n".encode())
    assert parsed.parse(spec, b"x = 1\n") is not first  # dropped, parsed again
    huge = b"z = 0\n" * (parsed.KEPT_BYTES // 6 + 1)
    assert parsed.parse(spec, huge) is not parsed.parse(spec, huge)  # over the bound: never kept
    assert len(parsed._kept) <= parsed.KEPT_TREES and parsed._bytes <= parsed.KEPT_BYTES


def test_part_memos_follow_the_servers_character_bound(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from refscore.analysis import cache
    from refscore.parsing import memo as memos

    kept = memos.TextMemo(entries=100, chars=1000)
    for k in range(5):
        kept(f"text {k} " * 10, "t", lambda: k)
    monkeypatch.setattr(memos, "_ALL", [kept])
    monkeypatch.setattr(memos, "_LIMIT", [])
    monkeypatch.setattr(cache, "_ALL", [])
    monkeypatch.setattr(cache, "_LIMIT", [])
    cache.limit_caches(48, 150)  # the language server's call: entries stay, characters drop
    assert kept.entries == 100 and kept.chars == 150 and len(kept._kept) == 2
    assert kept("x" * 200, "t", lambda: "big") == "big" and len(kept._kept) == 2  # over the bound: not kept
    later = memos.TextMemo(entries=100, chars=1000)
    assert later.chars == 150
