"""The rule kinds the language tables are made of: getters, statements, branches and loops.

Loops: the package walks a loop's parts twice, the second time from the state the first pass left,
then merges the edges of both passes per (name, token, relation). A walk is a pure function of
(node, state), so each loop's result is memoised per (node, input state). Reaching-definition
states settle after one pass of a loop body (a second pass adds the body's own definitions, a
third adds nothing new), so a loop nested k deep sees a handful of distinct input states, not
2**k: the work stays linear in practice. A step budget still bounds pathological inputs (they
give no dataflow, like an input the package fails on).

Branches: each branch starts from a copy of the input state and the results are joined. Once the
state is large (a long file: every variable so far is in it), only the variables under the
branch node are copied and joined (``local_state``): an ``if`` costs what it contains, not the
size of the file before it.
"""

from __future__ import annotations

from typing import Any, Optional

from ._reach import union
from ._tree import Abort
from ._walker import COMES, COMPUTED, Edge, Getter, Handler, Node, PassFn, State, Walker

# ----------------------------------------------------------------------------- getters

def by_field(name: str) -> Getter:
    """Getter: the node's field ``name``."""
    return lambda w, n: w.field(n, name)


def by_position(pos: int, *, min_kids: int = 0, exact_kids: int = 0) -> Getter:
    """Getter: child ``pos`` (None unless the child count is >= min_kids / == exact_kids)."""
    def get(w: Walker, n: Node) -> Optional[Node]:
        kids = w.kids(n)
        if exact_kids and len(kids) != exact_kids:
            return None
        if min_kids and len(kids) < min_kids:
            return None
        return kids[pos]
    return get


# ----------------------------------------------------------------------------- statement kinds

def define(name_of: Getter, value_of: Optional[Getter]) -> Handler:
    """Declaration: each name token comesFrom each value token (or from nothing)."""
    def handle(w: Walker, n: Node, st: State) -> State:
        name = name_of(w, n)
        value = value_of(w, n) if value_of is not None else None
        out = w.out
        if value is None:
            for idx, code in w.variables(name):
                out.append((code, idx, COMES, (), ()))
                st[code] = (idx,)
            return st
        names = w.variables(name)
        values = w.variables(value)
        st = w.walk(value, st)
        for idx1, code1 in names:
            for idx2, code2 in values:
                out.append((code1, idx1, COMES, (code2,), (idx2,)))
            st[code1] = (idx1,)
        return st
    return handle


def assign_each(w: Walker, left: Optional[Node], right: Optional[Node], st: State) -> State:
    """Walk ``right``; each left token is computedFrom each right token, one edge per pair."""
    st = w.walk(right, st)
    names = w.variables(left)
    values = w.variables(right)
    out = w.out
    for idx1, code1 in names:
        for idx2, code2 in values:
            out.append((code1, idx1, COMPUTED, (code2,), (idx2,)))
        st[code1] = (idx1,)
    return st


def assign(left_of: Getter, right_of: Getter) -> Handler:
    """Assignment in the Java style (one edge per left/right token pair)."""
    return lambda w, n, st: assign_each(w, left_of(w, n), right_of(w, n), st)


def assign_lists(w: Walker, lefts: list[Optional[Node]], rights: list[Optional[Node]],
                 st: State) -> State:
    """Assignment in the Python style: walk all rights, then pair lefts with rights; each left
    token is computedFrom all tokens of its right side, in one edge."""
    for right in rights:
        st = w.walk(right, st)
    out = w.out
    for left, right in zip(lefts, rights):
        values = w.variables(right)
        idxs, names = tuple(zip(*values)) or ((), ())
        for idx1, code1 in w.variables(left):
            out.append((code1, idx1, COMPUTED, names, idxs))
            st[code1] = (idx1,)
    return st


def split_sides(w: Walker, left: Optional[Node], right: Optional[Node]
                ) -> tuple[list[Optional[Node]], list[Optional[Node]]]:
    """Pair up ``a, b = x, y``: comma-less children when the counts agree, else the wholes."""
    lefts: list[Optional[Node]] = [k for k in w.kids(left) if w.types[k] != ","]
    rights: list[Optional[Node]] = [k for k in w.kids(right) if w.types[k] != ","]
    if len(rights) != len(lefts):
        lefts, rights = [left], [right]
    if not lefts:
        lefts = [left]
    if not rights:
        rights = [right]
    return lefts, rights


def increment(w: Walker, n: Node, st: State) -> State:
    """``i++``: each token computedFrom each token of the expression."""
    toks = w.variables(n)
    out = w.out
    for idx1, code1 in toks:
        for idx2, code2 in toks:
            out.append((code1, idx1, COMPUTED, (code2,), (idx2,)))
        st[code1] = (idx1,)
    return st


def union_states(states: list[State]) -> State:
    """Join of branch states: per variable, the sorted union of definitions (``_reach.union``:
    appended to a shared list when the join only adds later definitions).

    State values are always sorted, duplicate-free sets, so a variable whose value is the same
    in every state that has it keeps that value (most are: branches start from copies).
    """
    merged: dict[str, Any] = {}
    get = merged.get
    for s in states:
        for key, val in s.items():
            got = get(key)
            if got is None:
                merged[key] = val
            elif got is val:
                continue
            elif got.__class__ is list:
                got.append(val)
            elif got != val:
                merged[key] = [got, val]
    for key, val in merged.items():
        if val.__class__ is list:
            merged[key] = union(val)
    return merged


#: States with at most this many variables are copied whole for a branch (cheaper than finding
#: the variables under the branch node); larger ones are cut down to those (``local_state``).
SMALL_STATE = 32


def local_state(w: Walker, n: Node, st: State) -> State:
    """The part of ``st`` a walk of ``n`` (and of its children) can read or write: its mentioned
    variables (``st`` itself when small). Branches copy and join this part only, so an ``if``
    costs what it contains, not the size of the whole file's state."""
    if len(st) <= SMALL_STATE:
        return st
    return {v: st[v] for v in w.mentioned(n) if v in st}


def rejoin(st: State, part: State, joined: State) -> State:
    """The state after a branch: ``joined`` (the join of the branch states grown from ``part``,
    ``local_state(w, n, st)``) put back into ``st``. A branch can only change the variables
    under n, so every other one joins to its value in ``st``."""
    if part is st:
        return joined
    st.update(joined)
    return st


def branch(branch_types: frozenset[str], *, flag_style: bool, always_input: bool) -> Handler:
    """if/else: plain children run in sequence, branch children start from the input state.

    flag_style: after the first branch child, every later child is a branch too.
    The input state joins the result when there is no ``else`` (or always, where always_input).
    """
    def handle(w: Walker, n: Node, whole: State) -> State:
        base = local_state(w, n, whole)
        current = dict(base)
        outs: list[State] = []
        tag = "else" in w.types[n]
        flag = False
        for kid in w.kids(n):
            kt = w.types[kid]
            if "else" in kt:
                tag = True
            if kt not in branch_types and not flag:
                current = w.walk(kid, current)
            else:
                if flag_style:
                    flag = True
                outs.append(w.walk(kid, dict(base)))
        outs.append(current)
        if always_input or not tag:
            outs.append(base)
        return rejoin(whole, base, union_states(outs))
    return handle


# ----------------------------------------------------------------------------- loops

def merge_loop_edges(edges: list[Edge]) -> list[Edge]:
    """The package's loop merge: one edge per (name, token, relation), first occurrence first;
    repeated ones get de-duplicated parent names and sorted parent tokens (merging pairwise, as
    the package does, equals merging all occurrences at once). A token's number fixes its name,
    so (token, relation) is the key."""
    groups: dict[int, Any] = {}
    repeated: list[int] = []
    get = groups.get
    for e in edges:
        key = e[1] if e[2] == COMES else ~e[1]
        g = get(key)
        if g is None:
            groups[key] = e
        elif g.__class__ is tuple:
            if g == e and len(e[3]) < 2 and len(e[4]) < 2:
                continue  # the same edge again (a loop's second pass), nothing to de-duplicate
            groups[key] = [g, e]
            repeated.append(key)
        else:
            g.append(e)
    for key in repeated:
        g = groups[key]
        first = g[0]
        names: tuple[str, ...] = ()
        for e in g:
            names += e[3]
        groups[key] = (first[0], first[1], first[2], tuple(dict.fromkeys(names)), union([e[4] for e in g]))
    return list(groups.values())


def loop(pass_fn: PassFn) -> Handler:
    """A loop: two passes of ``pass_fn``, edges merged, memoised per (node, input state).

    Only the variables named under the loop can be read or written by its walk (the others pass
    through every rule unchanged), so the memo key and the memoised output state are restricted
    to them. A loop outside every other loop is walked once, so it is not memoised.
    """
    def handle(w: Walker, n: Node, st: State) -> State:
        nested = w.loop_depth > 0
        if nested:
            names = w.mentioned(n)
            key = (n, tuple([st.get(v) for v in names]))
            hit = w.memo.get(key)
            if hit is not None:
                w.out.extend(hit[0])
                for v, val in hit[1]:
                    st[v] = val
                return st
        w.steps += 1
        if w.steps > w.max_steps:
            raise Abort("step budget exceeded")
        out = w.out
        start = len(out)
        w.loop_depth += 1
        try:
            st = pass_fn(w, n, st, 0)
            st = pass_fn(w, n, st, 1)
        finally:
            w.loop_depth -= 1
        merged = merge_loop_edges(out[start:])
        del out[start:]
        out.extend(merged)
        if nested:
            w.memo[key] = (merged, tuple([(v, st[v]) for v in names if v in st]))
        return st
    return handle


def all_children(w: Walker, n: Node, st: State, _pass: int) -> State:
    """Loop pass: every child in order (while loops)."""
    for kid in w.kids(n):
        st = w.walk(kid, st)
    return st


def after_marker(marker: str, marker_field: str | None = None) -> PassFn:
    """Loop pass: all children, then (second pass) the children after the first ``marker``;
    with ``marker_field``, that field of the marker (e.g. a for clause's update) is walked first."""
    def run(w: Walker, n: Node, st: State, pass_no: int) -> State:
        kids = w.kids(n)
        if pass_no == 0:
            for kid in kids:
                st = w.walk(kid, st)
            return st
        seen = False
        for kid in kids:
            if seen:
                st = w.walk(kid, st)
            elif w.types[kid] == marker:
                if marker_field is not None:
                    part = w.field(kid, marker_field)
                    if part is not None:
                        st = w.walk(part, st)
                seen = True
        return st
    return run


def each_loop(name_of: Getter, value_of: Getter, body_of: Getter) -> PassFn:
    """Loop pass of a for-each: walk the iterable, assign the loop variable, walk the body."""
    def run(w: Walker, n: Node, st: State, _pass: int) -> State:
        value = value_of(w, n)
        st = assign_each(w, name_of(w, n), value, st)
        return w.walk(body_of(w, n), st)
    return run
