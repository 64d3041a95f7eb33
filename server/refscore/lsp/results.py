"""What the server knows about one document after scoring it (what every feature renders)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from ..parsing.memo import TextMemo
from ..bidi import BidiControl, find_bidi
from ..combined.domain import outside
from ..languages import LanguageSpec
from ..metrics.codebertscore_result import BertScore
from ..metrics.differences import Differences
from ..parsing.prose import prose_spans
from ..scoring.differences import find_differences
from ..scoring.pairing import FunctionPair, Region
from ..scoring.report import RefScore, ScoreReport
from .positions import Positions
from .references import ReferenceChoice
from .words import CodeToken, code_tokens

log = logging.getLogger(__name__)

#: What a result makes from its texts alone (cached in its ``__dict__``): kept by ``derive``.
_FROM_TEXTS = ("positions", "_ref_positions", "_ref_prose", "bidi")
#: A reference's position tables and prose spans, by its text (and the codec's encoding, the
#: grammar): an edit of the candidate makes a new result, never a new reference text.
_REFERENCE_POSITIONS: TextMemo[Positions] = TextMemo(entries=16, chars=8_000_000)
_REFERENCE_PROSE: TextMemo[list[tuple[int, int]]] = TextMemo(entries=16, chars=8_000_000)


def _encoding(codec: Any) -> str:
    """The position codec's encoding, as a key (None: the default UTF-16)."""
    return str(getattr(codec, "encoding", "utf-16")) if codec is not None else "utf-16"


@dataclass(frozen=True)
class Insertion:
    """A large single insertion scored on its own against its best reference region."""

    start: int
    end: int
    region: Region
    codebleu: float | None
    f3: float | None = None


@dataclass
class Result:
    """The last scores of one document version; ``problem`` replaces them when it could not be scored."""

    uri: str
    version: int
    text: str
    spec: LanguageSpec | None
    choice: ReferenceChoice
    reference_texts: tuple[str, ...] = ()
    reference_uris: tuple[str, ...] = ()
    report: ScoreReport | None = None
    functions: list[FunctionPair] = field(default_factory=list)
    insertion: Insertion | None = None
    bert_state: str = "off"  # off, pending, done, unavailable, setup (no torch here: refscore setup)
    bert_note: str | None = None
    problem: str | None = None
    codec: Any = None  # the session's pygls PositionCodec (pickled with the result: the worker
    # process builds the position tables in the session's encoding; the server puts its own back)
    #: while CodeBERTScore is pending: the last result's code tokens the edit did not touch, at
    #: their offsets in this text (``current.carried_tokens``): its weak tokens stay until replaced
    carried: tuple[CodeToken, ...] = ()
    #: the client asked for the ``refscore/tokenScores`` notification (``initializationOptions``):
    #: only then do the phases write its JSON (a large file's takes tens of ms)
    sends_token_scores: bool = False
    #: until this version's differences are ranked (``phases.ranking_phase``, right after its
    #: summary is published): the last result's differences the edit did not touch, at their
    #: offsets in this text (``current.carried_differences``); None once ranked
    carried_differences: Differences | None = None

    def derive(self, **changes: Any) -> Result:
        """``replace(self, **changes)`` that keeps what was made from the texts (position tables,
        the bidi scan) when the texts and the codec stay: the loop never rebuilds them."""
        made = replace(self, **changes)
        if made.text is self.text and made.reference_texts is self.reference_texts and made.codec is self.codec:
            made.__dict__.update({k: v for k, v in self.__dict__.items() if k in _FROM_TEXTS})
        return made

    @cached_property
    def positions(self) -> Positions:
        return Positions(self.text, self.codec)

    def reference_positions(self, index: int) -> Positions:
        cache = self.__dict__.setdefault("_ref_positions", {})
        if index not in cache:  # a reference outlives its candidate's versions: kept by content
            cache[index] = _REFERENCE_POSITIONS(self.reference_texts[index], _encoding(self.codec),
                                                lambda: Positions(self.reference_texts[index], self.codec))
        return cache[index]

    def reference_prose(self, index: int) -> list[tuple[int, int]]:
        """The comments and docstrings of reference ``index`` (``parsing.prose``), as offsets."""
        cache = self.__dict__.setdefault("_ref_prose", {})
        if index not in cache:
            text, spec = self.reference_texts[index], self.spec
            cache[index] = _REFERENCE_PROSE(text, spec.name, lambda: prose_spans(text, spec)) if spec is not None else []
        return cache[index]

    @cached_property
    def bidi(self) -> list[BidiControl]:
        """The bidi controls in the text (``diagnostics.bidi_diagnostics``), as the report's checks stage found them
        (``scoring.checks``); only a document without a report (its problem shown instead) is
        scanned here."""
        checks = self.report.checks if self.report is not None else None
        return list(checks.bidi) if checks is not None else find_bidi(self.text)

    @cached_property
    def code_tokens(self) -> list[CodeToken]:
        """CodeBERTScore's similarities on whole code tokens, none in comments or docstrings
        (``words``); empty without token alignments."""
        bert = self.bert
        if self.problem is not None or bert is None or not bert.candidate_tokens:
            return []
        return code_tokens(self.text, self.spec, bert.candidate_tokens)

    @cached_property
    def differences(self) -> Differences:
        """Where the text departs from its reference, ranked (computed once per result; while
        the ranking is pending, the carried ones)."""
        if self.carried_differences is not None:
            return self.carried_differences
        if self.report is None or not self.reference_texts or self.spec is None:
            return Differences()
        try:
            return find_differences(self.text, self.reference_texts, self.report, self.spec.name)
        except Exception as error:  # noqa: BLE001 - the differences are optional; the scores still show
            log.exception("ranking the differences failed")
            return Differences(note=f"differences failed: {type(error).__name__}")

    @property
    def differences_state(self) -> str:
        """``pending`` while the differences shown are carried from the last result, else ``done``."""
        return "pending" if self.carried_differences is not None else "done"

    @property
    def functions_pending(self) -> bool:
        """Whether some paired function's CodeBLEU is scored with the differences (a summary's:
        the functions its edit touched; ``phases.ranking_phase``)."""
        return any(pair.pending for pair in self.functions)

    @property
    def bert(self) -> BertScore | None:
        """The CodeBERTScore result, None until it exists."""
        return self.report.codebertscore if self.report is not None else None

    @property
    def refscore(self) -> RefScore | None:
        """The combined number, once the report has both halves and the shipped fit applies
        (``scoring.pipeline.finish`` made it; the editor only renders it), and only inside the
        data its fit saw (``refscore_withheld`` says why not)."""
        combined = self.report.refscore if self.report is not None else None
        return combined if combined is not None and self.refscore_withheld is None else None

    @property
    def refscore_withheld(self) -> str | None:
        """Why the combined number is not shown (its inputs lie outside its fit's data), in words."""
        combined = self.report.refscore if self.report is not None else None
        return None if combined is None else outside(dict(combined.components), combined.signature)
