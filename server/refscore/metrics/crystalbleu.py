"""CrystalBLEU (Eghbali and Pradel, 2022): BLEU without the trivially shared n-grams of a corpus.

The ``k`` most frequent 1- to 4-grams of a corpus (in grading: the references and submissions of
the run) are ignored when counting matches, so the boilerplate every program of a language
shares (``) ;``, ``for ( int``) earns nothing. Tokens are the tree-sitter leaves of the code
(comments dropped). The sentence score is the ``crystalbleu`` package's ``sentence_bleu`` with
NLTK's smoothing method 1 (0.1 added to orders without a match), computed here with the same
numbers (tests/metrics/test_metric_crystalbleu.py compares them):

* modified precision per order: clipped counts of the candidate's n-grams that are not ignored,
  over their number (at least 1);
* brevity penalty on the full token counts against the closest reference length;
* 0 when no unigram matches.

A corpus smaller than ``MIN_CORPUS`` texts has no meaningful frequent n-grams: ``ignored_ngrams``
raises ``ValueError`` (one line) rather than ignoring most of what the texts share.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from .signature import build_signature

METRIC = "crystalbleu"
DEFAULT_K = 500
MAX_ORDER = 4
SMOOTHING_EPSILON = 0.1
MIN_CORPUS = 20
Ngram = tuple[str, ...]


@dataclass(frozen=True)
class IgnoredNgrams:
    """The trivially shared n-grams of one corpus and what they came from."""

    ngrams: frozenset
    k: int
    documents: int

    @property
    def digest(self) -> str:
        """Short digest of the set (names the corpus in signatures and caches)."""
        text = "\n".join(sorted("\x1f".join(g) for g in self.ngrams))
        return hashlib.sha1(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:10]


@dataclass(frozen=True)
class CrystalScore:
    """CrystalBLEU of one candidate and how it was made."""

    score: float
    k: int
    corpus: int  # texts the ignored n-grams came from
    signature: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"score": self.score, "k": self.k, "corpus": self.corpus, "signature": self.signature}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "CrystalScore":
        """Inverse of ``to_dict``."""
        return cls(float(data["score"]), int(data.get("k", DEFAULT_K)), int(data.get("corpus", 0)),
                   str(data.get("signature", "")))


def code_tokens(code: str, language: str) -> list[str]:
    """The leaf tokens of ``code``'s tree-sitter parse, comments dropped, in order."""
    from .. import languages

    spec = languages.get(language)
    data = code.encode("utf-8", errors="surrogatepass")
    root = spec.parse(data).root_node
    comments = spec.comment_node_types
    out: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in comments:
            continue
        if node.child_count == 0:
            if node.end_byte > node.start_byte:
                out.append(data[node.start_byte:node.end_byte].decode("utf-8", errors="replace"))
            continue
        stack.extend(reversed(node.children))
    return out


def _ngrams(tokens: Sequence[str], n: int) -> list[Ngram]:
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


class NgramCounts:
    """1..4-gram counts of a growing corpus of tokenised documents (n-grams do not cross
    documents; equal counts keep first-seen order)."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.documents = 0

    def add(self, tokens: Sequence[str]) -> None:
        """Count one more document."""
        self.documents += 1
        for n in range(1, MAX_ORDER + 1):
            self.counts.update(_ngrams(tokens, n))

    def ignored(self, k: int = DEFAULT_K) -> IgnoredNgrams:
        """The ``k`` most frequent n-grams so far (ValueError below ``MIN_CORPUS`` documents)."""
        if self.documents < MIN_CORPUS:
            raise ValueError(f"CrystalBLEU needs a corpus of at least {MIN_CORPUS} texts to find the "
                             f"shared n-grams (got {self.documents})")
        return IgnoredNgrams(frozenset(g for g, _ in self.counts.most_common(k)), k, self.documents)


def ignored_ngrams(documents: Iterable[Sequence[str]], k: int = DEFAULT_K) -> IgnoredNgrams:
    """The ``k`` most frequent 1..4-grams over tokenised ``documents`` (``NgramCounts``)."""
    counts = NgramCounts()
    for tokens in documents:
        counts.add(tokens)
    return counts.ignored(k)


def signature(ignored: IgnoredNgrams) -> str:
    """``crystalbleu|k:500|corpus:<texts>|ignored:<digest>|tok:tree-sitter|smooth:1|version:...``."""
    return build_signature(METRIC, (("k", ignored.k), ("corpus", ignored.documents),
                                    ("ignored", ignored.digest), ("tok", "tree-sitter"),
                                    ("smooth", "1")))


def sentence_crystalbleu(references: Sequence[Sequence[str]], hypothesis: Sequence[str],
                         ignored: frozenset | set) -> float:
    """CrystalBLEU of one tokenised hypothesis against tokenised references."""
    numerators, denominators = [], []
    for n in range(1, MAX_ORDER + 1):
        counts = Counter(g for g in _ngrams(hypothesis, n) if g not in ignored)
        best: dict[Ngram, int] = {}
        for ref in references:
            ref_counts = Counter(g for g in _ngrams(ref, n) if g not in ignored)
            for gram in counts:
                best[gram] = max(best.get(gram, 0), ref_counts[gram])
        numerators.append(sum(min(c, best[g]) for g, c in counts.items()))
        denominators.append(max(1, sum(counts.values())))
    if numerators[0] == 0 or not references:
        return 0.0
    hyp_len = len(hypothesis)
    ref_len = min((len(r) for r in references), key=lambda length: (abs(length - hyp_len), length))
    penalty = 1.0 if hyp_len > ref_len else (0.0 if hyp_len == 0 else math.exp(1 - ref_len / hyp_len))
    logs = [math.log((num if num else SMOOTHING_EPSILON) / den)
            for num, den in zip(numerators, denominators)]
    return penalty * math.exp(math.fsum(0.25 * value for value in logs))


def score_crystalbleu(candidate: str, references: Sequence[str] | str, language: str,
                      ignored: IgnoredNgrams) -> CrystalScore:
    """CrystalBLEU of ``candidate`` against ``references``, ignoring ``ignored.ngrams``."""
    refs = [references] if isinstance(references, str) else list(references)
    value = sentence_crystalbleu([code_tokens(r, language) for r in refs],
                                 code_tokens(candidate, language), ignored.ngrams)
    return CrystalScore(value, ignored.k, ignored.documents, signature(ignored))


def corpus_ignored(texts: Iterable[tuple[str, str]], k: int = DEFAULT_K) -> IgnoredNgrams:
    """``ignored_ngrams`` over ``(code, language)`` texts (each distinct text counted once)."""
    return ignored_ngrams((code_tokens(code, lang) for code, lang in dict.fromkeys(texts)), k)
