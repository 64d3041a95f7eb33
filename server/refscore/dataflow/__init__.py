"""CodeBLEU's data-flow graph, our own implementation.

``extract_dataflow(root, text, language)`` gives the package's ``get_data_flow`` edges (compat
mode: same edges, same order, same quirks, as the ``codebleu`` 0.7.0 package patched for
deterministic order) or our native analysis (``mode="native"``: comments ignored, a working Rust
extractor, TypeScript/TSX). One generic walker (`_walker`) runs per-language rule tables
(``rules``) over the flat tree ``refscore.parsing.flat`` reads in one pass; `_tree`
numbers its tokens.
"""

from __future__ import annotations

import sys
import threading
from operator import itemgetter
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from .. import languages
from ..parsing.gc_pause import gc_paused
from ..parsing.flat import FlatTree, flatten
from ._parts import keep_walks, walk_root
from ._reach import Reach
from ._tree import Points
from ._tree_edits import token_table
from ._walker import Edge, Rules, Walker
from .rules import CSHARP, GO, JAVA, JAVASCRIPT, PHP, PYTHON, RUBY, RUST_COMPAT, RUST_NATIVE, TYPESCRIPT

__all__ = ["FlowEdge", "RawEdge", "extract_dataflow", "extract_dataflow_flat", "extract_raw_edges",
           "dropped_types", "edge_points", "keep_walks", "normalize_dataflow", "normalized_keys", "MODES", "MAX_DEPTH"]

MODES = ("compat", "native")

#: Trees deeper than this give no dataflow (the package fails on them with a RecursionError).
MAX_DEPTH = 1000

#: The rule sets by the names a ``LanguageSpec`` gives in ``dataflow`` / ``native_dataflow``
#: (``typescript``, not in the package, is the JavaScript rules on the TypeScript grammars).
RULE_SETS: dict[str, Rules] = {
    "python": PYTHON, "java": JAVA, "javascript": JAVASCRIPT, "typescript": TYPESCRIPT, "csharp": CSHARP,
    "go": GO, "ruby": RUBY, "php": PHP, "rust_compat": RUST_COMPAT, "rust_native": RUST_NATIVE,
}
#: mode -> canonical language name -> its rules, read from the registry once
_RULES: dict[str, dict[str, Rules]] = {
    mode: {s.name: RULE_SETS[s.dataflow_rules(mode)] for s in languages.LANGUAGES if s.dataflow} for mode in MODES}


@dataclass(frozen=True, slots=True)
class FlowEdge:
    """One data-flow edge: ``name`` at token ``token`` comesFrom/computedFrom its parents."""

    name: str
    token: int
    relation: str
    parent_names: tuple[str, ...]
    parent_tokens: Sequence[int]  # a tuple, or a ``Reach`` view (a large set shared with other edges)
    start: tuple[int, int]
    end: tuple[int, int]


#: A ``FlowEdge`` as a plain tuple of its fields, in order (what analyses keep).
RawEdge = tuple[str, int, str, tuple[str, ...], Sequence[int], tuple[int, int], tuple[int, int]]


def dropped_types(language: str, mode: str) -> frozenset[str]:
    """Node types the flat tree must leave out for a dataflow walk in ``mode`` (native: comments)."""
    if mode not in MODES:
        raise ValueError(f"unknown dataflow mode {mode!r}; known: {', '.join(MODES)}")
    return frozenset(languages.get(language).comment_node_types) if mode == "native" else frozenset()


def extract_dataflow(root: Any, text: str, language: str, *, mode: str = "compat") -> list[FlowEdge]:
    """The data-flow edges of ``text`` (``root`` is the tree of ``text.encode("utf8")``).

    Raises ValueError for an unknown language or mode. An input the package fails on (or one
    nested deeper than MAX_DEPTH) gives ``[]``.
    """
    spec = languages.get(language)
    flat = flatten(root, spec.name, dropped_types(spec.name, mode))
    return extract_dataflow_flat(flat, text, spec.name, mode=mode)


def extract_dataflow_flat(flat: FlatTree, text: str, language: str, *, mode: str = "compat") -> list[FlowEdge]:
    """``extract_dataflow`` over a flat tree built with ``dropped_types(language, mode)`` left out."""
    with gc_paused():
        return [FlowEdge(*raw) for raw in extract_raw_edges(flat, text, language, mode=mode)]


def extract_raw_edges(flat: FlatTree, text: str, language: str, *, mode: str = "compat",
                      points: bool = True) -> list[RawEdge]:
    """The edges of ``extract_dataflow_flat`` as plain tuples in ``FlowEdge`` field order (cheap to
    build, untracked by GC; ``FlowEdge(*raw)`` gives the edge). The caller pauses GC if it wants.
    Without ``points`` each edge ends with its token's start and end *byte offsets* instead (no
    point conversion; ``edge_points`` converts later)."""
    if mode not in MODES:
        raise ValueError(f"unknown dataflow mode {mode!r}; known: {', '.join(MODES)}")
    rules = _RULES[mode].get(language)
    if rules is None:
        spec = languages.get(language)
        rules = _RULES[mode].get(spec.name)
        if rules is None:
            raise ValueError(f"no dataflow rules for language {spec.name!r}")
    if not flat.types:
        return []
    try:
        tree = token_table(flat, text, rules.not_values)
    except Exception:  # the package's inner try: e.g. a token row past the text
        return []
    depth = flat.depth
    if depth > MAX_DEPTH:
        return []
    budget = 64 * flat.count + 100_000
    if depth <= _SHALLOW:
        # room enough under any sane limit: walk directly, and only on a RecursionError (a caller
        # deep in its own stack) walk again with the limit raised; a walk is pure, so this is exact
        try:
            walker = Walker(rules, tree, max_steps=budget)
            walk_root(walker, tree, text, f"{language}|{mode}")
            edges = _assemble(walker.out, tree.spans)
            return edge_points(edges, text) if points else edges
        except RecursionError:
            pass
        except Exception:  # the package's inner try: any failure gives no dataflow
            return []
    walker = Walker(rules, tree, max_steps=budget)
    try:
        with _recursion_room(4 * depth + 200):
            walk_root(walker, tree, text, f"{language}|{mode}")
    except Exception:  # the package's inner try: any failure gives no dataflow
        return []
    edges = _assemble(walker.out, tree.spans)
    return edge_points(edges, text) if points else edges


#: Trees at most this deep are walked without first making room on the stack (see above).
_SHALLOW = 40


def _assemble(edges: list[Edge], spans: list[tuple[int, int]]) -> list[Any]:
    """Sort by token, keep tokens that take part in a flow, merge the edges of one token, and add
    each edge's token's start and end byte offsets."""
    edges.sort(key=_TOKEN_OF)
    keep: set[int] = set()
    shared: dict[int, Reach] = {}  # per shared list (``_reach``), its longest view: read once
    for e in edges:
        parents = e[4]
        if parents:
            keep.add(e[1])
            if parents.__class__ is Reach:
                seen = shared.get(id(parents.store))
                if seen is None or seen.size < parents.size:
                    shared[id(parents.store)] = parents
            else:
                keep.update(parents)
    for parents in shared.values():
        keep.update(parents)
    merged: dict[int, Edge] = {}
    for e in edges:
        tok = e[1]
        if tok not in keep:
            continue
        prev = merged.get(tok)
        if prev is None:
            merged[tok] = e
        else:
            merged[tok] = (e[0], tok, e[2], tuple(dict.fromkeys(prev[3] + e[3])),
                           tuple(dict.fromkeys(prev[4] + e[4])))
    return [e + spans[e[1]] for e in merged.values()]


def edge_points(edges: Sequence[Any], text: str) -> list[RawEdge]:
    """Edges from ``extract_raw_edges(..., points=False)`` with points of ``text`` for byte offsets."""
    point = Points(text)
    return [e[:5] + (point(e[5]), point(e[6])) for e in edges]


_TOKEN_OF = itemgetter(1)  # an edge's token number


def normalized_keys(edges: Sequence[Any]) -> list[str]:
    """``normalize_dataflow`` of raw edges, each normalised edge as one string: equal strings are
    equal normalised edges, and strings (unlike tuples) are never tracked by the cyclic GC.

    Variables are numbered in order of first mention (parents before the name); an edge reads
    ``<name number><relation mark><parent numbers, comma-separated>``.
    """
    names: dict[str, str] = {}
    out: list[str] = []
    append = out.append
    for e in edges:
        parents = e[3]
        for p in parents:
            if p not in names:
                names[p] = _number(len(names))
        name = names.get(e[0])
        if name is None:
            name = names[e[0]] = _number(len(names))
        relation = "<" if e[2] == "comesFrom" else "="
        if not parents:  # most edges have no parent or one
            append(name + relation)
        elif len(parents) == 1:
            append(name + relation + names[parents[0]])
        else:
            append(name + relation + ",".join([names[p] for p in parents]))
    return out


_NUMBERS = tuple(str(i) for i in range(1024))


def _number(i: int) -> str:
    """``str(i)``, made once for small numbers."""
    return _NUMBERS[i] if i < 1024 else str(i)


def normalize_dataflow(edges: Sequence[FlowEdge]) -> list[tuple[str, str, tuple[str, ...]]]:
    """Rename variables to var_0, var_1, ... in order of first mention (parents before the name)."""
    names: dict[str, str] = {}
    out = []
    for e in edges:
        for p in e.parent_names:
            if p not in names:
                names[p] = f"var_{len(names)}"
        if e.name not in names:
            names[e.name] = f"var_{len(names)}"
        out.append((names[e.name], e.relation, tuple(names[p] for p in e.parent_names)))
    return out


_LIMIT_LOCK = threading.Lock()
_limit_users = 0
_saved_limit = 0


@contextmanager
def _recursion_room(frames: int) -> Iterator[None]:
    """Make room for ``frames`` more Python frames for the walk, then restore the limit."""
    global _limit_users, _saved_limit
    here = _stack_depth()
    with _LIMIT_LOCK:
        if _limit_users == 0:
            _saved_limit = sys.getrecursionlimit()
        _limit_users += 1
        if sys.getrecursionlimit() < here + frames:
            sys.setrecursionlimit(here + frames)
    try:
        yield
    finally:
        with _LIMIT_LOCK:
            _limit_users -= 1
            if _limit_users == 0:
                sys.setrecursionlimit(_saved_limit)


def _stack_depth() -> int:
    frame = sys._getframe()
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth
