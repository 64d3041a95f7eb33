"""The analysis caches are bounded by entries and by the characters of text they hold."""

from __future__ import annotations

import threading

from refscore.analysis.cache import sized_cache
from refscore.analysis.document import STRUCTURE_CACHE_CHARS, analyse_structure


def _counting(max_entries: int, max_chars: int):
    calls: list[str] = []

    @sized_cache(max_entries=max_entries, max_chars=max_chars)
    def upper(text: str, suffix: str = "") -> str:
        calls.append(text)
        return text.upper() + suffix

    return upper, calls


def test_hits_misses_and_recency() -> None:
    upper, calls = _counting(max_entries=2, max_chars=100)
    assert upper("a") == "A" and upper("b") == "B" and upper("a") == "A"
    upper("c")  # evicts "b", the least recently used
    upper("a")
    upper("b")
    assert calls == ["a", "b", "c", "b"]
    info = upper.cache_info()
    assert (info.hits, info.misses, info.currsize, info.maxsize) == (2, 4, 2, 2)


def test_text_size_bounds_the_cache() -> None:
    upper, calls = _counting(max_entries=100, max_chars=10)
    upper("aaaa")
    upper("bbbb")
    upper("cccc")  # 12 characters > 10: "aaaa" goes
    assert upper.cache_info().chars == 8
    upper("bbbb")
    upper("aaaa")
    assert calls == ["aaaa", "bbbb", "cccc", "aaaa"]
    upper("x" * 11)  # larger than the whole budget: computed, never kept
    upper("x" * 11)
    assert calls[-2:] == ["x" * 11, "x" * 11]
    assert upper.cache_info().chars <= 10


def test_other_arguments_are_part_of_the_key_and_clear_resets() -> None:
    upper, calls = _counting(max_entries=10, max_chars=100)
    assert upper("a", "!") == "A!" and upper("a", "?") == "A?"
    assert len(calls) == 2
    upper.cache_clear()
    assert upper.cache_info().currsize == 0 and upper.cache_info().chars == 0
    upper("a", "!")
    assert len(calls) == 3


def test_concurrent_callers_keep_the_bounds() -> None:
    upper, _ = _counting(max_entries=8, max_chars=40)
    errors: list[BaseException] = []

    def hammer(seed: int) -> None:
        try:
            for i in range(2000):
                text = f"{(seed * 7 + i) % 23:02d}" * (1 + i % 3)
                assert upper(text) == text.upper()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=hammer, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    info = upper.cache_info()
    assert info.currsize <= 8 and info.chars <= 40


def test_the_analyses_use_bounded_caches() -> None:
    from refscore.analysis.comments import strip_compat
    from refscore.analysis.document import analyse_tokens

    for cached in (analyse_structure, analyse_tokens, strip_compat):
        info = cached.cache_info()
        assert 0 < info.max_chars <= STRUCTURE_CACHE_CHARS and info.chars <= info.max_chars
    analyse_structure("y = 2\n", "python", "native")
    before = analyse_structure.cache_info()
    analyse_structure("y = 2\n", "python", "native")
    assert analyse_structure.cache_info().hits == before.hits + 1


def test_keyword_arguments_are_part_of_the_key() -> None:
    upper, calls = _counting(max_entries=10, max_chars=10)
    assert upper("ab", suffix="!") == "AB!" and upper("ab", suffix="!") == "AB!"
    assert upper(text="cd") == "CD" and upper(text="cd") == "CD"
    assert calls == ["ab", "cd"]
    assert upper.cache_info().chars == 4


def test_the_text_counts_wherever_it_is_passed() -> None:
    @sized_cache(max_entries=10, max_chars=10)
    def joined(text: str, a: str = "", z: str = "") -> str:
        return a + text + z

    assert joined(a="x", text="abcd", z="y") == "xabcdy"
    assert joined.cache_info().chars == 4  # the text's length, not another keyword's
