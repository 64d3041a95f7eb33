"""One candidate function run beside the reference function it is paired with, whatever its
name: the candidate's text with that function renamed to the reference's name (and any other
function of that name left out), run on the reference function's inputs only. Pairing
(``pairing.Agreement``), the editor's behaviour lenses and the ranking of alternatives use it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Sequence

from ..analysis.functions import Function, top_level_functions
from ..behaviour import BehaviourResult, BehaviourSettings, Disagreement, run_behaviour, supported_languages
from ..languages import LanguageSpec
from .pairing import Agreement, Region


def _blank(text: str) -> str:
    """``text`` as its line breaks only (line numbers after it stay)."""
    return "".join(ch for ch in text if ch == "\n")


def variant(text: str, function: Function, target: str, spec: LanguageSpec) -> str:
    """``text`` in which ``function`` is named ``target`` (its recursive calls too) and every
    other top-level function named ``target`` is blanked out."""
    own = function.short_name
    parts: list[str] = []
    at = 0
    for other in top_level_functions(text, spec):
        if other.start == function.start:
            body = text[other.start:other.end]
            if own != target:
                body = re.sub(rf"(?<![\w$]){re.escape(own)}(?![\w$])", target, body)
            parts += [text[at:other.start], body]
            at = other.end
        elif other.short_name == target and other.start >= at:
            parts += [text[at:other.start], _blank(text[other.start:other.end])]
            at = other.end
    return "".join(parts) + text[at:]


def function_behaviour(text: str, function: Function, region: Region, references: Sequence[str],
                       spec: LanguageSpec, settings: BehaviourSettings = BehaviourSettings()) -> BehaviourResult:
    """How ``function`` (a span of ``text``) behaves beside the reference function ``region``
    names, on that function's inputs; its disagreements name the candidate's function."""
    if region.name is None or spec.name not in supported_languages():
        return BehaviourResult.skipped(f"not available for {spec.name}" if region.name else "no reference function")
    target = region.name.rsplit(".", 1)[-1]
    program = variant(text, function, target, spec)
    result = run_behaviour(references[region.reference_index], program, spec.name,
                           replace(settings, functions=(target,)))
    if function.short_name == target or not result.disagreements:
        return result
    return replace(result, disagreements=tuple(_renamed(d, target, function.short_name) for d in result.disagreements))


def _renamed(item: Disagreement, target: str, own: str) -> Disagreement:
    call = re.sub(rf"^{re.escape(target)}(?=\()", own, item.input)
    return replace(item, input=call, function=own)


@dataclass
class BehaviourMemo:
    """Behaviour results by (candidate text, function start, reference region), for one
    reference and settings: an ``Agreement`` for pairing, whose runs the caller reads again."""

    references: Sequence[str]
    spec: LanguageSpec
    settings: BehaviourSettings = BehaviourSettings()
    results: dict[tuple[str, int, Region], BehaviourResult] = field(default_factory=dict)

    def result(self, function: Function, text: str, region: Region) -> BehaviourResult:
        """The run of ``function`` beside ``region`` (once per text, function and region)."""
        key = (text, function.start, region)
        if key not in self.results:
            self.results[key] = function_behaviour(text, function, region, self.references, self.spec, self.settings)
        return self.results[key]

    def agreement(self, function: Function, text: str, region: Region) -> float | None:
        """``pairing.Agreement``: the share of inputs agreed on, None where behaviour did not run."""
        found = self.result(function, text, region)
        if not found.ran or not found.inputs:
            return None
        return found.agreement

    def as_agreement(self) -> Agreement:
        return self.agreement
