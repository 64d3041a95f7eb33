"""The native flat tree assembled from top-level parts kept from earlier versions is the flat tree
of the whole document, every field, and gives the same structure analysis and CodeBLEU: on many
edited versions of documents in Python, JavaScript and Java."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from refscore import languages
from refscore.analysis import document
from refscore.analysis.document import _analyse_structure, analyse_structure
from refscore import dataflow
from refscore.dataflow import _tree_edits, dropped_types
from refscore.dataflow._tree import DataTree, build
from refscore.dataflow._tree_edits import token_table
from refscore.parsing import flat as flat_module
from refscore.parsing import flat_edits
from refscore.parsing.flat import FlatTree, assemble, flatten, keep_parts
from refscore.scoring.codebleu import score_codebleu
from tests.analysis.test_code_tokens_parts import CORPORA, _edit
from tests.support.timing import hang_guard

ROOT = Path(__file__).resolve().parents[2]

REFERENCES = {"python": CORPORA["python"][3] + CORPORA["python"][4], "javascript": CORPORA["javascript"][1],
              "java": CORPORA["java"][2]}


@pytest.fixture(autouse=True)
def parts_kept() -> Iterator[None]:
    """An editing session's process: parts kept (``keep_parts``), as the language server sets it."""
    before = flat_module._ASSEMBLE[0]
    keep_parts()
    yield
    keep_parts(before)


def test_batch_scoring_flattens_the_whole_tree_and_the_editor_keeps_parts() -> None:
    """A batch (grading, ``score``, the API) never repeats a part: assembling would only cost
    (docs/benchmarks.md, issue 44); the language server and its worker process keep them."""
    spec = languages.get("python")
    source = CORPORA["python"][3].encode("utf-8")
    root = spec.parse(source).root_node
    drop = dropped_types(spec.name, "native")
    assert assemble(root, source, spec.name, drop, spec.docstrings) is not None
    keep_parts(False)
    assert assemble(root, source, spec.name, drop, spec.docstrings) is None
    # the server and its worker process turn it on, with the other editing-only switches (parts'
    # data-flow walks kept, incremental parses, tokens recounted, evictions freed later), all off
    # before: in child processes, as each switch is the process's
    switches = ("[flat._ASSEMBLE[0], _parts._ON[0], parsed._INCREMENTAL[0], token_edits._ON[0], reaper._state['on'], "
                "__import__('gc').get_threshold()[0] > 700]")
    for start in ("from refscore.lsp.app import build_server; build_server(allow_daemon=False)",
                  "from refscore.lsp.phases import own_scorers; own_scorers()"):
        check = ("from refscore.parsing import flat, parsed, reaper; from refscore.dataflow import _parts; "
                 "from refscore.analysis import token_edits; "
                 f"print({switches}); {start}; print({switches})")
        done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=hang_guard(),
                              env={**os.environ, "PYTHONPATH": str(ROOT / "server")})
        assert done.stdout.split() == ["[False,", "False,", "False,", "False,", "False,", "False]",
                                       "[True,", "True,", "True,", "True,", "True,", "True]"], done.stderr


def _fields(flat: FlatTree) -> dict:
    return {name: getattr(flat, name) for name in FlatTree.__slots__ if name != "layout"}


@pytest.mark.parametrize("language", sorted(CORPORA))
def test_assembled_flat_trees_equal_the_whole_trees(language: str) -> None:
    spec = languages.get(language)
    drop = dropped_types(spec.name, "native")
    rng = random.Random(45)
    assembled = 0
    for _ in range(12):
        base = "".join(rng.choice(CORPORA[language]) for _ in range(rng.randrange(1, 9)))
        for index in range(12):
            text = _edit(base, rng) if index % 2 else _edit(_edit(base, rng), rng)
            source = text.encode("utf-8")
            root = spec.parse(source).root_node
            made = assemble(root, source, spec.name, drop, spec.docstrings)
            if made is not None:
                assembled += 1
                assert _fields(made) == _fields(flatten(root, spec.name, drop, "native")), text
            _assert_scored_as_a_whole_parse(text, language)
    assert assembled > 40


#: TypeScript parts: its data flow reads the tokens under type nodes as keywords (``not_values``),
#: which the token table's change must mute likewise.
TYPESCRIPT_PARTS = ["function f(a: number): number {\n  return a + 1;\n}\n", "interface P { x: number; y?: string }\n",
                    "let y: Array<string> = ['a'];\n", "class C<T> {\n  m(x: T): T { const z: T = x; return z; }\n}\n",
                    "const g = (s: string): number => s.length;\n", "type U = { a: number } | null;\n"]


@pytest.mark.parametrize("language", [*sorted(CORPORA), "typescript"])
def test_flat_trees_derived_from_the_last_version_equal_the_whole_trees(language: str, monkeypatch) -> None:
    """A long document's flat tree changed from its last version's where the edit left its parts
    (``flat_edits``): every field is ``flatten``'s, and the data flow's token table every field of
    one built afresh, after chains of random edits (typed, deleted, copied lines, blank lines:
    parts added, removed, merged and moved)."""
    monkeypatch.setattr(flat_edits, "MIN_BYTES", 0)  # short documents too: more edits per second
    flat_edits.forget()
    spec = languages.get(language)
    drop = dropped_types(spec.name, "native")
    not_values = dataflow._RULES["native"][spec.name].not_values
    parts = CORPORA.get(language, TYPESCRIPT_PARTS)
    rng = random.Random(46)
    before, compared, tables = flat_edits.derived[0], 0, tables_changed()
    for _ in range(10):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(2, 12)))
        for _ in range(14):  # each version is edited from the last that parsed: the path an editor takes
            edited = _edit(text, rng)
            source = edited.encode("utf-8")
            root = spec.parse(source).root_node
            made = assemble(root, source, spec.name, drop, spec.docstrings)
            if made is None:  # a syntax error: not assembled; the next edit starts from the last text
                continue
            compared += 1
            text = edited
            whole = flatten(root, spec.name, drop, "native")
            assert _fields(made) == _fields(whole), text
            # the data flow's token table, changed from the last version's where the tree was
            assert _table(token_table(made, text, not_values)) == _table(build(whole, text, not_values)), text
            flat_edits.keep(made.layout)  # as the analysis does once it has read the tree
    assert compared > 60 and flat_edits.derived[0] - before > compared // 2
    assert tables_changed() - tables > compared // 2


def _table(tree: DataTree) -> dict:
    return {name: getattr(tree, name) for name in DataTree.__slots__ if name not in ("flat", "types", "kids", "last")}


def tables_changed() -> int:
    """How many token tables were changed from the last version's, not built afresh."""
    return _tree_edits.changed[0]


def test_a_long_document_edited_in_the_editor_derives_its_tree_and_scores_as_a_whole_parse() -> None:
    """At the real threshold: a long file typed into, line by line, as the language server sees it."""
    flat_edits.forget()
    language, rng = "python", random.Random(47)
    spec = languages.get(language)
    text = "".join(c for c in CORPORA[language] if ";" not in c) * 10  # a top-level ";" is not assembled
    assert len(text.encode("utf-8")) >= flat_edits.MIN_BYTES
    analyse_structure(text, language, "native")
    before, edited = flat_edits.derived[0], 0
    for _ in range(40):
        at = rng.randrange(len(text))
        typed = text[:at] + rng.choice("ab_ 1") + text[at:]
        if spec.parse(typed.encode("utf-8")).root_node.has_error:
            continue  # a tree with errors is never assembled: the next key fixes it
        text, edited = typed, edited + 1
        _assert_scored_as_a_whole_parse(text, language)
    assert edited >= 8 and flat_edits.derived[0] - before >= edited // 2


def _assert_scored_as_a_whole_parse(text: str, language: str) -> None:
    """The analysis and CodeBLEU of ``text`` as this process makes them (parts kept) are those of
    a whole parse flattened from scratch."""
    kept_analysis = analyse_structure(text, language, "native")
    kept = score_codebleu([REFERENCES[language]], text, language)
    with _whole_flatten():
        whole_analysis = _analyse_structure(text, language, "native")
        whole = score_codebleu([REFERENCES[language]], text, language)
    assert kept_analysis == whole_analysis and kept_analysis.subtree_parts == whole_analysis.subtree_parts
    assert (kept.score, kept.components, kept.explanations) == (whole.score, whole.components, whole.explanations)


@contextmanager
def _whole_flatten() -> Iterator[None]:
    """Every analysis made from scratch by ``flatten`` of the whole tree (nothing assembled, no
    analysis cached)."""
    original = document.assemble
    document.assemble = lambda *args: None
    analyse_structure.cache_clear()
    try:
        yield
    finally:
        document.assemble = original
        analyse_structure.cache_clear()
