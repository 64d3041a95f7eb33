"""Ranking two or more alternatives for one piece of code (the selection, the clipboard, the
last inserted block): each is paired with the reference function it implements
(``pairing.best_region``), then ranked by behaviour (its agreement with that function, run in a
sandbox), then by its differences from it (fewer and lighter first; a different name is not
one), then by resemblance (CodeBLEU)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..analysis.functions import Function, top_level_functions
from ..behaviour import BehaviourResult, BehaviourSettings
from ..languages import LanguageSpec
from ..metrics.differences import Difference
from .differences import find_differences
from .function_behaviour import BehaviourMemo
from .pairing import Region, ScoreMany, best_region
from .requests import build_request
from ..settings_schema import DEFAULT_SETTINGS

#: Kinds of difference that say nothing about what the code does.
NOT_COUNTED = ("name",)


@dataclass(frozen=True)
class Alternative:
    """One alternative's place: the region it was compared with and what was found."""

    index: int  # its position among the texts given
    label: str
    region: Region | None
    behaviour: BehaviourResult | None
    differences: tuple[Difference, ...]
    codebleu: float | None

    @property
    def difference_weight(self) -> float:
        """How far it departs from the reference function (the differences' weights summed)."""
        return sum(d.weight for d in self.differences if d.kind not in NOT_COUNTED)

    def key(self) -> tuple[float, float, float]:
        """Larger ranks first: agreement, then fewer differences, then CodeBLEU."""
        ran = self.behaviour is not None and self.behaviour.ran and self.behaviour.inputs > 0
        agreement = self.behaviour.agreement if ran and self.behaviour is not None else None
        return (-1.0 if agreement is None else agreement, -self.difference_weight,
                -1.0 if self.codebleu is None else self.codebleu)


def rank_alternatives(alternatives: Sequence[tuple[str, str]], references: Sequence[str], spec: LanguageSpec,
                      score_many: ScoreMany, weights: tuple[float, float, float, float],
                      behaviour: BehaviourSettings | None = BehaviourSettings()) -> list[Alternative]:
    """``alternatives`` as (label, text), best first; ``behaviour`` None: not run (the ranking
    starts at the differences)."""
    memo = BehaviourMemo(references, spec, behaviour) if behaviour is not None else None
    ranked = []
    for index, (label, text) in enumerate(alternatives):
        found = best_region(text, references, spec, score_many, weights,
                            agreement=memo.agreement if memo is not None else None)
        if found is None:
            ranked.append(Alternative(index, label, None, None, (), None))
            continue
        ranked.append(examine(text, found[0], references, spec, score_many, weights, memo, index, label))
    return sorted(ranked, key=lambda a: (a.key(), -a.index), reverse=True)


def examine(text: str, region: Region, references: Sequence[str], spec: LanguageSpec, score_many: ScoreMany,
            weights: tuple[float, float, float, float], memo: BehaviourMemo | None, index: int = 0,
            label: str = "", function: Function | None = None, owner: str | None = None) -> Alternative:
    """``text`` against ``region``: its differences, CodeBLEU and, with ``memo``, its behaviour
    (of ``function``, a span of ``owner``, when given; else of the one function ``text`` defines)."""
    reference = references[region.reference_index][region.start:region.end]
    settings = DEFAULT_SETTINGS.changed(metrics=("codebleu",), weights=weights)
    report = score_many([build_request(text, reference, spec.name, settings=settings)])[0]
    differences = find_differences(text, [reference], report, spec.name).differences
    if function is None:
        defined = top_level_functions(text, spec)
        function, owner = (defined[0], text) if len(defined) == 1 else (None, None)
    result = memo.result(function, owner, region) if memo is not None and function is not None and owner is not None \
        and region.name else None
    return Alternative(index, label, region, result, tuple(differences),
                       report.codebleu.score if report.codebleu is not None else None)
