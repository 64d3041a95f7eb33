"""CrystalBLEU for a grading run: the ignored n-grams come from the run's own texts.

The corpus of a language is every distinct submission and reference of the run's scorable items
in that language, counted in pass one over the blocks (``RunCorpus``, item by item: the candidate,
then its references), before any block is scored, so every engine and every block size gives each
submission the same ``report.crystalbleu`` (scored by the pipeline's corpus stage against
``CorpusStatistics(corpus)``). A language with fewer texts than CrystalBLEU needs gets one error
line per submission instead. The corpus travels to workers as plain data.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..metrics.crystalbleu import IgnoredNgrams, NgramCounts, code_tokens
from .items import GradeItem

#: language -> its ignored n-grams, or the one-line reason there are none.
Corpus = dict[str, "IgnoredNgrams | str"]


class RunCorpus:
    """Pass one: the distinct texts of every scorable item, counted per language."""

    def __init__(self) -> None:
        self._counts: dict[str, NgramCounts] = {}
        self._seen: dict[str, set[bytes]] = {}

    def add(self, item: GradeItem) -> None:
        """Count the item's candidate and references (each distinct text once per language)."""
        if not item.scorable:
            return
        language = item.language or ""
        counts = self._counts.setdefault(language, NgramCounts())
        seen = self._seen.setdefault(language, set())
        for text in (item.candidate or "", *item.references):
            digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            if digest not in seen:
                seen.add(digest)
                counts.add(code_tokens(text, language))

    def finish(self) -> Corpus:
        """Each language's ignored n-grams (or why it has none)."""
        out: Corpus = {}
        for language, counts in self._counts.items():
            try:
                out[language] = counts.ignored()
            except ValueError as error:
                out[language] = str(error)
        return out


def corpus_tag(corpus: Corpus) -> str:
    """What names the corpus in block keys: a new corpus is a new score."""
    return json.dumps({lang: v if isinstance(v, str) else v.digest for lang, v in sorted(corpus.items())})


def corpus_to_data(corpus: Corpus) -> dict[str, Any]:
    """Plain JSON-ready data (sent to Ray workers)."""
    return {lang: v if isinstance(v, str) else {"ngrams": sorted(list(g) for g in v.ngrams), "k": v.k,
                                                "documents": v.documents}
            for lang, v in corpus.items()}


def corpus_from_data(data: dict[str, Any]) -> Corpus:
    """The inverse of ``corpus_to_data``."""
    return {lang: v if isinstance(v, str) else IgnoredNgrams(frozenset(tuple(g) for g in v["ngrams"]),
                                                             int(v["k"]), int(v["documents"]))
            for lang, v in data.items()}

