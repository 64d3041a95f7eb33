"""chrF: character n-gram F-score (Popović 2015), computed by sacrebleu, on a 0..1 scale.

sacrebleu's sentence chrF with its defaults (character order 6, word order 0, beta 2: recall
weighs more), best over several references as sacrebleu does; ``word_order=2`` gives chrF++
(word unigrams and bigrams too, Popović 2017), an input of the combined RefScore number. By default both sides go through
the CodeBERTScore paper's normaliser first (newlines to spaces, whitespace runs collapsed,
``'`` to ``"``), the setting measured in docs/correlation.md. sacrebleu is an optional
dependency (``pip install 'refscore[eval]'``); without it ``score_chrf`` raises ImportError with
that hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Sequence

from .signature import build_signature

METRIC = "chrf"
CHAR_ORDER = 6
WORD_ORDER = 0
CHRF_PLUS_WORD_ORDER = 2
BETA = 2
_SPACES = re.compile(r"\s+")
#: Reference sets whose n-grams are kept (``_chrf_against``).
REFERENCES_KEPT = 4


def paper_normalise(code: str) -> str:
    """The CodeBERTScore paper's text normaliser: newlines to spaces, whitespace runs collapsed,
    ' to \"."""
    return _SPACES.sub(" ", code.replace("\n", " ")).replace("'", '"').strip()


@dataclass(frozen=True)
class ChrfScore:
    """chrF of one candidate against its references (0..1) and how it was made."""

    score: float
    normalised: bool
    signature: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"score": self.score, "normalised": self.normalised, "signature": self.signature}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ChrfScore":
        """Inverse of ``to_dict``."""
        return cls(float(data["score"]), bool(data.get("normalised", True)),
                   str(data.get("signature", "")))


def _chrf_class() -> Any:
    try:
        from sacrebleu.metrics import CHRF
    except ImportError as error:  # one clear line for the report's errors
        raise ImportError("chrF needs sacrebleu (pip install 'refscore[eval]')") from error
    return CHRF


@lru_cache(maxsize=REFERENCES_KEPT)
def _chrf_against(word_order: int, references: tuple[str, ...]) -> Any:
    """sacrebleu's chrF with ``references``' n-grams counted once (``references=`` caches them):
    the editor scores each edit of a candidate against the same reference, whose n-grams were
    most of a sentence score's work. ``corpus_score([candidate], None)`` on it is
    ``sentence_score(candidate, references)``: the same statistics, aggregated the same way."""
    return _chrf_class()(char_order=CHAR_ORDER, word_order=word_order, beta=BETA,
                         references=[[reference] for reference in references])


def _sacrebleu_version() -> str:
    import sacrebleu

    return str(sacrebleu.__version__)


def signature(normalise: bool = True, word_order: int = WORD_ORDER) -> str:
    """``chrf|nc:6|nw:0|beta:2|norm:paper|sacrebleu:2.6.0|version:...`` (``nw:2``: chrF++)."""
    return build_signature(METRIC, (("nc", CHAR_ORDER), ("nw", word_order), ("beta", BETA),
                                    ("norm", "paper" if normalise else "none"),
                                    ("sacrebleu", _sacrebleu_version())))


def score_chrf(candidate: str, references: Sequence[str] | str, normalise: bool = True,
               word_order: int = WORD_ORDER) -> ChrfScore:
    """Sentence chrF (``word_order=2``: chrF++) of ``candidate`` against ``references`` (best
    reference), 0..1.

    An empty candidate or no reference scores 0.0."""
    refs = [references] if isinstance(references, str) else list(references)
    if normalise:
        candidate = paper_normalise(candidate)
        refs = [paper_normalise(r) for r in refs]
    value = _chrf_against(word_order, tuple(refs)).corpus_score([candidate], None).score / 100.0 if refs else 0.0
    return ChrfScore(float(value), normalise, signature(normalise, word_order))

