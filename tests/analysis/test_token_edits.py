"""An editing process derives a long text's whitespace tokens and n-gram counts from its last
version's (``analysis.token_edits``): on random edits (tokens split, joined, typed at either end,
whitespace of every kind) the words and counts are a fresh analysis's, the derived path is taken,
and CodeBLEU gives the same numbers either way."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refscore.analysis import document, token_edits
from refscore.scoring.codebleu import score_codebleu
from tests.analysis.test_code_tokens_parts import PYTHON_PARTS, _edit

#: Whitespace of every kind ``str.split`` splits on, and characters that are not whitespace.
SPACES = " \n\t\r\x0b\x0c\x1c\x85\u00a0\u2028\u3000"
WORDS = ["a", "b", "ab", "x1", "(", ")", "=", "é", "\u200b"]  # \u200b: not whitespace


@pytest.fixture
def recounting(monkeypatch):
    """Derivation on for texts of any length, nothing kept from other tests, no cached analyses."""
    monkeypatch.setattr(token_edits, "MIN_CHARS", 0)
    monkeypatch.setattr(token_edits, "_kept", type(token_edits._kept)(maxlen=token_edits.KEPT))
    token_edits.recount_edits()
    document.analyse_tokens.cache_clear()
    yield
    token_edits.recount_edits(False)
    document.analyse_tokens.cache_clear()


def _fresh(text: str) -> document.TokenAnalysis:
    words = text.split()
    return document.TokenAnalysis(tuple(words), document._keyed_counts(words, True), text)


def _same(derived: document.TokenAnalysis, text: str) -> None:
    fresh = _fresh(text)
    assert derived.words == fresh.words
    assert derived.counts == fresh.counts  # dict equality: the same keys and counts, any order


def _versions(rng: random.Random, count: int) -> list[str]:
    text = "".join(rng.choice(PYTHON_PARTS) for _ in range(10))
    out = []
    for _ in range(count):
        text = _edit(text, rng)
        out.append(text)
    return out


def test_random_edits_of_code_give_a_fresh_analysis(recounting) -> None:
    before = token_edits.derived[0]
    for seed in range(8):
        for text in _versions(random.Random(seed), 25):
            _same(document.analyse_tokens(text), text)
    assert token_edits.derived[0] - before > 150  # the derived path was the one checked


@settings(max_examples=300, deadline=None)
@given(base=st.lists(st.sampled_from(WORDS + list(SPACES)), min_size=0, max_size=40),
       at=st.integers(0, 60), cut=st.integers(0, 6),
       typed=st.lists(st.sampled_from(WORDS + list(SPACES)), max_size=6))
def test_any_edit_of_any_spacing_gives_a_fresh_analysis(base, at, cut, typed) -> None:
    old = "".join(base)
    at = min(at, len(old))
    new = old[:at] + "".join(typed) + old[at + cut:]
    words, counts = token_edits._derive(_fresh(old), *_ends(old, new), new)
    fresh = _fresh(new)
    assert words == fresh.words and counts == fresh.counts


def _ends(old: str, new: str) -> tuple[int, int]:
    from refscore.parsing.shared_ends import shared_prefix, shared_suffix

    prefix = shared_prefix(old, new)
    return prefix, shared_suffix(old, new, min(len(old), len(new)) - prefix)


def test_codebleu_is_the_same_on_a_derived_analysis(recounting) -> None:
    rng = random.Random(7)
    reference = "".join(rng.choice(PYTHON_PARTS) for _ in range(10))
    versions = _versions(rng, 12)
    derived = [score_codebleu([reference], text, "python") for text in versions]
    token_edits.recount_edits(False)
    document.analyse_tokens.cache_clear()
    fresh = [score_codebleu([reference], text, "python") for text in versions]
    assert [r.score for r in derived] == [r.score for r in fresh]
    assert [r.components for r in derived] == [r.components for r in fresh]


def test_a_text_far_from_every_kept_one_is_counted_afresh(recounting) -> None:
    document.analyse_tokens("alpha beta gamma " * 50)
    before = token_edits.derived[0]
    other = "delta epsilon " * 60
    _same(document.analyse_tokens(other), other)
    assert token_edits.derived[0] == before
