"""``LanguageSpec``: every static fact RefScore knows about one language, in one record.

Other packages read these fields instead of keeping tables keyed by language names: the
analysis (comments, docstrings), the dataflow rules, per-function pairing (function and class
node types), and the VS Code client's language list (generated from ``lsp_ids``).
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the grammar library is imported on first parse, so the facts read without it
    import tree_sitter

#: How the ``codebleu`` package removes comments before its syntax and dataflow match:
#: ``tokenize`` (Python's tokenize module; statement-level strings too), ``none`` (Ruby: nothing
#: is removed) or ``c_style`` (``//`` and ``/* */`` on the raw text, strings kept).
CompatComments = Literal["tokenize", "none", "c_style"]

_NO_TYPES: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LanguageSpec:
    """Static facts about one language.

    ``dataflow`` names the rule set (``refscore.dataflow``) the ``codebleu`` package applies to
    the language (C and C++ get its C# rules); ``native_dataflow`` the one the native rule uses,
    when it differs. ``function_types`` are definitions of named functions and methods,
    ``function_values`` function expressions that name a function when assigned to a variable
    (``const f = () => ...``), ``class_types`` the bodies that qualify a method's name.
    ``function_binding_types`` are the nodes whose ``value`` field holds such an expression (the
    function is then named by the binding's ``name``), ``function_wrapper_types`` the nodes that
    wrap a definition and belong to its span (Python's decorators), and ``declarator_name_types``
    the nodes that end a C-style ``declarator`` chain with the function's name
    (``int *f(int)``: pointer_declarator -> function_declarator -> identifier).
    """

    name: str
    grammar_module: str
    grammar_function: str = "language"
    extensions: tuple[str, ...] = ()
    notebook_extensions: tuple[str, ...] = ()  # notebooks whose code cells are in this language
    lsp_ids: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    #: programs a ``#!`` first line may name to run this language (version digits aside)
    interpreters: tuple[str, ...] = ()
    line_comments: tuple[str, ...] = ("//",)
    block_comments: tuple[tuple[str, str], ...] = (("/*", "*/"),)
    in_codebleu_package: bool = True
    comment_node_types: frozenset[str] = field(default_factory=lambda: frozenset({"comment"}))
    compat_comments: CompatComments = "c_style"
    docstrings: bool = False
    dataflow: str = ""
    native_dataflow: str = ""
    keywords_file: str = ""
    function_types: frozenset[str] = _NO_TYPES
    function_values: frozenset[str] = _NO_TYPES
    class_types: frozenset[str] = _NO_TYPES
    function_binding_types: frozenset[str] = _NO_TYPES
    function_wrapper_types: frozenset[str] = _NO_TYPES
    declarator_name_types: frozenset[str] = _NO_TYPES
    #: languages whose files this one's grammar also reads: a submission with such an extension
    #: is scored as this language, not refused as another (C++: ``.c`` and ``.h`` files;
    #: TypeScript and TSX: each other's)
    accepts: tuple[str, ...] = ()
    #: how behaviour runs this language (``refscore.behaviour``): ``python3``; ``node``,
    #: ``node-typescript``, ``node-tsx`` (types stripped first); ``gcc``, ``g++``, ``javac``
    #: (compiled in the sandbox, program mode); empty: behaviour is not available
    runner: str = ""

    def takes(self, other: str) -> bool:
        """Whether a file whose extension names ``other`` may be scored as this language."""
        return other == self.name or other in self.accepts

    @property
    def keywords(self) -> frozenset[str]:
        """This project's keyword list for the language (weighted n-gram match)."""
        return _keywords(self.keywords_file or self.name)

    @property
    def ts_language(self) -> tree_sitter.Language:
        """The tree-sitter Language object (loaded once per process)."""
        return _ts_language(self.grammar_module, self.grammar_function)

    @property
    def grammar_version(self) -> str:
        """Version of the grammar wheel, for score signatures."""
        return _grammar_version(self.grammar_module)

    def dataflow_rules(self, mode: str) -> str:
        """Name of the dataflow rule set for ``mode`` (``compat`` or ``native``)."""
        return (self.native_dataflow or self.dataflow) if mode == "native" else self.dataflow

    def parser(self) -> tree_sitter.Parser:
        """A parser for this language, built once per thread and reused."""
        cache = _thread_parsers.__dict__.setdefault("parsers", {})
        parser = cache.get(self.name)
        if parser is None:
            import tree_sitter

            parser = tree_sitter.Parser(self.ts_language)
            cache[self.name] = parser
        return parser

    def parse(self, source: bytes) -> tree_sitter.Tree:
        """Parse UTF-8 bytes into a tree."""
        return self.parser().parse(source)


_thread_parsers = threading.local()


@lru_cache(maxsize=None)
def _keywords(name: str) -> frozenset[str]:
    text = resources.files(__package__).joinpath("keywords", f"{name}.txt")
    return frozenset(w.strip() for w in text.read_text(encoding="utf-8").splitlines() if w.strip())


_LANGUAGE_LOCK = threading.Lock()


@lru_cache(maxsize=None)
def _ts_language(module: str, function: str) -> tree_sitter.Language:
    import tree_sitter

    with _LANGUAGE_LOCK:
        grammar = importlib.import_module(module)
        return tree_sitter.Language(getattr(grammar, function)())


@lru_cache(maxsize=None)
def _grammar_version(module: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(module.replace("_", "-"))
    except PackageNotFoundError:
        return "unknown"
