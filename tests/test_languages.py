"""The language registry is the one source of language facts: every name resolves, every fact
another package reads is real (node types of the grammar, rule sets that exist), and no module
outside ``refscore.languages`` keeps its own table or check keyed by a language name."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from refscore import languages
from refscore.analysis.comments import strip_compat
from refscore.dataflow import RULE_SETS, extract_dataflow
from refscore.embed.registry import FALLBACK_PAPER_MODEL, PAPER_MODELS, paper_model
from refscore.languages import LANGUAGES, LanguageSpec
from refscore.analysis.functions import top_level_functions

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "refscore"
IDS = [s.name for s in LANGUAGES]


def _node_kinds(spec: LanguageSpec) -> set[str]:
    lang = spec.ts_language
    return {lang.node_kind_for_id(i) for i in range(lang.node_kind_count)}


def test_every_name_alias_lsp_id_and_extension_resolves_to_its_spec() -> None:
    for spec in LANGUAGES:
        for key in (spec.name, *spec.aliases, *spec.lsp_ids):
            assert languages.get(key) is spec
            assert languages.get(f" {key.upper()} ") is spec
            assert languages.find(key) is spec
        for ext in spec.extensions:
            assert languages.for_path(f"dir/file{ext}") is spec
    assert languages.find("cobol") is None
    with pytest.raises(languages.UnknownLanguageError, match="unknown language 'cobol'"):
        languages.get("cobol")


def test_lsp_ids_include_the_react_flavours() -> None:
    ids = languages.lsp_ids()
    assert len(ids) == len(set(ids))
    assert languages.get("javascriptreact").name == "javascript"
    assert languages.get("typescriptreact").name == "tsx"
    assert {"javascriptreact", "typescriptreact"} <= set(ids)


@pytest.mark.parametrize("name", IDS)
def test_node_type_facts_are_node_types_of_the_grammar(name: str) -> None:
    spec = languages.get(name)
    kinds = _node_kinds(spec)
    for fact in ("comment_node_types", "function_types", "function_values", "class_types", "function_binding_types",
                 "function_wrapper_types", "declarator_name_types"):
        assert getattr(spec, fact) <= kinds, f"{name}.{fact}: {sorted(getattr(spec, fact) - kinds)}"
    assert spec.keywords, f"{name} has no keyword list"


@pytest.mark.parametrize("name", IDS)
def test_every_language_names_existing_dataflow_rules(name: str) -> None:
    spec = languages.get(name)
    for mode in ("compat", "native"):
        assert spec.dataflow_rules(mode) in RULE_SETS
    assert spec.compat_comments in ("tokenize", "none", "c_style")


def test_rule_choice_follows_the_spec() -> None:
    rust = languages.get("rust")
    assert (rust.dataflow_rules("compat"), rust.dataflow_rules("native")) == ("rust_compat", "rust_native")
    # the package's quirk, kept in compat: C and C++ use its C# rules
    assert languages.get("c").dataflow == languages.get("cpp").dataflow == "csharp"
    text = "x = 1\ny = x + 2\n"
    root = languages.get("python").parse(text.encode()).root_node
    assert extract_dataflow(root, text, "py") == extract_dataflow(root, text, "python") != []


def test_docstrings_and_compat_comments_come_from_the_spec() -> None:
    assert [s.name for s in LANGUAGES if s.docstrings] == ["python"]
    source = 'def f():\n    """doc"""\n    return 1  # note\n'
    assert "doc" not in strip_compat(source, "py") and "note" not in strip_compat(source, "python")
    ruby = "x = 1 # kept: the package strips nothing in Ruby\n"
    assert strip_compat(ruby, "rb") == ruby
    assert "gone" not in strip_compat("int a; // gone\n", "c++")
    with pytest.raises(languages.UnknownLanguageError):
        strip_compat("x", "cobol")


def test_functions_use_the_languages_own_node_types() -> None:
    js = "const add = (a, b) => a + b;\nclass C { m() { return 1; } }\nfunction g() {}\n"
    assert [f.name for f in top_level_functions(js, languages.get("javascriptreact"))] == ["add", "C.m", "g"]
    tsx = "interface I { x: number }\nconst App = () => <div>{1}</div>;\n"
    assert [f.name for f in top_level_functions(tsx, languages.get("tsx"))] == ["App"]
    ruby = "module M\n  class K\n    def run\n    end\n  end\nend\n"
    assert [f.name for f in top_level_functions(ruby, languages.get("ruby"))] == ["M.K.run"]


def test_function_finding_names_no_node_type_of_its_own() -> None:
    """analysis/functions.py reads every node type from the registry: none of its string
    literals (field names given to ``child_by_field_name`` aside) is a node type of a grammar."""
    import ast

    kinds = {lang.node_kind_for_id(i) for lang in (spec.ts_language for spec in LANGUAGES)
             for i in range(lang.node_kind_count) if lang.node_kind_is_named(i)}
    tree = ast.parse((PACKAGE / "analysis" / "functions.py").read_text(encoding="utf-8"))
    fields = {id(arg) for call in ast.walk(tree) if isinstance(call, ast.Call)
              and getattr(call.func, "attr", "") == "child_by_field_name" for arg in call.args}
    named = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
             and isinstance(node.value, str) and id(node) not in fields}
    assert not named & kinds, sorted(named & kinds)


def test_decorators_and_bound_functions_come_from_the_registry() -> None:
    python = "@cache\n@other(1)\ndef f(x):\n    return x\n"
    [f] = top_level_functions(python, languages.get("python"))
    assert (f.name, f.start, f.line) == ("f", 0, 0)  # the decorators belong to the function's span
    js = "const a = () => 1, b = function () {}; let c = 5;\n"
    assert [f.name for f in top_level_functions(js, languages.get("javascript"))] == ["a", "b"]
    cpp = "int *f(int a) { return 0; }\nvoid S::m() {}\nS::~S() {}\nbool operator==(S a, S b) { return true; }\n"
    assert [f.name for f in top_level_functions(cpp, languages.get("cpp"))] == ["f", "S::m", "S::~S", "operator=="]


def test_paper_models_are_keyed_by_canonical_names_and_resolve_every_alias() -> None:
    assert set(PAPER_MODELS) <= set(IDS)
    for name, model in PAPER_MODELS.items():
        spec = languages.get(name)
        for key in (spec.name, *spec.aliases, *spec.lsp_ids):
            assert paper_model(key) == model, key
    assert paper_model("javascriptreact") == PAPER_MODELS["javascript"]
    assert paper_model("cobol") == paper_model(None) == FALLBACK_PAPER_MODEL


def test_module_prints_the_registry_as_json() -> None:
    out = subprocess.run([sys.executable, "-m", "refscore.languages", "--json"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    records = json.loads(out)
    assert records == languages.describe()
    assert [r["name"] for r in records] == IDS


_NAMES = "|".join(sorted({k for s in LANGUAGES for k in (s.name, *s.aliases, *s.lsp_ids)}, key=len, reverse=True))
#: ``language == "python"``, ``lang in ("ruby", ...)``, ``{"python": ...`` keyed tables, ...
_NAME_CHECK = re.compile(rf'''(==|!=|\bin\s*[(\[{{])\s*["']({_NAMES})["']|^\s*["']({_NAMES})["']\s*:''', re.M)
#: modules whose language-name literals are not a second registry: datasets' own names (eval),
#: the paper-model table keyed by canonical names and the dataflow rule sets keyed by the rule-set
#: names specs give (both checked against the registry above)
_ALLOWED = {"eval/data.py", "eval/report.py", "commands/eval.py", "embed/registry.py", "dataflow/__init__.py"}


def test_no_language_name_tables_or_checks_outside_the_registry() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("languages/") or rel in _ALLOWED:
            continue
        for match in _NAME_CHECK.finditer(path.read_text(encoding="utf-8")):
            line = path.read_text(encoding="utf-8").count("\n", 0, match.start()) + 1
            found.append(f"{rel}:{line}: {match.group(0).strip()}")
    assert not found, "language facts outside refscore.languages (put them on LanguageSpec):\n" + "\n".join(found)


def test_php_templates_with_html_around_them_are_php(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``.phtml`` is PHP's template extension (HTML with ``<?php ?>`` islands): read as PHP."""
    from refscore.cli import main

    assert languages.for_path("views/list.phtml").name == "php"
    page = "<ul>\n<?php foreach ($items as $item): ?><li><?= $item ?></li><?php endforeach; ?>\n</ul>\n"
    (tmp_path / "ref.phtml").write_text(page, encoding="utf-8")
    (tmp_path / "cand.phtml").write_text(page, encoding="utf-8")
    argv = ["score", str(tmp_path / "ref.phtml"), str(tmp_path / "cand.phtml"), "--metrics", "codebleu",
            "--json", "--no-daemon"]
    assert main(argv) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["language"] == "php" and row["scores"]["codebleu_native"] == pytest.approx(1.0)


@pytest.mark.parametrize("alias,name", [("jsx", "javascript"), ("cxx", "cpp"), ("tsx", "tsx")])
def test_lang_takes_the_react_and_cxx_spellings(alias: str, name: str) -> None:
    """``--lang tsx`` works, so ``--lang jsx`` must too; ``cxx`` is C++'s other file spelling."""
    assert languages.get(alias).name == name


@pytest.mark.parametrize("line,name", [
    ("#!/usr/bin/env python3", "python"), ("#!/usr/bin/python3.11", "python"), ("#!/usr/bin/env -S node --flag", "javascript"),
    ("#! /usr/local/bin/ruby -w", "ruby"), ("#!/usr/bin/env php", "php"), ("#!/usr/bin/env PYTHONUTF8=1 python", "python")])
def test_a_shebang_names_its_language(line: str, name: str) -> None:
    spec = languages.for_shebang(line)
    assert spec is not None and spec.name == name


@pytest.mark.parametrize("line", ["#!/bin/sh", "#!/usr/bin/env bash", "# a comment", "", "#!", "#!/usr/bin/env"])
def test_a_shebang_of_no_scored_language_names_none(line: str) -> None:
    assert languages.for_shebang(line) is None


def test_score_reads_an_extensionless_script_by_its_shebang(tmp_path) -> None:
    """An extensionless script (`bin/tool`) was refused: "cannot tell the language ... pass --lang"."""
    script = "#!/usr/bin/env python3\ndef main(n):\n    return n + 1\n"
    (tmp_path / "tool").write_text(script, encoding="utf-8")
    (tmp_path / "ref_tool").write_text(script, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "refscore", "score", str(tmp_path / "ref_tool"), str(tmp_path / "tool"),
                          "--metrics", "codebleu", "--json", "--no-daemon"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["language"] == "python" and data["codebleu_native"]["codebleu_native"] == pytest.approx(1.0)
    (tmp_path / "shell").write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    refused = subprocess.run([sys.executable, "-m", "refscore", "score", str(tmp_path / "shell"), str(tmp_path / "shell"),
                              "--metrics", "codebleu", "--no-daemon"], capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "pass --lang" in refused.stderr and "Traceback" not in refused.stderr
