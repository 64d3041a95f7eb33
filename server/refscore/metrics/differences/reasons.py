"""Short reasons in words for a difference between a candidate and its reference."""

from __future__ import annotations

from typing import Sequence

from ...analysis.leaves import CodeToken
from .align import Alignment, Chunk

_AUGMENTED = frozenset({"+=", "-=", "*=", "/=", "//=", "%=", "|=", "&=", "^=", "<<=", ">>=", "**="})
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!=", "===", "!=="})
_WIDTH = 48


def snippet(text: str, tokens: Sequence[CodeToken], width: int = _WIDTH) -> str:
    """The source of ``tokens`` (first to last) on one line, shortened to ``width``."""
    if not tokens:
        return ""
    flat = " ".join(text[tokens[0].start:tokens[-1].end].split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def line_tokens(tokens: Sequence[CodeToken], text: str, index: int) -> list[CodeToken]:
    """The tokens on the line of ``tokens[index]`` (``tokens`` in text order: those around it)."""
    line_start = text.rfind("\n", 0, tokens[index].start) + 1
    line_end = text.find("\n", tokens[index].start)
    line_end = len(text) if line_end < 0 else line_end
    first = last = index
    while first > 0 and tokens[first - 1].start >= line_start:
        first -= 1
    while last + 1 < len(tokens) and tokens[last + 1].start < line_end:
        last += 1
    return list(tokens[first:last + 1])


def _quote(code: str) -> str:
    return f"`{code.replace('`', chr(39))}`"


def _one(tokens: Sequence[CodeToken], kind: str) -> CodeToken | None:
    found = [t for t in tokens if t.kind == kind]
    return found[0] if len(found) == 1 else None


def replaced(alignment: Alignment, chunk: Chunk, reference: str, candidate: str) -> str:
    """A reason for reference tokens the candidate replaced."""
    ref = alignment.reference[chunk.ref_lo:chunk.ref_hi]
    cand = alignment.candidate[chunk.cand_lo:chunk.cand_hi]
    ref_code, cand_code = snippet(reference, ref), snippet(candidate, cand)
    context = snippet(reference, line_tokens(alignment.reference, reference, chunk.ref_lo))
    # the operator readings only where the change is the operator itself
    ref_op, cand_op = (_one(ref, "operator"), _one(cand, "operator")) if len(ref) == len(cand) == 1 else (None, None)
    if ref_op is not None and ref_op.text in _AUGMENTED and cand_op is not None and cand_op.text == "=":
        target = _target(alignment, chunk.ref_lo)
        whom = f" to {_quote(target)}" if target else ""
        return (f"the reference accumulates{whom} here ({_quote(ref_op.text)}, in {_quote(context)}); "
                f"this line assigns with {_quote('=')} instead")
    if ref_op is not None and cand_op is not None and ref_op.text in _COMPARISONS and cand_op.text in _COMPARISONS:
        return (f"the reference compares with {_quote(ref_op.text)} here (in {_quote(context)}); "
                f"this has {_quote(cand_op.text)}")
    if len(ref) == 1 and len(cand) == 1 and ref[0].kind == cand[0].kind == "name":
        own = alignment.candidate_name(ref[0].text)
        called = f" (called {_quote(own)} in this code)" if own and own != ref[0].text else ""
        return (f"the reference uses {_quote(ref[0].text)}{called} here, in {_quote(context)}; "
                f"this uses {_quote(cand[0].text)}")
    if len(ref) == 1 and len(cand) == 1 and {ref[0].kind, cand[0].kind} == {"name", "number"}:
        what = {"name": "the variable", "number": "the constant"}
        return (f"the reference has {what[ref[0].kind]} {_quote(ref_code)} here (in {_quote(context)}); "
                f"this has {what[cand[0].kind]} {_quote(cand_code)}")
    if len(ref) == 1 and len(cand) == 1 and ref[0].kind == cand[0].kind == "number":
        return f"the reference has the constant {_quote(ref_code)} here (in {_quote(context)}); this has {_quote(cand_code)}"
    return f"the reference has {_quote(ref_code)} here (in {_quote(context)}); this has {_quote(cand_code)}"


def _target(alignment: Alignment, at: int) -> str | None:
    """The name just before reference token ``at`` (what an augmented assignment updates)."""
    if at > 0 and alignment.reference[at - 1].kind == "name":
        return alignment.reference[at - 1].text
    return None


def missing(alignment: Alignment, chunk: Chunk, reference: str) -> str:
    """A reason for reference tokens the candidate lacks."""
    ref = alignment.reference[chunk.ref_lo:chunk.ref_hi]
    code = snippet(reference, ref)
    context = snippet(reference, line_tokens(alignment.reference, reference, chunk.ref_lo))
    if code == context or len(ref) > 3:
        return f"the reference has {_quote(code)} here; the candidate has nothing in its place"
    return f"the reference has {_quote(code)} here (in {_quote(context)}); the candidate lacks it"


def extra(alignment: Alignment, chunk: Chunk, candidate: str) -> str:
    """A reason for candidate tokens the reference does not have."""
    code = snippet(candidate, alignment.candidate[chunk.cand_lo:chunk.cand_hi])
    return f"{_quote(code)} has no counterpart in the reference"


def moved(alignment: Alignment, chunk: Chunk, reference: str) -> str:
    """A reason for a reference line the candidate has in another place."""
    ref = alignment.reference[chunk.ref_lo:chunk.ref_hi]
    line = ref[0].line + 1
    return (f"the reference has {_quote(snippet(reference, ref))} at another place (its line {line}); "
            "here it comes in a different order")


def explained(component: str, text: str) -> str:
    """A reason for a CodeBLEU explanation placed where no token differs."""
    what = {"syntax_match": "the reference's structure", "dataflow_match": "the reference's data flow",
            "ngram_match": "the reference's tokens"}.get(component, "the reference")
    return f"{what} ({_quote(text)}) is not matched here"
