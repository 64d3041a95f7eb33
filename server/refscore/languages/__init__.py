"""The one language registry: names, LSP ids, extensions, grammars, keywords, comment syntax,
and the per-language facts other packages read (dataflow rules, docstrings, function nodes).

Every front end (CLI, LSP, grader, the VS Code client's generated language list) and every
metric asks this module about a language; nothing else imports a tree-sitter grammar or keeps a
table keyed by language names. Parsers are built once per process and per thread.
``python -m refscore.languages --json`` prints the registry for clients.
"""

from __future__ import annotations

import re
import warnings
from pathlib import PurePath
from typing import Any

from .spec import LanguageSpec

__all__ = ["LANGUAGES", "CODEBLEU_PACKAGE_LANGUAGES", "LanguageSpec", "UnknownLanguageError",
           "describe", "find", "for_lsp_id", "for_path", "get", "lsp_ids", "names"]


# The registered languages, one ``LanguageSpec`` each (the order is the order users see).

_C_FAMILY_COMMENTS = dict(line_comments=("//",), block_comments=(("/*", "*/"),))
_JAVA_COMMENT_NODES = frozenset({"line_comment", "block_comment"})

_JS_FUNCTIONS = dict(
    function_types=frozenset({"function_declaration", "generator_function_declaration", "method_definition"}),
    function_values=frozenset({"arrow_function", "function_expression", "function", "generator_function"}),
    function_binding_types=frozenset({"variable_declarator"}),  # const f = () => ...
)
_TS_CLASSES = frozenset({"class", "class_declaration", "enum_declaration", "interface_declaration", "module"})
_TS = dict(in_codebleu_package=False, dataflow="typescript", keywords_file="typescript",
           class_types=_TS_CLASSES, **_JS_FUNCTIONS, **_C_FAMILY_COMMENTS)

LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "tree_sitter_python", runner="python3", extensions=(".py", ".pyi", ".pyw"), notebook_extensions=(".ipynb",),
                 lsp_ids=("python",), aliases=("py",), interpreters=("python", "pypy"),
                 line_comments=("#",), block_comments=(),
                 compat_comments="tokenize", docstrings=True, dataflow="python",
                 function_types=frozenset({"function_definition"}),
                 function_wrapper_types=frozenset({"decorated_definition"}),  # @decorator lines belong to it
                 class_types=frozenset({"class_definition", "module"})),
    LanguageSpec("java", "tree_sitter_java", runner="javac", extensions=(".java",), lsp_ids=("java",),
                 comment_node_types=_JAVA_COMMENT_NODES, dataflow="java",
                 function_types=frozenset({"constructor_declaration", "method_declaration"}),
                 class_types=frozenset({"class_declaration", "enum_declaration", "interface_declaration",
                                        "record_declaration"}),
                 **_C_FAMILY_COMMENTS),
    LanguageSpec("javascript", "tree_sitter_javascript", runner="node", extensions=(".js", ".mjs", ".cjs", ".jsx"),
                 lsp_ids=("javascript", "javascriptreact"), aliases=("js", "jsx"), interpreters=("node", "nodejs"),
                 dataflow="javascript",
                 class_types=frozenset({"class", "class_declaration"}),
                 **_JS_FUNCTIONS, **_C_FAMILY_COMMENTS),
    LanguageSpec("typescript", "tree_sitter_typescript", "language_typescript", runner="node-typescript",
                 extensions=(".ts", ".mts", ".cts"), lsp_ids=("typescript",), aliases=("ts",), accepts=("tsx",),
                 **_TS),
    LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx", runner="node-tsx", extensions=(".tsx",),
                 lsp_ids=("typescriptreact",), accepts=("typescript",), **_TS),
    LanguageSpec("c", "tree_sitter_c", runner="gcc", extensions=(".c", ".h"), lsp_ids=("c",), dataflow="csharp",
                 function_types=frozenset({"function_definition"}),
                 declarator_name_types=frozenset({"identifier", "field_identifier"}),
                 class_types=frozenset({"struct_specifier"}), **_C_FAMILY_COMMENTS),
    LanguageSpec("cpp", "tree_sitter_cpp", runner="g++", extensions=(".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".c++"),
                 lsp_ids=("cpp",), aliases=("c++", "cxx"), accepts=("c",), dataflow="csharp",
                 function_types=frozenset({"function_definition"}),
                 declarator_name_types=frozenset({"identifier", "field_identifier", "qualified_identifier",
                                                  "destructor_name", "operator_name"}),
                 class_types=frozenset({"class_specifier", "struct_specifier"}), **_C_FAMILY_COMMENTS),
    LanguageSpec("c_sharp", "tree_sitter_c_sharp", extensions=(".cs",), lsp_ids=("csharp",),
                 aliases=("csharp", "c#", "cs"), dataflow="csharp",
                 function_types=frozenset({"constructor_declaration", "local_function_statement",
                                           "method_declaration"}),
                 class_types=frozenset({"class_declaration", "enum_declaration", "interface_declaration",
                                        "record_declaration", "struct_declaration"}),
                 **_C_FAMILY_COMMENTS),
    LanguageSpec("go", "tree_sitter_go", extensions=(".go",), lsp_ids=("go",), aliases=("golang",),
                 dataflow="go", function_types=frozenset({"function_declaration", "method_declaration"}),
                 **_C_FAMILY_COMMENTS),
    LanguageSpec("rust", "tree_sitter_rust", extensions=(".rs",), lsp_ids=("rust",), aliases=("rs",),
                 comment_node_types=_JAVA_COMMENT_NODES, dataflow="rust_compat", native_dataflow="rust_native",
                 function_types=frozenset({"function_item"}),
                 class_types=frozenset({"impl_item", "trait_item"}), **_C_FAMILY_COMMENTS),
    LanguageSpec("ruby", "tree_sitter_ruby", extensions=(".rb",), lsp_ids=("ruby",), aliases=("rb",), interpreters=("ruby",),
                 line_comments=("#",), block_comments=(("=begin", "=end"),), compat_comments="none",
                 dataflow="ruby", function_types=frozenset({"method", "singleton_method"}),
                 class_types=frozenset({"class", "module"})),
    LanguageSpec("php", "tree_sitter_php", "language_php", extensions=(".php", ".phtml"), lsp_ids=("php",), interpreters=("php",),
                 line_comments=("//", "#"), block_comments=(("/*", "*/"),), dataflow="php",
                 function_types=frozenset({"function_definition", "method_declaration"}),
                 class_types=frozenset({"class_declaration", "enum_declaration", "interface_declaration",
                                        "trait_declaration"})),
)


class UnknownLanguageError(ValueError):
    """Raised when a language name, LSP id or file extension is not in the registry."""


_BY_NAME: dict[str, LanguageSpec] = {}
for _spec in LANGUAGES:
    for _key in (_spec.name, *_spec.aliases, *_spec.lsp_ids):
        _BY_NAME.setdefault(_key.lower(), _spec)
_BY_EXTENSION: dict[str, LanguageSpec] = {ext: s for s in LANGUAGES for ext in s.extensions}

#: The languages the `codebleu` package supports (the compat API accepts exactly these).
CODEBLEU_PACKAGE_LANGUAGES: tuple[str, ...] = tuple(s.name for s in LANGUAGES if s.in_codebleu_package)


def names() -> list[str]:
    """Canonical names of every registered language."""
    return [s.name for s in LANGUAGES]


def lsp_ids() -> list[str]:
    """Every LSP languageId the server scores, in registry order (the VS Code client's list)."""
    return [lsp_id for s in LANGUAGES for lsp_id in s.lsp_ids]


def find(name: str) -> LanguageSpec | None:
    """Look a language up by canonical name, alias or LSP language id; None when unknown."""
    return _BY_NAME.get(name.strip().lower())


def get(name: str) -> LanguageSpec:
    """Look a language up by canonical name, alias or LSP language id."""
    spec = _BY_NAME.get(name.strip().lower())
    if spec is None:
        raise UnknownLanguageError(
            f"unknown language {name!r}; known: {', '.join(names())}")
    return spec


def for_path(path: str | PurePath) -> LanguageSpec:
    """Look a language up by a file's extension."""
    suffix = PurePath(path).suffix.lower()
    spec = _BY_EXTENSION.get(suffix)
    if spec is None:
        raise UnknownLanguageError(
            f"cannot tell the language of {str(path)!r} from its extension {suffix or '(none)'!r}; "
            f"pass --lang (one of: {', '.join(names())})")
    return spec


def for_shebang(first_line: str) -> LanguageSpec | None:
    """The language a ``#!`` first line runs (``#!/usr/bin/env python3``, ``#!/usr/bin/node``,
    ``#!/usr/bin/env -S ruby -w``), or None when it names no interpreter of the registry."""
    if not first_line.startswith("#!"):
        return None
    words = first_line[2:].split()
    if words and PurePath(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    if not words:
        return None
    program = re.sub(r"[\d.]+$", "", PurePath(words[0]).name.lower())
    return next((s for s in LANGUAGES if program in s.interpreters), None)


def accepted_by(spec: LanguageSpec) -> list[LanguageSpec]:
    """The other languages that also read ``spec``'s files (``accepts``: C++ reads C's)."""
    return [other for other in LANGUAGES if other is not spec and spec.name in other.accepts]


def reading_language(spec: LanguageSpec, texts: list[bytes]) -> LanguageSpec:
    """``spec``, or a language that also reads its files (``accepts``: C++ for C's ``.c`` and
    ``.h``, TSX for TypeScript) when ``spec``'s grammar finds an error in one of ``texts`` and
    only that language's grammar parses them all."""
    if not any(spec.parse(t).root_node.has_error for t in texts):
        return spec
    for other in accepted_by(spec):
        if not any(other.parse(t).root_node.has_error for t in texts):
            return other
    return spec


def for_lsp_id(language_id: str) -> LanguageSpec | None:
    """Look a language up by LSP languageId; None when unknown."""
    return _BY_NAME.get(language_id.lower())


def describe() -> list[dict[str, Any]]:
    """The registry as plain data for clients: name, LSP ids, extensions, aliases, comment syntax."""
    return [{"name": s.name, "lsp_ids": list(s.lsp_ids), "extensions": list(s.extensions),
             "aliases": list(s.aliases), "line_comments": list(s.line_comments),
             "block_comments": [list(pair) for pair in s.block_comments]} for s in LANGUAGES]


# A language's own parser, where RefScore can run it in process, as the judge of a syntax error.
# tree-sitter recovers from an error somewhere near it: for ``for w in words`` without its colon it
# marks the next line, one off from what Python says. Where a language's own parser is at hand
# (Python's ``compile``), its line is the line a student's error message names, and code it
# accepts parses whatever tree-sitter's recovery thought.

#: Nothing parsed: the language has no parser RefScore can run in process.
UNKNOWN = "unknown"


def native_error_line(spec: LanguageSpec, text: str) -> int | str | None:
    """The 1-based line of the first syntax error the language's own parser reports, None when
    it accepts ``text``, ``UNKNOWN`` when the language has no in-process parser here."""
    if spec.runner != "python3":
        return UNKNOWN
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and the like are no syntax error
            warnings.simplefilter("ignore")
            compile(text, "<submission>", "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except SyntaxError as error:  # IndentationError and TabError too
        return max(1, int(error.lineno or 1))
    except (ValueError, RecursionError, MemoryError):  # a NUL byte, nesting deeper than the parser's
        return UNKNOWN
    return None
