"""Analysed documents: the only place that tokenises and parses. Results are cached by content.

Two layers, cached separately so an edit re-does only what it must:

* ``TokenAnalysis``: whitespace tokens with offsets and their n-gram counts (n-gram matches);
* ``StructureAnalysis``: the tree-sitter parse, the subtree inventory (syntax match) and the
  data-flow graph (dataflow match), in ``compat`` mode (over comment-stripped text, the
  ``codebleu`` package's way) or ``native`` mode (over the original text, comments skipped,
  lone CR line ends read as LF: offsets are unchanged).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Hashable, Iterable, Literal, Sequence

try:
    from collections import _count_elements  # type: ignore[attr-defined]  # Counter's C helper
except ImportError:  # pragma: no cover - other Pythons
    def _count_elements(mapping: dict, items: Iterable[Hashable]) -> None:
        get = mapping.get
        for item in items:
            mapping[item] = get(item, 0) + 1

from .. import languages
from ..dataflow import dropped_types, extract_raw_edges, normalized_keys
from . import token_edits
from .cache import sized_cache
from ..parsing.gc_pause import gc_paused
from .text import TextToken, normalize_line_breaks, whitespace_tokens
from ..parsing.flat import assemble, flatten
from ..parsing.flat_edits import keep as keep_layout
from ..parsing.parsed import parse
from ..parsing.trees import Subtree, sexp_keys

Mode = Literal["compat", "native"]
MAX_NGRAM = 4

#: Bounds of the token and structure caches: entries, and characters of text keyed on (an
#: analysis holds about 35 (tokens) and 20 to 55 (structure) bytes per character, so each cache
#: stays under about 250 MB); the least recently used analyses are dropped beyond either.
CACHE_ENTRIES = 8192
TOKEN_CACHE_CHARS = 4_000_000
STRUCTURE_CACHE_CHARS = 4_000_000
#: The references' analyses are cached apart too (``reference_tokens``, ``reference_structure``),
#: within bounds of their own that ``cache.limit_caches`` leaves: an edited document's versions
#: never evict its references (its reference functions are scored with each version's functions).
REFERENCE_CACHE_ENTRIES = 1024
REFERENCE_CACHE_CHARS = 1_000_000


def count(items: Iterable[Hashable]) -> dict:
    """Occurrences of each item, as a plain dict in first-occurrence order (a dict of strings or
    ints and counts is never tracked by the cyclic GC, unlike a ``Counter``)."""
    counts: dict = {}
    _count_elements(counts, items)
    return counts


def ngram_counts(tokens: Sequence[str], n: int) -> dict[tuple[str, ...], int]:
    """Counts of the n-grams of a token sequence, keyed by tuples (a plain dict, see ``count``)."""
    return count(zip(*(tokens[i:] for i in range(n))))


_join_two = " ".join


def _keyed_counts(words: Sequence[str], joined: bool) -> tuple[dict, ...]:
    """1- to 4-gram counts as plain dicts, in first-occurrence order. A unigram is keyed by its
    word; longer n-grams by their words joined with a space when the words have no whitespace
    (``joined``), else by the tuple. Plain dicts of strings and ints are never GC-tracked."""
    counts: list[dict] = [count(words)]
    if joined:
        grams: Sequence[str] = words
        for n in range(1, MAX_NGRAM):
            grams = list(map(_join_two, zip(grams, words[n:])))  # one string per n-gram, built in C
            counts.append(count(grams))
    else:
        counts.extend(ngram_counts(words, n) for n in range(2, MAX_NGRAM + 1))
    return tuple(counts)


@dataclass(frozen=True)
class TokenAnalysis:
    """Whitespace tokens of a text and their 1- to 4-gram counts (token offsets on demand)."""

    words: tuple[str, ...]
    counts: tuple[dict, ...]  # per order: n-gram key (see ``_keyed_counts``) -> count
    text: str | None = field(default=None, repr=False)
    #: keyword set -> ``keyword_counts`` of it (a reference meets many candidates)
    _keyword_memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def length(self) -> int:
        return len(self.words)

    def keyword_counts(self, keywords: frozenset[str]) -> tuple[tuple[tuple[str, int], ...], int]:
        """The (word, count) of each keyword among the words, and their total count."""
        found = self._keyword_memo.get(keywords)
        if found is None:
            unigrams = self.counts[0]
            pairs = tuple((word, unigrams[word]) for word in unigrams.keys() & keywords)
            found = self._keyword_memo[keywords] = (pairs, sum(count for _, count in pairs))
        return found

    @cached_property
    def tokens(self) -> tuple[TextToken, ...]:
        """The tokens with their offsets (empty for a caller's tokenizer: offsets unknown)."""
        return tuple(whitespace_tokens(self.text)) if self.text is not None else ()


def _token_analysis(words: Sequence[str], text: str | None = None) -> TokenAnalysis:
    words = list(words)
    # whitespace tokens never contain a space; a caller's tokens might: those keep tuple keys
    return TokenAnalysis(tuple(words), _keyed_counts(words, text is not None), text)


@sized_cache(max_entries=CACHE_ENTRIES, max_chars=TOKEN_CACHE_CHARS)
def analyse_tokens(text: str) -> TokenAnalysis:
    """Token analysis with the default whitespace tokenizer (cached by content; in an editing
    process a long text's is derived from its last version's, ``token_edits``)."""
    found = token_edits.recount(text)
    analysis = TokenAnalysis(*found, text) if found is not None else _token_analysis(text.split(), text)
    token_edits.keep(analysis)
    return analysis


@sized_cache(max_entries=REFERENCE_CACHE_ENTRIES, max_chars=REFERENCE_CACHE_CHARS, own_bounds=True)
def reference_tokens(text: str) -> TokenAnalysis:
    """``analyse_tokens`` of a reference text (the same analysis, kept in the references' cache)."""
    found = analyse_tokens.peek(text)
    return found if found is not None else _token_analysis(text.split(), text)


def analyse_tokens_with(text: str, tokenizer: Callable[[str], Sequence[str]] | None) -> TokenAnalysis:
    """Token analysis with a caller's tokenizer (not cached; offsets unknown)."""
    if tokenizer is None:
        return analyse_tokens(text)
    return _token_analysis(list(tokenizer(text)))


@dataclass(frozen=True)
class StructureAnalysis:
    """Parse-derived facts about one text: subtrees and data flow."""

    language: str
    mode: Mode
    text: str
    subtree_keys: dict  # subtree key -> occurrences
    #: native mode: the subtrees as parallel (keys, types, starts, ends) lists, in preorder
    subtree_parts: tuple = field(default=((), (), (), ()), repr=False, compare=False)
    #: native mode: the data-flow edges as plain tuples, ``refscore.dataflow.RawEdge`` fields with
    #: the token's start and end *byte offsets* in place of points (``dataflow`` gives ``FlowEdge``
    #: objects). Compat analyses keep only the normalised edges, all the package's score reads.
    flow_edges: tuple = ()
    normalized_dataflow: tuple = ()  # per edge, its normalised form as one string (``normalized_keys``)
    has_syntax_errors: bool = False
    dataflow_error: str | None = field(default=None, compare=False)

    @cached_property
    def dataflow_counts(self) -> dict[str, int]:
        """The normalised data-flow edges as a multiset (built on first use)."""
        return count(self.normalized_dataflow)

    @cached_property
    def subtrees(self) -> tuple[Subtree, ...]:
        """Native mode: the subtrees (key, type, byte span) in preorder (built on first use)."""
        return tuple(map(Subtree, *self.subtree_parts))

    @cached_property
    def dataflow(self) -> tuple:
        """The data-flow edges as ``FlowEdge`` objects, with points (built on first use)."""
        from ..dataflow import FlowEdge, edge_points

        return tuple(FlowEdge(*raw) for raw in edge_points(self.flow_edges, self.text))


@sized_cache(max_entries=CACHE_ENTRIES, max_chars=STRUCTURE_CACHE_CHARS)
def analyse_structure(text: str, language: str, mode: Mode) -> StructureAnalysis:
    """Parse ``text`` and build its subtree inventory and data-flow graph (cached by content).

    Cyclic GC is paused meanwhile: the flat tree and the walk make many short-lived, acyclic
    objects, and a collection would only scan them (it runs once the pause ends, over survivors).
    """
    with gc_paused():
        return _analyse_structure(text, language, mode)


def _analyse_structure(text: str, language: str, mode: Mode) -> StructureAnalysis:
    spec = languages.get(language)
    if mode == "native":  # compat parses as the package does, lone CRs and all
        text = normalize_line_breaks(text)
    source = text.encode("utf-8")
    root = parse(spec, source).root_node
    drop = dropped_types(spec.name, mode)
    # native: assembled from the top-level parts kept from earlier versions, where it can be
    flat = (assemble(root, source, spec.name, drop, spec.docstrings) if mode == "native" else None) \
        or flatten(root, spec.name, drop, mode)
    if mode == "compat":
        # shape hashes, or S-expressions if the tree has errors (or an anonymous node has children)
        keys = count(flat.compat_keys if flat.compat_keys is not None else sexp_keys(root))
        parts: tuple = ((), (), (), ())
    else:
        keys = count(flat.subtree_keys)
        # tuples, not the lists: a cache of analyses is not rescanned by every full GC
        parts = (tuple(flat.subtree_keys), tuple(flat.subtree_types), tuple(flat.subtree_starts),
                 tuple(flat.subtree_ends))
    error: str | None = None
    try:
        flow = extract_raw_edges(flat, text, spec.name, mode=mode, points=False)
    except RecursionError:
        flow, error = [], "too deeply nested for data-flow analysis"
    if flat.layout is not None:  # the next version's tree is made from this one's
        keep_layout(flat.layout)
    return StructureAnalysis(
        language=spec.name,
        mode=mode,
        text=text,
        subtree_keys=keys,
        subtree_parts=parts,
        flow_edges=tuple(flow) if mode == "native" else (),
        normalized_dataflow=tuple(normalized_keys(flow)),
        has_syntax_errors=root.has_error,
        dataflow_error=error,
    )


@sized_cache(max_entries=REFERENCE_CACHE_ENTRIES, max_chars=REFERENCE_CACHE_CHARS, own_bounds=True)
def reference_structure(text: str, language: str, mode: Mode) -> StructureAnalysis:
    """``analyse_structure`` of a reference text (the same analysis, kept in the references' cache)."""
    found = analyse_structure.peek(text, language, mode)
    return found if found is not None else analyse_structure.__wrapped__(text, language, mode)


def known_structure(text: str, language: str, mode: Mode) -> StructureAnalysis | None:
    """The analysis of ``text`` either cache holds (a candidate's or a reference's); None when
    neither does (it is never made here)."""
    return analyse_structure.peek(text, language, mode) or reference_structure.peek(text, language, mode)


@sized_cache(max_entries=256, max_chars=2_000_000)
def sexp_subtree_keys(text: str, language: str) -> Counter:
    """S-expression keys of a compat text, for comparing with a tree whose keys had to be S-expressions."""
    return Counter(sexp_keys(languages.get(language).parse(text.encode("utf-8")).root_node))


def comparable_keys(reference: StructureAnalysis, candidate: StructureAnalysis) -> tuple[Counter, Counter]:
    """Subtree keys of both sides in the same keying (hashes mix with S-expressions only in compat)."""
    ref_keys, cand_keys = reference.subtree_keys, candidate.subtree_keys
    if reference.mode == "compat" and ref_keys and cand_keys:
        ref_str = isinstance(next(iter(ref_keys)), str)
        cand_str = isinstance(next(iter(cand_keys)), str)
        if ref_str != cand_str:
            if not ref_str:
                ref_keys = sexp_subtree_keys(reference.text, reference.language)
            else:
                cand_keys = sexp_subtree_keys(candidate.text, candidate.language)
    return ref_keys, cand_keys
