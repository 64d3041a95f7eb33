"""A submission's code as structural tokens, for finding copies among students.

Read from the tree-sitter tree (``leaves.code_tokens``: comments and docstrings left out), then
normalised so that the usual disguises of a copy change nothing:

* each top-level function or method is a *unit* of its own (``functions.top_level_functions``),
  the code outside functions one more, so reordering functions only reorders units;
* inside a unit, variables are renamed ``v1``, ``v2``... in first-use order (renaming them
  consistently gives the same tokens); the names of functions and classes the submission
  defines read ``F``; string literals read ``S``;
* names the submission does not define and that are called or read as members (``print``,
  ``len``, ``.append``, ``System.out.println``) and type names keep their text: they are part of
  the program's structure, not a student's choice of names. Keywords, operators and numbers too.

Pure over the text (no I/O); a text that does not parse still gives its tokens (tree-sitter
recovers), flagged ``has_syntax_errors``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import languages
from ..errors import LONE_SURROGATE
from .functions import top_level_functions
from .leaves import CodeToken, code_tokens

#: Keywords after which a name is one the submission defines (a class, struct, ... name).
_DEFINING = frozenset({"class", "interface", "struct", "enum", "trait", "record", "def", "function", "fn",
                       "func", "impl", "module"})
_MEMBER = frozenset({".", "::", "?."})  # C's p->field: a field_identifier
_SELF = frozenset({"self", "this", "@"})
MODULE_UNIT = "<module>"
#: Lone surrogates (bytes read with ``surrogateescape``) cannot be parsed: each reads as U+FFFD.
_SURROGATE = LONE_SURROGATE


@dataclass(frozen=True)
class Unit:
    """One function (or the code outside functions): normalised tokens and each one's 0-based line."""

    name: str
    tokens: tuple[str, ...]
    lines: tuple[int, ...]


@dataclass(frozen=True)
class StructuralTokens:
    """A text's units, its language (None: not a language RefScore parses) and parse state."""

    language: str | None
    units: tuple[Unit, ...]
    has_syntax_errors: bool = False

    @property
    def token_count(self) -> int:
        return sum(len(u.tokens) for u in self.units)


def structural_tokens(text: str, language: str) -> StructuralTokens:
    """The normalised units of ``text`` in ``language`` (units of an unknown language: none)."""
    spec = languages.find(language)
    if spec is None:
        return StructuralTokens(None, ())
    text = _SURROGATE.sub("\ufffd", text)
    tokens = code_tokens(text, spec.name)
    if not tokens:
        return StructuralTokens(spec.name, ())
    functions = top_level_functions(text, spec)
    defined = _defined_names(tokens, {f.short_name for f in functions})
    groups: list[tuple[str, list[CodeToken]]] = [(f.name, []) for f in functions]
    module: list[CodeToken] = []
    index = 0
    for token in tokens:  # both in document order: walk the functions along the tokens
        while index < len(functions) and token.start >= functions[index].end:
            index += 1
        if index < len(functions) and functions[index].start <= token.start:
            groups[index][1].append(token)
        else:
            module.append(token)
    units = [_unit(name, found, defined) for name, found in [(MODULE_UNIT, module), *groups] if found]
    errors = spec.parse(text.encode("utf-8")).root_node.has_error
    return StructuralTokens(spec.name, tuple(units), errors)


def _defined_names(tokens: tuple[CodeToken, ...], functions: set[str]) -> frozenset[str]:
    """Function names and the names that follow a defining keyword (classes, structs...)."""
    found = set(functions)
    for before, token in zip(tokens, tokens[1:]):
        if token.kind == "name" and before.text in _DEFINING:
            found.add(token.text)
    return frozenset(found)


def _unit(name: str, tokens: list[CodeToken], defined: frozenset[str]) -> Unit:
    numbers: dict[str, str] = {}
    out: list[str] = []
    for i, token in enumerate(tokens):
        before = tokens[i - 1].text if i else ""
        if before in _MEMBER and i > 1 and tokens[i - 2].text in _SELF:
            before = ""  # self.total, this.count: the submission's own fields, renamed like variables
        out.append(_normalised(token, before, tokens[i + 1].text if i + 1 < len(tokens) else "", defined,
                               numbers))
    return Unit(name, tuple(out), tuple(t.line for t in tokens))


def _normalised(token: CodeToken, before: str, after: str, defined: frozenset[str], numbers: dict[str, str]) -> str:
    if token.kind == "string":
        return "S"
    if token.kind != "name":
        return token.text
    if token.text in defined:
        return "F"
    if before in _MEMBER or after == "(" or any(part in token.type for part in ("type", "field", "property")):
        return token.text  # a library's member, a call to a function not defined here, a type
    if token.text not in numbers:
        numbers[token.text] = f"v{len(numbers) + 1}"
    return numbers[token.text]
