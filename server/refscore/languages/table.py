"""The registered languages, one ``LanguageSpec`` each (the order is the order users see)."""

from __future__ import annotations

from .spec import LanguageSpec

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
