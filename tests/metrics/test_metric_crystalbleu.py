"""CrystalBLEU (refscore.metrics.crystalbleu): the crystalbleu package's numbers on real
tree-sitter tokens, the corpus's ignored n-grams, and the small-corpus refusal."""

from __future__ import annotations

import random

import pytest

from refscore.metrics.crystalbleu import (MIN_CORPUS, code_tokens, corpus_ignored, ignored_ngrams,
                                          score_crystalbleu, sentence_crystalbleu)
from refscore.metrics.signature import parse_signature

BODIES = ["return a + b;", "int s = 0; for (int i = 0; i < n; i++) { s += a[i]; } return s;",
          "if (x > 0) { return x; } return -x;", "for (int i = 0; i < n; i++) { if (a[i] == k) return i; } return -1;",
          "int m = a[0]; for (int i = 1; i < n; i++) { if (a[i] > m) m = a[i]; } return m;",
          "return n <= 1 ? n : f(n - 1) + f(n - 2);", "while (n > 0) { s += n % 10; n /= 10; } return s;"]


def _corpus(size: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    out = []
    for k in range(size):
        body = rng.choice(BODIES).replace("s", rng.choice(["s", "sum", "t"])).replace("n", rng.choice(["n", "len"]))
        out.append(f"int f{k}(int* a, int n, int k) {{ {body} }}")
    return out


def test_same_numbers_as_the_crystalbleu_package():
    crystalbleu = pytest.importorskip("crystalbleu")
    corpus = _corpus(40)
    tokens = [code_tokens(t, "cpp") for t in corpus]
    for k in (0, 10, 60, 500):
        ignored = ignored_ngrams(tokens, k).ngrams
        for i in range(0, 40, 3):
            refs = [tokens[i], tokens[(i + 7) % 40]]
            hyp = tokens[(i + 1) % 40]
            want = crystalbleu.sentence_bleu(refs, hyp, ignoring=ignored,
                                             smoothing_function=crystalbleu.SmoothingFunction().method1)
            assert sentence_crystalbleu(refs, hyp, ignored) == pytest.approx(want, abs=1e-12)


def test_ignored_ngrams_are_the_most_frequent_and_change_the_score():
    tokens = [code_tokens(t, "cpp") for t in _corpus(30)]
    ignored = ignored_ngrams(tokens, k=5)
    assert len(ignored.ngrams) == 5 and ("(",) in ignored.ngrams and (")",) in ignored.ngrams
    plain = sentence_crystalbleu([tokens[0]], tokens[1], frozenset())
    crystal = sentence_crystalbleu([tokens[0]], tokens[1], ignored_ngrams(tokens, k=200).ngrams)
    assert crystal < plain  # the shared boilerplate no longer counts


def test_identical_and_unrelated_code():
    corpus = _corpus(25)
    ignored = corpus_ignored(((t, "cpp") for t in corpus), k=20)
    same = score_crystalbleu(corpus[0], [corpus[0]], "cpp", ignored)
    assert same.score == pytest.approx(1.0)
    # as in the package: when the corpus is so small that every n-gram is ignored, nothing matches
    assert score_crystalbleu(corpus[0], [corpus[0]], "cpp", corpus_ignored((t, "cpp") for t in corpus)).score == 0
    assert score_crystalbleu("", [corpus[0]], "cpp", ignored).score == 0.0
    metric, fields = parse_signature(same.signature)
    assert metric == "crystalbleu" and fields["k"] == "20" and fields["corpus"] == "25"
    assert fields["ignored"] == ignored.digest and len(ignored.digest) == 10


def test_tokens_are_tree_sitter_leaves_without_comments():
    assert code_tokens("x = f(a, 'b c')  # note\n", "python") == ["x", "=", "f", "(", "a", ",", "'", "b c", "'", ")"]
    assert code_tokens("/* c */ int x = 1; // d", "cpp") == ["int", "x", "=", "1", ";"]


def test_a_small_corpus_is_refused_in_one_line():
    with pytest.raises(ValueError, match=f"at least {MIN_CORPUS} texts"):
        corpus_ignored(("x = 1", "python") for _ in range(3))
