"""The typed, serialisable request and report every front end shares."""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any, Sequence

from ..behaviour.result import BehaviourResult
from ..combined.explain import Term
from ..metrics.chrf import ChrfScore
from ..metrics.codebertscore_result import BertScore
from ..metrics.codebleu import CodeBleuResult, ComponentScore, Explanation
from ..metrics.crystalbleu import CrystalScore
from ..metrics.tsed import TsedScore
from .checks import Checks
from ..vocabulary import codebleu_name

# The metric and rule names are the settings schema's (declared once, with their checks).
from ..settings_schema import (ALL_METRICS, BEHAVIOUR_METRICS, CODEBLEU_RULES, CORPUS_METRICS,  # noqa: F401
                               DEFAULT_METRICS, DEFAULT_SETTINGS, KNOWN_METRICS, TEXT_METRICS, CarriesSettings,
                               ScoreSettings)


@dataclass(frozen=True, init=False)
class ScoreRequest(CarriesSettings):
    """Score ``candidate`` against ``references`` in ``language`` under ``settings`` (every
    setting that changes a number, one ``ScoreSettings``).

    ``ScoreRequest(candidate, references, language, metrics=("codebleu",), layer=3)`` names
    settings flat, over ``settings`` (``ScoreSettings.changed``); one reference or metric given as
    a string means that one (a string used to be taken as a sequence of one-character
    references); lists become tuples."""

    candidate: str
    references: tuple[str, ...]
    language: str
    context: str | None = None  # the task's description, given to CodeBERTScore
    settings: ScoreSettings = DEFAULT_SETTINGS
    explain: bool = True
    #: the editor's unsaved buffer: CodeBERTScore may encode top-level definitions one by one
    #: (fast updates, not the exact numbers; signature ``split:defs``; embed/incremental.py)
    live: bool = False

    def __init__(self, candidate: str, references: str | Sequence[str], language: str, context: str | None = None,
                 *, settings: ScoreSettings = DEFAULT_SETTINGS, explain: bool = True, live: bool = False,
                 **flat: Any) -> None:
        put = object.__setattr__
        put(self, "candidate", candidate)
        put(self, "references", (references,) if isinstance(references, str) else tuple(references))
        put(self, "language", language)
        put(self, "context", context)
        put(self, "settings", settings.changed(**flat))
        put(self, "explain", explain)
        put(self, "live", live)


@dataclass(frozen=True)
class RefScore:
    """The combined RefScore number, the inputs it used and how it was made."""

    score: float
    components: tuple[tuple[str, float], ...]
    signature: str
    #: each input's share of the logit (what pulled the score up or down), in the model's order
    contributions: tuple[tuple[str, float], ...] = ()
    #: the logit of a candidate whose inputs all sit at their training means
    intercept: float = 0.0
    #: each input in words: raw value, transformed value, mean, weight, share (``combined.explain``)
    terms: tuple[Term, ...] = ()

    @property
    def logit(self) -> float:
        """The intercept plus every input's share (the score is its logistic)."""
        return self.intercept + sum(share for _, share in self.contributions)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (components and contributions as objects; ``inputs``: one object per term)."""
        return {"score": self.score, "components": dict(self.components), "signature": self.signature,
                "contributions": dict(self.contributions), "intercept": self.intercept, "logit": self.logit,
                "inputs": [term.to_dict() for term in self.terms]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RefScore":
        """Inverse of ``to_dict``."""
        def pairs(key: str) -> tuple[tuple[str, float], ...]:
            return tuple((str(k), float(v)) for k, v in dict(data.get(key, {})).items())

        return cls(float(data["score"]), pairs("components"), str(data.get("signature", "")), pairs("contributions"),
                   float(data.get("intercept", 0.0)), tuple(Term.from_dict(t) for t in data.get("inputs", ())))

    def strongest(self, count: int = 4) -> list[tuple[str, str, float]]:
        """(input, its value for a reader, contribution) of the ``count`` inputs that moved the
        score most."""
        from ..combined.labels import describe_input

        values = dict(self.components)
        ranked = sorted(self.contributions, key=lambda item: -abs(item[1]))[:count]
        return [(name, describe_input(name, values), share) for name, share in ranked]


@dataclass(frozen=True)
class ScoreReport:
    """Everything known about one scored candidate; ``errors`` says what could not be computed.

    Frozen and built once, by the pipeline's finish stage (``scoring.pipeline.finish``), or
    rebuilt from its JSON form (``from_dict``); front ends only render it."""

    language: str
    codebleu: CodeBleuResult | None = None
    codebertscore: BertScore | None = None
    errors: tuple[str, ...] = ()
    chrf: ChrfScore | None = None
    tsed: TsedScore | None = None
    crystalbleu: CrystalScore | None = None
    refscore: RefScore | None = None  # the combined RefScore number (scoring.headline)
    behaviour: BehaviourResult | None = None  # the candidate run beside the reference (behaviour/)
    #: the checks stage's record (``scoring.checks``): parse errors, bidi controls, why a number is
    #: missing; None on a report made without it (the CPU stage's results carried as a report)
    checks: Checks | None = None

    def __post_init__(self) -> None:
        """Errors given as a list become a tuple (the report is immutable all the way down)."""
        if not isinstance(self.errors, tuple):
            object.__setattr__(self, "errors", tuple(self.errors))

    def first_explanations(self, count: int) -> "ScoreReport":
        """This report with at most its first ``count`` CodeBLEU explanations (for a reader that
        shows no more: a 20,000-line file has some 16,000)."""
        codebleu = self.codebleu
        if codebleu is None or len(codebleu.explanations) <= count:
            return self
        return replace(self, codebleu=replace(codebleu, explanations=codebleu.explanations[:count]))

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        """Plain JSON-ready data. CodeBLEU's five numbers sit under its rule's name
        (``vocabulary.codebleu_name``): ``codebleu`` with the package's keys for the package's rule,
        ``codebleu_native`` for RefScore's; ``codebleu_details`` says how either was made."""
        out: dict[str, Any] = {"language": self.language}
        if self.refscore is not None:
            out["refscore"] = self.refscore.to_dict()
        if self.codebleu is not None:
            out[codebleu_name(self.codebleu.rule)] = self.codebleu.named_values()
            out["codebleu_details"] = {
                "rule": self.codebleu.rule,
                "signature": self.codebleu.signature,
                "components": [plain(c) for c in self.codebleu.components],
            }
            if explain:
                out["codebleu_details"]["explanations"] = [plain(e) for e in self.codebleu.explanations]
        if self.codebertscore is not None:
            out["codebertscore"] = self.codebertscore.to_dict(explain)
        for name in (*TEXT_METRICS, *CORPUS_METRICS):
            value = getattr(self, name)
            if value is not None:
                out[name] = value.to_dict()
        if self.behaviour is not None:
            out["behaviour"] = self.behaviour.to_dict()
        if self.errors:
            out["errors"] = list(self.errors)
        if self.checks is not None:
            out["checks"] = self.checks.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ScoreReport":
        """Rebuild a report from ``to_dict(explain=True)`` output (e.g. received from the daemon)."""
        details = data.get("codebleu_details")
        name = None if details is None else codebleu_name(details["rule"])
        codebleu = None if details is None else CodeBleuResult(
            score=data[name][name] if name in data else data["codebleu"]["codebleu"],  # the latter: before the names
            components=tuple(ComponentScore(**c) for c in details["components"]),
            rule=details["rule"],
            language=data["language"],
            signature=details["signature"],
            explanations=tuple(Explanation(**e) for e in details.get("explanations", [])),
        )

        def part(name: str, kind: Any) -> Any:
            value = data.get(name)
            return kind.from_dict(value) if value is not None else None

        return cls(data["language"], codebleu=codebleu, codebertscore=part("codebertscore", BertScore),
                   errors=tuple(data.get("errors", ())), chrf=part("chrf", ChrfScore), tsed=part("tsed", TsedScore),
                   crystalbleu=part("crystalbleu", CrystalScore), refscore=part("refscore", RefScore),
                   behaviour=part("behaviour", BehaviourResult), checks=part("checks", Checks))


def request_to_dict(request: ScoreRequest) -> dict[str, Any]:
    """JSON-ready form of a request: the texts and the settings, flat (the daemon's requests)."""
    return {"candidate": request.candidate, "references": request.references, "language": request.language,
            "context": request.context, **request.settings.flat(), "explain": request.explain, "live": request.live}


_PRIMITIVES = (str, int, float, bool, type(None))
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def plain(value: Any) -> Any:
    """``dataclasses.asdict`` without its deep copies (the leaves here are immutable), several
    times faster on a report with hundreds of token alignments (what the daemon sends per
    request). Lists stay lists, tuples stay tuples, as with ``asdict``."""
    kind = type(value)
    if kind in _PRIMITIVES:
        return value
    names = _FIELD_NAMES.get(kind)
    if names is None:
        if kind is list:
            return [plain(v) for v in value]
        if kind is tuple:
            return tuple(plain(v) for v in value)
        if kind is dict:
            return {k: plain(v) for k, v in value.items()}
        if not is_dataclass(value) or isinstance(value, type):
            return value
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(value))
    return {name: plain(getattr(value, name)) for name in names}

