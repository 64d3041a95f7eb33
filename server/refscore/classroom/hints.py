"""What a student is told about their differences from the reference, at the teacher's chosen
level (``--reveal``):

* ``reveal``: the differences finder's reasons in full (they quote the reference's code);
* ``hints`` (the default): the same places in the student's code, each named by the kind of
  construct the reference has there (``a for loop``, ``a return statement``), from a fixed
  vocabulary of tree-sitter node types: no text of the reference is ever copied into a hint;
* ``scores``: nothing but the scores and points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..metrics.differences import Difference

#: The most differences listed per problem.
MAX_REMARKS = 8

#: tree-sitter node types (Python, Java, JavaScript, C-like) -> the words a hint uses.
CONSTRUCTS = {
    "for_statement": "a for loop", "enhanced_for_statement": "a for loop", "for_in_statement": "a for loop",
    "while_statement": "a while loop", "do_statement": "a do-while loop",
    "if_statement": "a condition (if)", "elif_clause": "a further condition (elif)", "else_clause": "an else branch",
    "conditional_expression": "a conditional expression", "ternary_expression": "a conditional expression",
    "switch_expression": "a switch", "switch_statement": "a switch", "match_statement": "a match statement",
    "return_statement": "a return statement", "break_statement": "a break", "continue_statement": "a continue",
    "call": "a function call", "method_invocation": "a method call", "call_expression": "a function call",
    "assignment": "an assignment", "augmented_assignment": "an update of a variable (augmented assignment)",
    "assignment_expression": "an assignment", "local_variable_declaration": "a variable declaration",
    "variable_declarator": "a variable declaration", "update_expression": "an increment",
    "comparison_operator": "a comparison", "boolean_operator": "a combined condition (and/or)",
    "not_operator": "a negation", "binary_expression": "an arithmetic or comparison expression",
    "binary_operator": "an arithmetic expression", "unary_operator": "a sign or negation",
    "list_comprehension": "a list comprehension", "generator_expression": "a generator expression",
    "dictionary_comprehension": "a dict comprehension", "set_comprehension": "a set comprehension",
    "lambda": "a lambda", "lambda_expression": "a lambda",
    "function_definition": "a function definition", "method_declaration": "a method definition",
    "function_declaration": "a function definition", "class_definition": "a class", "class_declaration": "a class",
    "try_statement": "error handling (try)", "except_clause": "an exception handler", "catch_clause": "an exception handler",
    "raise_statement": "raising an error", "throw_statement": "throwing an exception",
    "with_statement": "a with block", "import_statement": "an import", "import_from_statement": "an import",
    "import_declaration": "an import", "parameters": "the parameter list", "formal_parameters": "the parameter list",
    "subscript": "indexing", "array_access": "indexing", "slice": "a slice", "attribute": "an attribute access",
    "field_access": "a field access", "list": "a list", "dictionary": "a dict", "tuple": "a tuple",
    "array_creation_expression": "a new array", "object_creation_expression": "a new object",
    "expression_statement": "a statement", "block": "a block of statements", "argument_list": "the arguments of a call",
    "integer": "a constant", "decimal_integer_literal": "a constant", "float": "a constant", "string": "a string",
    "string_literal": "a string", "true": "a boolean constant", "false": "a boolean constant", "none": "None",
    "null_literal": "null",
}
_KIND_WORDS = {"missing": "is missing from your code", "changed": "is written differently in your code",
               "moved": "sits elsewhere in the reference", "structure": "is structured differently in your code",
               "name": "uses a different name in your code", "extra": "is code the reference does without"}


@dataclass(frozen=True)
class Remark:
    """One thing a student is told: where in their code (``start``/``end``, 0-based ``line``)
    and the words."""

    line: int
    start: int
    end: int
    text: str
    weight: float


#: Constructs too general to say much (a block, a statement): named only when nothing else fits.
GENERIC = frozenset({"expression_statement", "block", "argument_list", "parameters", "formal_parameters",
                     "function_definition", "method_declaration", "function_declaration", "class_definition",
                     "class_declaration"})


def construct_at(reference: str, language: str, start: int, end: int) -> str | None:
    """The words for the construct of the reference at ``start:end``: the smallest specific node
    holding the whole span, else the largest specific one inside it, else a general one."""
    from ..analysis.document import reference_structure
    from ..analysis.text import OffsetMap

    try:
        subtrees = reference_structure(reference, language, "native").subtrees
    except Exception:  # noqa: BLE001 - an unknown language or a parse failure: no construct name
        return None
    offsets = OffsetMap(reference)
    best: dict[tuple[bool, bool], tuple[int, str]] = {}  # (specific, holding) -> (size, words)
    for tree in subtrees:
        words = CONSTRUCTS.get(tree.type)
        if words is None:
            continue
        a, b = offsets.from_byte(tree.start_byte), offsets.from_byte(tree.end_byte)
        specific = tree.type not in GENERIC
        if a <= start and end <= b:
            key, size = (specific, True), b - a  # the smallest holding node
            if key not in best or size < best[key][0]:
                best[key] = (size, words)
        elif start <= a and b <= end:
            key, size = (specific, False), -(b - a)  # the largest node inside
            if key not in best or size < best[key][0]:
                best[key] = (size, words)
    span = max(1, end - start)
    holding = best.get((True, True))
    if holding is not None and holding[0] <= 6 * span:
        return holding[1]
    for key in ((True, False), (True, True), (False, True), (False, False)):
        if key in best:
            return best[key][1]
    return None


def _bare(words: str) -> str:
    """``a for loop`` -> ``for loop`` (after "your")."""
    for article in ("a ", "an ", "the "):
        if words.startswith(article):
            return words[len(article):]
    return words


def constructs_on_line(text: str, language: str, line: int) -> set[str]:
    """The words of every construct that starts on 0-based ``line`` of ``text`` (its own code:
    what a hint may truly say is there)."""
    from ..analysis.document import analyse_structure
    from ..analysis.text import OffsetMap

    try:
        subtrees = analyse_structure(text, language, "native").subtrees
    except Exception:  # noqa: BLE001 - an unknown language or a parse failure: nothing known
        return set()
    offsets = OffsetMap(text)
    found = set()
    for tree in subtrees:
        words = CONSTRUCTS.get(tree.type)
        if words is not None and tree.type not in GENERIC and \
                text.count("\n", 0, offsets.from_byte(tree.start_byte)) == line:
            found.add(words)
    return found


def remarks(differences: Sequence[Difference], references: Sequence[str], language: str, mode: str,
            where: Any = None, candidate: str = "") -> list[Remark]:
    """What the student is told about ``differences`` under ``mode`` (``where(line)``: how a
    0-based line of the scored text is named, e.g. "cell 2, line 3"; default "line N").

    A hint is true of the line it names: a construct said to be "missing" that the student's
    line has (a for loop on a line that is a for loop) is said to be written differently there
    instead, a part written differently names what the student's line has, and no hint names a
    blank line (``candidate``: the student's scored text)."""
    if mode == "scores":
        return []
    name = where or (lambda line: f"line {line + 1}")
    out: list[Remark] = []
    lines = candidate.split("\n") if candidate else []
    for item in differences[:MAX_REMARKS]:
        line = item.range[0]
        if lines and (line >= len(lines) or not lines[line].strip()):
            continue  # a blank line (where the starter code was): nothing there a hint could be about
        if mode == "reveal":
            text = f"{name(line)}: {item.reason}"
        else:
            text = _hint(item, references, language, candidate, name(line))
        out.append(Remark(line, item.start, item.end, text, item.weight))
    return out


def _hint(item: Difference, references: Sequence[str], language: str, candidate: str, place: str) -> str:
    """One hint in the words of ``CONSTRUCTS``, never quoting the reference."""
    if item.kind == "extra":
        return f"{place}: the reference does without this code"
    reference = references[item.reference_index] if item.reference_index < len(references) else ""
    construct = construct_at(reference, language, item.reference_start, item.reference_end)
    what = construct or "a part of the reference"
    mine = constructs_on_line(candidate, language, item.range[0]) if candidate and construct else set()
    if item.kind == "missing":
        if construct in mine:  # the student's line has one: it is not missing, it differs
            return f"{place}: your {_bare(what)} here is written differently from the reference's"
        return f"near {place}: the reference has {what} that your code lacks here"
    if item.kind == "name":
        return f"{place}: a name here differs from the reference's (in {what})"
    theirs = construct_at(candidate, language, item.start, item.end) if candidate and construct else None
    if theirs and construct and theirs != construct and construct not in mine:
        return f"{place}: the reference has {what} where your code has {theirs}"
    return f"{place}: the reference has {what} here that {_KIND_WORDS.get(item.kind, 'differs')}"
