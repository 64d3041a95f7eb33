"""The whitespace tokens and n-gram counts of an edited text made from its last version's
(``recount_edits``: an editing process, where each version repeats most of the last).

The tokens before and after the edit are the last version's; only the n-grams that overlap the
edit are counted out and the new ones in. The words and counts are a fresh analysis's (the
counts' key order may differ, which no reader depends on: each sums counts or looks keys up), so
the same text gives the same numbers whatever the path (``tests/analysis/test_token_edits.py``).
A 20,000-line file's token analysis after a one-character edit took a sixth of a fresh one's.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Protocol, Sequence

from ..parsing.shared_ends import shared_prefix, shared_suffix

#: Texts shorter than this are counted afresh (a fraction of a millisecond).
MIN_CHARS = 4096
#: A text is derived from a kept one only when the changed part is at most this share of it.
MAX_CHANGED = 0.25
#: Analyses kept to derive from (the last versions of the documents being edited).
KEPT = 3
MAX_NGRAM = 4

_ON: list[bool] = [False]
_kept: deque["Counted"] = deque(maxlen=KEPT)
_lock = threading.Lock()
#: How many analyses were derived (kept for the tests: the path must be taken to be checked).
derived = [0]


class Counted(Protocol):
    """What a token analysis holds that a derivation reads (``document.TokenAnalysis``)."""

    words: tuple[str, ...]
    counts: tuple[dict, ...]
    text: str | None


def recount_edits(on: bool = True) -> None:
    """Derive token analyses of long texts from kept ones in this process; the words and counts
    are the same either way."""
    _ON[0] = on
    if not on:
        with _lock:
            _kept.clear()


def keep(analysis: Counted) -> None:
    """Keep ``analysis`` (a whitespace token analysis) to derive later versions from."""
    if _ON[0] and analysis.text is not None and len(analysis.text) >= MIN_CHARS:
        with _lock:
            _kept.append(analysis)


def recount(text: str) -> tuple[tuple[str, ...], tuple[dict, ...]] | None:
    """The words and n-gram counts of ``text`` derived from the kept analysis it differs least
    from; None when none is kept or close enough (the caller counts afresh)."""
    if not _ON[0] or len(text) < MIN_CHARS:
        return None
    with _lock:
        kept = list(_kept)
    best, most = None, len(text) * (1 - MAX_CHANGED)
    for analysis in kept:
        old = analysis.text
        assert old is not None
        prefix = shared_prefix(old, text)
        suffix = shared_suffix(old, text, min(len(old), len(text)) - prefix)
        if prefix + suffix >= most:
            best, most = (analysis, prefix, suffix), prefix + suffix
    if best is None:
        return None
    derived[0] += 1
    return _derive(*best, text)


def _derive(analysis: Counted, prefix: int, suffix: int, text: str) -> tuple[tuple[str, ...], tuple[dict, ...]]:
    old, words = analysis.text, analysis.words
    assert old is not None
    start = prefix  # back to a whitespace both versions share: the tokens before it are whole
    while start > 0 and not old[start - 1].isspace():
        start -= 1
    end = len(old) - suffix  # on to one after the edit: the tokens from it on are whole too
    while end < len(old) and not old[end].isspace():
        end += 1
    new_end = end + len(text) - len(old)
    removed, added = old[start:end].split(), text[start:new_end].split()
    if start <= len(old) // 2:
        before = len(old[:start].split())
    else:
        before = len(words) - len(removed) - len(old[end:].split())
    after = before + len(removed)  # where the kept tokens after the edit start in ``words``
    new_words = words[:before] + tuple(added) + words[after:]
    if removed == added:
        return new_words, analysis.counts
    counts = tuple(_recounted(analysis.counts[n - 1], _grams(words, before, after, n),
                              _grams(new_words, before, before + len(added), n))
                   for n in range(1, MAX_NGRAM + 1))
    return new_words, counts


def _grams(words: Sequence[str], first: int, end: int, n: int) -> list[str]:
    """The keys of the n-grams of ``words`` that overlap ``words[first:end]`` (those that span
    ``first`` when the range is empty): words, or words joined by a space (``document._keyed_counts``)."""
    window = words[max(0, first - n + 1):min(len(words), end + n - 1)]
    if n == 1:
        return list(window)
    return list(map(" ".join, zip(*(window[i:] for i in range(n)))))


def _recounted(counts: dict, removed: list[str], added: list[str]) -> dict:
    out = dict(counts)
    for gram in removed:
        left = out[gram] - 1
        if left:
            out[gram] = left
        else:
            del out[gram]
    for gram in added:
        out[gram] = out.get(gram, 0) + 1
    return out
