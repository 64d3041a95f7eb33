"""Which part of the reference a piece of the candidate is compared with: one rule for the
lenses, ``--per-function``, the grader, Score Selection, the inserted-block diagnostic,
``refscore/scoreText`` and the editor's behaviour runs.

A candidate function is paired with the reference function of the same name; the others each
with the reference function it implements, ranked by ``Evidence.key``: how often it behaves
like it (when behaviour ran), then a matching signature (parameter count), then a name sharing
a word (``average_ai`` and ``average``), then resemblance (CodeBLEU). Several candidate
functions may pair with one reference function (a second implementation of ``average`` is
compared with ``average``) when more than resemblance says so (its signature, its name,
behaviour): a helper is not paired with a reference function another function has. A text
that defines no single function is compared with the best-scoring region among the
reference's functions and the whole reference.

The references' functions are indexed once per pairing (``ReferenceIndex``, issue 45, item 1):
by name, by parameter count and by name word, so that pairing N candidate functions with N
reference functions parses each function once and finds each one's likeliest references without
looking at all N (it parsed every reference function again for each candidate function: N²
parses, 7 s at 800 one-line functions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import chain, islice
from typing import Callable, Iterable, Mapping, Sequence

from ..analysis.functions import Function, top_level_functions
from ..languages import LanguageSpec
from .report import ScoreReport, ScoreRequest
from .requests import build_request
from ..settings_schema import DEFAULT_SETTINGS, ScoreSettings

#: At most this many (candidate, reference) function pairs are scored to align unnamed matches.
MAX_ALIGNMENT_PAIRS = 120
#: At most this many reference functions (the likeliest by signature, name and resemblance) are
#: run beside one candidate function to pair it by behaviour.
MAX_BEHAVIOUR_RUNS = 5
#: Agreement from which behaviour decides a pairing.
BEHAVES_ALIKE = 0.5
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
#: Words shorter than this say little about what a function does (``ai``, ``v2``, ``fn``).
MIN_WORD = 3

ScoreMany = Callable[[list[ScoreRequest]], list[ScoreReport]]


def parameter_count(function_text: str, spec: LanguageSpec) -> int | None:
    """How many parameters the first function in ``function_text`` declares (the grammar's
    ``parameters`` field, comments left out); None when none is found."""
    root = spec.parse(function_text.encode("utf-8")).root_node
    stack = [root]
    while stack:
        node = stack.pop()
        parameters = node.child_by_field_name("parameters")
        if parameters is not None:
            return sum(1 for child in parameters.named_children if child.type not in spec.comment_node_types)
        stack.extend(reversed(node.named_children))
    return None


def name_words(name: str) -> set[str]:
    """The lower-cased words of a name (``average_ai`` -> {average}; ``columnMeans`` -> {column,
    means}), each at least ``MIN_WORD`` letters."""
    return {w.lower() for w in _WORD.findall(name) if len(w) >= MIN_WORD}


@dataclass(frozen=True)
class Static:
    """What pairs a candidate function with a reference function without scoring them."""

    signature: bool  # the same number of parameters
    shared_word: bool  # the names share a word of three letters or more


@dataclass
class ReferenceIndex:
    """Every top-level function of ``references``, in order, with lookups by name, parameter
    count and name word (each reference function parsed at most once, when first asked)."""

    references: Sequence[str]
    spec: LanguageSpec
    functions: list[tuple[int, Function]] = field(init=False)
    _arity: list[int | None] | None = field(default=None, init=False)
    _by_arity: dict[int, list[int]] = field(default_factory=dict, init=False)
    _by_word: dict[str, list[int]] | None = field(default=None, init=False)
    _by_name: dict[str, list[int]] = field(default_factory=dict, init=False)
    _by_short: dict[str, list[int]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.functions = [(i, f) for i, ref in enumerate(self.references) for f in top_level_functions(ref, self.spec)]
        for position, (_, function) in enumerate(self.functions):
            self._by_name.setdefault(function.name, []).append(position)
            self._by_short.setdefault(function.short_name, []).append(position)

    def named(self, name: str, short: bool = False) -> list[int]:
        """The positions of the functions called ``name`` (``short``: by the name after any class)."""
        return (self._by_short if short else self._by_name).get(name, [])

    def arity(self, position: int) -> int | None:
        """The parameter count of the function at ``position`` (None: none found)."""
        if self._arity is None:
            self._arity = [parameter_count(self.references[i][f.start:f.end], self.spec) for i, f in self.functions]
            for k, count in enumerate(self._arity):
                if count is not None:
                    self._by_arity.setdefault(count, []).append(k)
        return self._arity[position]

    def _words(self) -> dict[str, list[int]]:
        if self._by_word is None:
            self._by_word = {}
            for position, (_, function) in enumerate(self.functions):
                for word in name_words(function.short_name):
                    self._by_word.setdefault(word, []).append(position)
        return self._by_word

    def static(self, position: int, arity: int | None, words: set[str]) -> Static:
        """The evidence between a function of ``arity`` parameters named with ``words`` and the
        reference function at ``position``."""
        return Static(arity is not None and arity == self.arity(position),
                      bool(words & name_words(self.functions[position][1].short_name)))

    def likeliest(self, arity: int | None, words: set[str], limit: int | None) -> list[int]:
        """The positions a function of ``arity`` parameters named with ``words`` is scored
        against: all, in order, when ``limit`` is None or not below their number; else the first
        ``limit`` by (same signature, shared word), each group in order (as a stable sort of all
        of them would give), looking only at the functions sharing its signature or a word."""
        if limit is None or len(self.functions) <= limit:
            return list(range(len(self.functions)))
        limit = max(limit, 1)
        if self.functions:
            self.arity(0)  # the parameter counts, once
        by_word = self._words()
        worded = sorted({p for w in words for p in by_word.get(w, ())})
        same = self._by_arity.get(arity, []) if arity is not None else []
        same_set, worded_set = set(same), set(worded)
        groups: list[Iterable[int]] = [(p for p in worded if p in same_set), (p for p in same if p not in worded_set),
                                       (p for p in worded if p not in same_set),
                                       (p for p in range(len(self.functions)) if p not in same_set and p not in worded_set)]
        return list(islice(chain.from_iterable(groups), limit))


@dataclass(frozen=True)
class Region:
    """A span of one reference: the whole text or one of its functions."""

    reference_index: int
    start: int
    end: int
    name: str | None  # the function's name, None for the whole reference


@dataclass(frozen=True)
class FunctionPair:
    """A candidate function, the reference region it is compared with, how it was chosen, and its
    scores (frozen: a published result is never changed; ``replace`` makes the next one)."""

    function: Function
    region: Region | None
    matched_by: str  # "name", "behaviour", "alignment", "chosen" (by the user) or "none"
    codebleu: float | None = None
    f3: float | None = None
    f1: float | None = None
    pending: bool = False  # its CodeBLEU is scored later (``score_pending``): an edit's first publish


#: How often a candidate function agrees with a reference function, run in a sandbox (None: not
#: run): ``agreement(candidate function, its text's owner text, reference region)``.
Agreement = Callable[[Function, str, Region], "float | None"]


@dataclass(frozen=True)
class Evidence:
    """Why a candidate function would implement one reference function."""

    behaviour: float | None  # share of inputs agreed on, None when behaviour did not run
    signature: bool  # the same number of parameters
    shared_word: bool  # the names share a word of three letters or more
    resemblance: float  # CodeBLEU of the two functions (-1: not scored)

    @property
    def behaves_alike(self) -> bool:
        """Whether it agreed on at least ``BEHAVES_ALIKE`` of the inputs."""
        return self.behaviour is not None and self.behaviour >= BEHAVES_ALIKE

    def key(self) -> tuple[float, bool, bool, float]:
        """Larger is a better match: behaviour (where it agrees on most inputs: a buggy function
        agreeing by chance on a few inputs of an unrelated one says nothing), then signature, then
        name, then resemblance."""
        return (self.behaviour if self.behaviour is not None and self.behaves_alike else 0.0, self.signature,
                self.shared_word, self.resemblance)


def _codebleu(report: ScoreReport) -> float:
    return report.codebleu.score if report.codebleu is not None else -1.0


def rank_references(function: Function, text: str, references: Sequence[str], spec: LanguageSpec,
                    score_many: ScoreMany, weights: tuple[float, float, float, float], rule: str = "native",
                    agreement: Agreement | None = None, limit: int | None = None,
                    index: ReferenceIndex | None = None) -> list[tuple[Region, Evidence]]:
    """Every reference function ``function`` (a span of ``text``) may implement, best first by
    ``Evidence.key``; ``limit``: score at most this many, those with the best signature and name
    (found through ``index``, the references' functions, built here when not given)."""
    index = index if index is not None else ReferenceIndex(references, spec)
    arity = parameter_count(text[function.start:function.end], spec)
    words = name_words(function.short_name)
    found = []
    for position in index.likeliest(arity, words, limit):
        static = index.static(position, arity, words)
        found.append((_region(*index.functions[position]), Evidence(None, static.signature, static.shared_word, -1.0)))
    own = text[function.start:function.end]
    reports = score_many([_request(own, references[r.reference_index][r.start:r.end], spec, weights, rule)
                          for r, _ in found])
    found = sorted(((r, replace(e, resemblance=_codebleu(report))) for (r, e), report in zip(found, reports)),
                   key=lambda item: item[1].key(), reverse=True)
    if agreement is not None:  # run beside the likeliest ones only (each run starts a sandbox)
        found = [(r, replace(e, behaviour=agreement(function, text, r))) if k < MAX_BEHAVIOUR_RUNS else (r, e)
                 for k, (r, e) in enumerate(found)]
    return sorted(found, key=lambda item: item[1].key(), reverse=True)


def pair_functions(text: str, references: Sequence[str], spec: LanguageSpec, score_many: ScoreMany,
                   weights: tuple[float, float, float, float], rule: str = "native",
                   agreement: Agreement | None = None,
                   chosen: Mapping[str, tuple[str, str]] | None = None,
                   later: Callable[[ScoreRequest], bool] | None = None) -> list[FunctionPair]:
    """Pair each top-level candidate function with a reference function and score the pair
    (CodeBLEU under ``rule``, the request's: the functions score as the whole file does).
    ``agreement``: behaviour; ``chosen``: candidate function name -> (reference function name,
    how: ``chosen`` by the user, ``behaviour`` found by running it), before any other rule.
    ``later``: the pairs whose final request it says yes to are left ``pending`` (not scored:
    ``score_pending`` scores them); which function pairs with which is decided all the same."""
    ours = top_level_functions(text, spec)
    if not ours or not references:
        return []
    index = ReferenceIndex(references, spec)
    theirs = index.functions
    pairs: list[FunctionPair] = []
    used: set[int] = set()
    for function in ours:
        named = (chosen or {}).get(function.name)
        target = next((_region(*theirs[k]) for k in index.named(named[0])), None) if named else None
        if named is not None and target is not None:
            pairs.append(FunctionPair(function, target, named[1]))
            continue
        same = next((k for k in index.named(function.name) if k not in used), None)
        same = same if same is not None else next((k for k in index.named(function.short_name, short=True)
                                                   if k not in used), None)
        if same is not None:
            used.add(same)
            pairs.append(FunctionPair(function, _region(*theirs[same]), "name"))
        else:
            pairs.append(FunctionPair(function, None, "none"))
    unmatched = [k for k, p in enumerate(pairs) if p.region is None]
    if unmatched and theirs:
        limit = max(1, MAX_ALIGNMENT_PAIRS // len(unmatched))
        taken = {p.region for p in pairs if p.region is not None}
        for k in unmatched:
            ranked = rank_references(pairs[k].function, text, references, spec, score_many, weights, rule,
                                     agreement, limit, index)
            # a reference function another one is paired with already takes a second only on some
            # evidence beyond resemblance (a helper is not compared with whatever it resembles)
            ranked = [(r, e) for r, e in ranked if r not in taken or e.signature or e.shared_word or e.behaves_alike]
            if ranked and ranked[0][1].resemblance >= 0:
                how = "behaviour" if ranked[0][1].behaves_alike else "alignment"
                pairs[k] = replace(pairs[k], region=ranked[0][0], matched_by=how)
    requests = _requests(pairs, text, references, spec, weights, rule, lambda p: p.region is not None)
    for k in [k for k, r in requests.items() if later is not None and later(r)]:
        pairs[k] = replace(pairs[k], pending=True)
        del requests[k]
    return _scored(pairs, requests, score_many)


def score_pending(pairs: Sequence[FunctionPair], text: str, references: Sequence[str], spec: LanguageSpec,
                  score_many: ScoreMany, weights: tuple[float, float, float, float],
                  rule: str = "native") -> list[FunctionPair]:
    """``pairs`` with the CodeBLEU of those left pending (``pair_functions``' ``later``) scored."""
    return _scored(list(pairs), _requests(pairs, text, references, spec, weights, rule, lambda p: p.pending),
                   score_many)


def _requests(pairs: Sequence[FunctionPair], text: str, references: Sequence[str], spec: LanguageSpec,
              weights: tuple[float, float, float, float], rule: str,
              which: Callable[[FunctionPair], bool]) -> dict[int, ScoreRequest]:
    """The scoring request of each pair ``which`` says yes to (it has a region), by position."""
    return {k: _request(*pair_texts(p, text, references), spec, weights, rule)
            for k, p in enumerate(pairs) if which(p)}


def _scored(pairs: list[FunctionPair], requests: dict[int, ScoreRequest],
            score_many: ScoreMany) -> list[FunctionPair]:
    """``pairs`` with the CodeBLEU of those at ``requests``' positions (their requests, asked in
    one ``score_many`` call), no longer pending."""
    for k, report in zip(requests, score_many(list(requests.values()))):
        pairs[k] = replace(pairs[k], codebleu=report.codebleu.score if report.codebleu is not None else None,
                           pending=False)
    return pairs


def pair_texts(pair: FunctionPair, text: str, references: Sequence[str]) -> tuple[str, str]:
    """The candidate function's text and its reference region's text (the pair must have a region)."""
    assert pair.region is not None
    region = pair.region
    return text[pair.function.start:pair.function.end], references[region.reference_index][region.start:region.end]


def best_region(snippet: str, references: Sequence[str], spec: LanguageSpec, score_many: ScoreMany,
                weights: tuple[float, float, float, float],
                agreement: Agreement | None = None) -> tuple[Region, ScoreReport] | None:
    """The reference region ``snippet`` is compared with. A snippet that defines one function is
    paired as a file's functions are (its namesake, else ``rank_references``: a pasted
    ``average_ai`` is compared with ``average``, never with an unrelated function that happens to
    score higher); any other text with the region (a function or the whole reference) it scores
    best against."""
    defined = top_level_functions(snippet, spec)
    if len(defined) == 1:
        pairs = pair_functions(snippet, references, spec, score_many, weights, agreement=agreement)
        region = pairs[0].region if pairs else None
        if region is not None:
            report = score_many([_request(snippet, references[region.reference_index][region.start:region.end],
                                          spec, weights)])[0]
            return region, report
    regions = [Region(i, 0, len(ref), None) for i, ref in enumerate(references)]
    for index, ref in enumerate(references):
        regions.extend(Region(index, f.start, f.end, f.name) for f in top_level_functions(ref, spec)[:60])
    if not regions:
        return None
    reports = score_many([_request(snippet, references[r.reference_index][r.start:r.end], spec, weights)
                          for r in regions])
    best = max(range(len(regions)), key=lambda k: (_codebleu(reports[k]), regions[k].name is not None))
    return regions[best], reports[best]


def _region(index: int, function: Function) -> Region:
    return Region(index, function.start, function.end, function.name)


def _request(candidate: str, reference: str, spec: LanguageSpec,
             weights: tuple[float, float, float, float], rule: str = "native") -> ScoreRequest:
    return build_request(candidate, reference, spec.name, explain=False, settings=_settings(tuple(weights), rule))


@lru_cache(maxsize=16)
def _settings(weights: tuple[float, float, float, float], rule: str) -> ScoreSettings:
    """A function pair's settings (made once: an edit's pairing asks for them per function)."""
    return DEFAULT_SETTINGS.changed(metrics=("codebleu",), weights=weights, codebleu_rule=rule)
