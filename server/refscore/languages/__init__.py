"""The one language registry: names, LSP ids, extensions, grammars, keywords, comment syntax.

Every front end (CLI, LSP, grader) and every metric asks this module about a language; nothing
else imports a tree-sitter grammar. Parsers are built once per process and per thread.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import PurePath

import tree_sitter


class UnknownLanguageError(ValueError):
    """Raised when a language name, LSP id or file extension is not in the registry."""


@dataclass(frozen=True)
class LanguageSpec:
    """Static facts about one language."""

    name: str
    grammar_module: str
    grammar_function: str = "language"
    extensions: tuple[str, ...] = ()
    lsp_ids: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    line_comments: tuple[str, ...] = ("//",)
    block_comments: tuple[tuple[str, str], ...] = (("/*", "*/"),)
    in_codebleu_package: bool = True
    comment_node_types: frozenset[str] = field(default_factory=lambda: frozenset({"comment"}))

    @property
    def keywords(self) -> frozenset[str]:
        """This project's keyword list for the language (weighted n-gram match)."""
        return _keywords(self.name)

    @property
    def ts_language(self) -> tree_sitter.Language:
        """The tree-sitter Language object (loaded once per process)."""
        return _ts_language(self.grammar_module, self.grammar_function)

    @property
    def grammar_version(self) -> str:
        """Version of the grammar wheel, for score signatures."""
        return _grammar_version(self.grammar_module)

    def parser(self) -> tree_sitter.Parser:
        """A parser for this language, built once per thread and reused."""
        cache = _thread_parsers.__dict__.setdefault("parsers", {})
        parser = cache.get(self.name)
        if parser is None:
            parser = tree_sitter.Parser(self.ts_language)
            cache[self.name] = parser
        return parser

    def parse(self, source: bytes) -> tree_sitter.Tree:
        """Parse UTF-8 bytes into a tree."""
        return self.parser().parse(source)


_C_FAMILY_COMMENTS = dict(line_comments=("//",), block_comments=(("/*", "*/"),))

LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "tree_sitter_python", extensions=(".py", ".pyi", ".pyw"),
                 lsp_ids=("python",), aliases=("py",), line_comments=("#",), block_comments=()),
    LanguageSpec("java", "tree_sitter_java", extensions=(".java",), lsp_ids=("java",),
                 comment_node_types=frozenset({"line_comment", "block_comment", "comment"}),
                 **_C_FAMILY_COMMENTS),
    LanguageSpec("javascript", "tree_sitter_javascript", extensions=(".js", ".mjs", ".cjs", ".jsx"),
                 lsp_ids=("javascript", "javascriptreact"), aliases=("js",), **_C_FAMILY_COMMENTS),
    LanguageSpec("typescript", "tree_sitter_typescript", "language_typescript",
                 extensions=(".ts", ".mts", ".cts"), lsp_ids=("typescript",), aliases=("ts",),
                 in_codebleu_package=False, **_C_FAMILY_COMMENTS),
    LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx", extensions=(".tsx",),
                 lsp_ids=("typescriptreact",), in_codebleu_package=False, **_C_FAMILY_COMMENTS),
    LanguageSpec("c", "tree_sitter_c", extensions=(".c", ".h"), lsp_ids=("c",), **_C_FAMILY_COMMENTS),
    LanguageSpec("cpp", "tree_sitter_cpp", extensions=(".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".c++"),
                 lsp_ids=("cpp",), aliases=("c++",), **_C_FAMILY_COMMENTS),
    LanguageSpec("c_sharp", "tree_sitter_c_sharp", extensions=(".cs",), lsp_ids=("csharp",),
                 aliases=("csharp", "c#", "cs"), **_C_FAMILY_COMMENTS),
    LanguageSpec("go", "tree_sitter_go", extensions=(".go",), lsp_ids=("go",), aliases=("golang",),
                 **_C_FAMILY_COMMENTS),
    LanguageSpec("rust", "tree_sitter_rust", extensions=(".rs",), lsp_ids=("rust",), aliases=("rs",),
                 comment_node_types=frozenset({"line_comment", "block_comment", "comment"}),
                 **_C_FAMILY_COMMENTS),
    LanguageSpec("ruby", "tree_sitter_ruby", extensions=(".rb",), lsp_ids=("ruby",), aliases=("rb",),
                 line_comments=("#",), block_comments=(("=begin", "=end"),)),
    LanguageSpec("php", "tree_sitter_php", "language_php", extensions=(".php",), lsp_ids=("php",),
                 line_comments=("//", "#"), block_comments=(("/*", "*/"),)),
)

_BY_NAME: dict[str, LanguageSpec] = {}
for _spec in LANGUAGES:
    for _key in (_spec.name, *_spec.aliases, *_spec.lsp_ids):
        _BY_NAME.setdefault(_key.lower(), _spec)
_BY_EXTENSION: dict[str, LanguageSpec] = {ext: s for s in LANGUAGES for ext in s.extensions}

#: The languages the `codebleu` package supports (the compat API accepts exactly these).
CODEBLEU_PACKAGE_LANGUAGES: tuple[str, ...] = tuple(s.name for s in LANGUAGES if s.in_codebleu_package)

_thread_parsers = threading.local()


def names() -> list[str]:
    """Canonical names of every registered language."""
    return [s.name for s in LANGUAGES]


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


def for_lsp_id(language_id: str) -> LanguageSpec | None:
    """Look a language up by LSP languageId; None when unknown."""
    return _BY_NAME.get(language_id.lower())


@lru_cache(maxsize=None)
def _keywords(name: str) -> frozenset[str]:
    text = resources.files(__package__).joinpath("keywords", f"{name if name != 'tsx' else 'typescript'}.txt")
    return frozenset(w.strip() for w in text.read_text(encoding="utf-8").splitlines() if w.strip())


_LANGUAGE_LOCK = threading.Lock()


@lru_cache(maxsize=None)
def _ts_language(module: str, function: str) -> tree_sitter.Language:
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
