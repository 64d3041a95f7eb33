"""TSED: tree-structured edit distance similarity (Song et al., 2024) over tree-sitter trees.

``TSED = max(0, 1 - TED(candidate tree, reference tree) / max(candidate nodes, reference nodes))``,
best over the references. Trees are the named nodes of the tree-sitter parse (comments left out),
each labelled with its node type; TED is the tree edit distance with unit costs for deleting,
inserting and relabelling a node, computed by APTED (the ``apted`` package, an optional
dependency: ``pip install 'refscore[eval]'``).

APTED takes time about proportional to the product of the two tree sizes. A pair where either
tree has more than ``max_nodes`` nodes gets the linear-time bound instead:
``shared labels / max(nodes)``, where shared labels is the size of the multiset intersection of
the two trees' node types. Every edit script needs at least ``max(nodes) - shared labels``
operations, so the bound is never below the exact TSED; the result says which was used.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .signature import build_signature

METRIC = "tsed"
#: Largest tree (nodes) scored exactly; bigger pairs get the linear-time bound.
DEFAULT_MAX_NODES = 200
Node = tuple[str, list]  # (label, children)


@dataclass(frozen=True)
class LabelTree:
    """A parsed text as a label tree, its size, label counts and parse-error count."""

    root: Node
    size: int
    labels: Counter
    errors: int  # ERROR and MISSING nodes in the parse


@dataclass(frozen=True)
class TsedScore:
    """TSED of one candidate against its references and how it was computed."""

    score: float
    distance: float  # edit operations against the best reference
    nodes: int  # max(candidate nodes, best reference nodes)
    exact: bool  # False when the linear-time bound was used
    signature: str
    candidate_errors: int = 0  # ERROR and MISSING nodes in the candidate's parse
    reference_errors: int = 0  # ... and in the best reference's

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"score": self.score, "distance": self.distance, "nodes": self.nodes,
                "exact": self.exact, "signature": self.signature,
                "candidate_errors": self.candidate_errors, "reference_errors": self.reference_errors}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TsedScore":
        """Inverse of ``to_dict``."""
        return cls(float(data["score"]), float(data.get("distance", 0.0)),
                   int(data.get("nodes", 0)), bool(data.get("exact", True)),
                   str(data.get("signature", "")), int(data.get("candidate_errors", 0)),
                   int(data.get("reference_errors", 0)))


def label_tree(code: str, language: str) -> LabelTree:
    """The named-node tree of ``code`` (comments dropped), built without recursion."""
    from .. import languages

    root = _tree(code, language).root_node
    spec = languages.get(language)
    comments = spec.comment_node_types
    labels: Counter = Counter()
    errors = 0
    top: Node = (root.type, [])
    stack = [(root, top)]
    while stack:
        node, out = stack.pop()
        labels[node.type] += 1
        if node.type == "ERROR" or node.is_missing:
            errors += 1
        for child in node.children:
            if not child.is_named or child.type in comments:
                errors += child.is_missing  # a missing token (";") is anonymous
                continue
            made: Node = (child.type, [])
            out[1].append(made)
            stack.append((child, made))
    return LabelTree(top, sum(labels.values()), labels, errors)


def parse_errors(code: str, language: str) -> int:
    """ERROR and MISSING nodes in the parse of ``code`` (what ``TsedScore`` counts), in linear time:
    none without a walk when the tree says it has neither (``has_error``)."""
    if not _tree(code, language).root_node.has_error:
        return 0
    return label_tree(code, language).errors


def _tree(code: str, language: str) -> Any:
    """The parse of ``code``: the one the other analyses of the same text read (``parsing.parsed``)."""
    from .. import languages
    from ..parsing.parsed import parse

    return parse(languages.get(language), code.encode("utf-8", errors="surrogatepass"))


def bound_distance(a: LabelTree, b: LabelTree) -> float:
    """Linear-time lower bound of the edit distance: max(nodes) - shared labels."""
    shared = sum((a.labels & b.labels).values())
    return float(max(a.size, b.size) - shared)


def edit_distance(a: LabelTree, b: LabelTree) -> float:
    """Exact unit-cost tree edit distance (APTED)."""
    try:
        from apted import APTED, Config
    except ImportError as error:
        raise ImportError("TSED needs apted (pip install 'refscore[eval]')") from error

    class _Labels(Config):  # type: ignore[misc]
        def rename(self, x: Node, y: Node) -> int:
            return 0 if x[0] == y[0] else 1

        def children(self, node: Node) -> list:
            return node[1]

    return float(APTED(a.root, b.root, _Labels()).compute_edit_distance())


def signature(max_nodes: int = DEFAULT_MAX_NODES) -> str:
    """``tsed|tree:named|cost:unit|max-nodes:200|version:...``."""
    return build_signature(METRIC, (("tree", "named"), ("cost", "unit"), ("max-nodes", max_nodes)))


def tsed_pair(a: LabelTree, b: LabelTree, max_nodes: int = DEFAULT_MAX_NODES,
              ) -> tuple[float, float, int, bool]:
    """(TSED, distance, nodes, exact) of two label trees."""
    nodes = max(a.size, b.size)
    exact = nodes <= max_nodes
    distance = edit_distance(a, b) if exact else bound_distance(a, b)
    return max(0.0, 1.0 - distance / nodes) if nodes else 1.0, distance, nodes, exact


def score_tsed(candidate: str, references: Sequence[str] | str, language: str,
               max_nodes: int = DEFAULT_MAX_NODES) -> TsedScore:
    """TSED of ``candidate`` against the best of ``references`` (0 without references)."""
    refs = [references] if isinstance(references, str) else list(references)
    cand = label_tree(candidate, language)
    best: tuple[float, float, int, bool] = (0.0, 0.0, cand.size, True)
    ref_errors = 0
    for index, ref in enumerate(refs):
        tree = label_tree(ref, language)
        pair = tsed_pair(cand, tree, max_nodes)
        if index == 0 or pair[0] > best[0]:
            best, ref_errors = pair, tree.errors
    return TsedScore(best[0], best[1], best[2], best[3], signature(max_nodes), cand.errors, ref_errors)
