"""CodeBLEU: the four components combined, with the package's rule (compat) or ours (native).

* compat: ``alpha*ngram + beta*weighted + gamma*syntax + theta*(dataflow or 1)``: a candidate
  with no matching dataflow gets full dataflow credit, as in ``codebleu`` 0.7.0.
* native: the weights are normalised to sum to 1 (``metrics.weights``); a candidate that
  matches none of the reference's dataflow scores 0 for it; when the references have no dataflow
  at all the component is not applicable (``None``) and the weights are renormalised over the
  other three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

from .ngram import NgramStats, score_from_stats
from .signature import build_signature
from ..vocabulary import CODEBLEU_COMPONENTS, PACKAGE_KEYS, codebleu_name
from .weights import normalise

Rule = Literal["compat", "native"]
DEFAULT_WEIGHTS = (0.25, 0.25, 0.25, 0.25)
COMPONENTS = CODEBLEU_COMPONENTS


@dataclass(frozen=True)
class PairStats:
    """Additive statistics of one candidate against its references, for all four components."""

    ngram: NgramStats
    weighted: NgramStats
    syntax_matched: int
    syntax_total: int
    dataflow_matched: int
    dataflow_total: int

    def __add__(self, other: "PairStats") -> "PairStats":
        return PairStats(
            self.ngram + other.ngram, self.weighted + other.weighted,
            self.syntax_matched + other.syntax_matched, self.syntax_total + other.syntax_total,
            self.dataflow_matched + other.dataflow_matched, self.dataflow_total + other.dataflow_total,
        )

    @classmethod
    def total(cls, items: Sequence["PairStats"]) -> "PairStats | None":
        """The sum of ``items`` as ``a + b + ...`` gives it, in one pass (None for none)."""
        if len(items) <= 1:
            return items[0] if items else None
        counts = zip(*[(s.syntax_matched, s.syntax_total, s.dataflow_matched, s.dataflow_total) for s in items])
        return cls(NgramStats.total([s.ngram for s in items]), NgramStats.total([s.weighted for s in items]),
                   *map(sum, counts))


@dataclass(frozen=True)
class ComponentScore:
    """One CodeBLEU component: its value (None when not applicable), weight used and counts."""

    name: str
    score: float | None
    weight: float
    matched: float
    total: float


@dataclass(frozen=True)
class Explanation:
    """Something in a reference the candidate lacks (code-point span in that reference's text)."""

    component: str
    text: str
    reference_index: int
    start: int
    end: int


@dataclass(frozen=True)
class CodeBleuResult:
    """CodeBLEU of one candidate (or a corpus): combined score, components, explanations."""

    score: float
    components: tuple[ComponentScore, ...]
    rule: Rule
    language: str
    signature: str
    explanations: tuple[Explanation, ...] = field(default=())

    def component(self, name: str) -> ComponentScore:
        return next(c for c in self.components if c.name == name)

    def as_package_dict(self) -> dict[str, float]:
        """The five keys of ``codebleu.calc_codebleu`` (not applicable reported as 0.0)."""
        return {"codebleu": self.score, **{PACKAGE_KEYS[name]: v for name, v in self._component_values().items()}}

    def named_values(self) -> dict[str, float]:
        """The five numbers under the names of this result's rule: the package's keys for the
        package's rule; ``codebleu_native`` and the components' own names (``ngram_match``...) for
        RefScore's, so a package key never holds another rule's number."""
        if self.rule == "compat":
            return self.as_package_dict()
        return {codebleu_name(self.rule): self.score, **self._component_values()}

    def _component_values(self) -> dict[str, float]:
        """Each component's number by its own name (not applicable as 0.0, as the package reports it)."""
        return {c.name: (c.score if c.score is not None else 0.0) for c in self.components}


def component_scores(stats: PairStats, rule: Rule = "compat") -> tuple[float, float, float, float | None]:
    """The four component values; dataflow is None when the references have no dataflow. The
    native rule counts only the n-gram orders a text has (``ngram.score_from_stats``)."""
    syntax = stats.syntax_matched / stats.syntax_total if stats.syntax_total else 0.0
    dataflow = stats.dataflow_matched / stats.dataflow_total if stats.dataflow_total else None
    native = rule != "compat"
    # the weighted match is a recall: the package's brevity penalty (against a length of 2) only
    # ever hits one-token candidates, so the native rule drops it
    return (score_from_stats(stats.ngram, effective_order=native),
            score_from_stats(stats.weighted, effective_order=native, brevity=not native), syntax, dataflow)


def _unigram_total(stats: NgramStats, rule: Rule) -> float:
    """What the shown ``matched/total`` divides by: the package's count, or under the native rule
    what there is to count."""
    if rule != "compat" and stats.possible is not None:
        return stats.possible[0]
    return stats.denominators[0]


def combine(stats: PairStats, weights: Sequence[float], rule: Rule, language: str, tokenizer: str = "ws",
            grammar: str = "", explanations: Sequence[Explanation] = ()) -> CodeBleuResult:
    """Apply the final-score rule to the component values (native: weights normalised to sum 1)."""
    ngram, weighted, syntax, dataflow = component_scores(stats, rule)
    if rule != "compat":
        weights = normalise(weights)
    alpha, beta, gamma, theta = weights
    if rule == "compat":
        dataflow_value = dataflow if dataflow is not None else 0.0
        score = alpha * ngram + beta * weighted + gamma * syntax + theta * (dataflow_value or 1)
        used = tuple(weights)
    elif dataflow is None:
        rest = alpha + beta + gamma
        used = (alpha / rest, beta / rest, gamma / rest, 0.0) if rest else (0.0, 0.0, 0.0, 0.0)
        score = used[0] * ngram + used[1] * weighted + used[2] * syntax
        dataflow_value = None
    else:
        used = tuple(weights)
        score = alpha * ngram + beta * weighted + gamma * syntax + theta * dataflow
        dataflow_value = dataflow
    components = (
        ComponentScore("ngram_match", ngram, used[0], stats.ngram.numerators[0], _unigram_total(stats.ngram, rule)),
        ComponentScore("weighted_ngram_match", weighted, used[1], stats.weighted.numerators[0],
                       _unigram_total(stats.weighted, rule)),
        ComponentScore("syntax_match", syntax, used[2], stats.syntax_matched, stats.syntax_total),
        ComponentScore("dataflow_match", dataflow_value, used[3], stats.dataflow_matched, stats.dataflow_total),
    )
    return CodeBleuResult(score, components, rule, language,
                          signature(language, rule, weights, tokenizer, grammar), tuple(explanations))


def signature(language: str, rule: Rule, weights: Sequence[float], tokenizer: str, grammar: str) -> str:
    """A sacrebleu-style string that says exactly how a CodeBLEU number was made."""
    w = ",".join(f"{x:g}" for x in weights)
    return build_signature("codebleu", (("lang", language), ("rule", rule), ("w", w), ("tok", tokenizer),
                                        ("grammar", grammar or "unknown")))
