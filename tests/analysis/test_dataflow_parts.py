"""The data-flow walk part by part, each top-level part's walk kept (``dataflow.keep_walks``, an
editing session) gives the whole walk's edges, in order, on random edits of documents in every
language with data flow, in both modes; and kept walks are taken (unchanged parts, and parts
whose tokens or incoming definitions were renumbered by an edit before them)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Iterator

import pytest

from refscore import languages
from refscore.dataflow import MODES, _parts, dropped_types, extract_raw_edges
from refscore.parsing.flat import flatten
from tests.analysis.test_code_tokens_parts import CORPORA, _edit

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = {"python": CORPORA["python"], "java": CORPORA["java"], "javascript": CORPORA["javascript"],
            "typescript": CORPORA["javascript"]}
for _name, _file in (("go", "go"), ("ruby", "ruby"), ("php", "php"), ("rust", "rust"), ("csharp", "c_sharp")):
    SNIPPETS[_name] = [s.strip("\n").removeprefix("<?php").strip("\n") + "\n" for s in
                       (ROOT / "tests" / "data" / "dataflow" / f"{_file}.txt").read_text(encoding="utf-8").split("-----8<-----")]


def _edges(text: str, language: str, mode: str) -> list[tuple]:
    spec = languages.get(language)
    flat = flatten(spec.parse(text.encode("utf-8")).root_node, spec.name, dropped_types(spec.name, mode))
    return [e[:4] + (tuple(e[4]),) + e[5:] for e in extract_raw_edges(flat, text, spec.name, mode=mode)]


def _versions(language: str, seed: int, count: int) -> Iterator[str]:
    """Edited versions of a document of snippets; an edit that breaks the parse is undone after
    its version (the next one is edited from the last clean text), and every third edit is in
    the last part (the parts before it are unchanged and keep their numbers)."""
    spec = languages.get(language)
    rng = random.Random(seed)
    snippets = SNIPPETS[language]
    head = "<?php\n" if language == "php" else ""
    text = head + "".join(rng.choice(snippets) for _ in range(10))
    for number in range(count):
        if number % 3 == 0:
            cut = len(text) * 3 // 4
            edited = text[:cut] + _edit(text[cut:], rng)
        else:
            edited = head + _edit(text[len(head):], rng)
        yield edited
        if not spec.parse(edited.encode("utf-8")).root_node.has_error:
            text = edited


@pytest.fixture
def walks_kept(monkeypatch):
    monkeypatch.setattr(_parts, "_ON", [True])
    monkeypatch.setattr(_parts, "_PARTS", type(_parts._PARTS)(entries=8192, chars=8_000_000))


def _whole(text: str, language: str, mode: str) -> list[tuple]:
    on = _parts._ON[0]
    _parts._ON[0] = False
    try:
        return _edges(text, language, mode)
    finally:
        _parts._ON[0] = on


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("language", sorted(SNIPPETS))
def test_part_by_part_walks_give_the_whole_walks_edges(walks_kept, language: str, mode: str) -> None:
    before = _parts.reused[0]
    clean = 0
    for seed in range(3):
        for text in _versions(language, seed, 24):
            assert _edges(text, language, mode) == _whole(text, language, mode), text
            clean += not languages.get(language).parse(text.encode("utf-8")).root_node.has_error
    assert clean >= 10 and _parts.reused[0] - before >= 5 * clean, (clean, _parts.reused[0] - before)


def test_an_edit_that_adds_tokens_renumbers_the_kept_parts_after_it(walks_kept) -> None:
    """A statement typed in the first function shifts every later token: the later parts' walks
    are reused renumbered, and the edges are the whole walk's."""
    functions = "".join(f"def f{i}(values):\n    total = 0\n    for v in values:\n        total += v * {i}\n"
                        f"    return total\n\n" for i in range(30))
    assert _edges(functions, "python", "native") == _whole(functions, "python", "native")
    edited = functions.replace("    total = 0\n", "    total = 0\n    extra = total + 1\n", 1)
    before = _parts.reused[0]
    assert _edges(edited, "python", "native") == _whole(edited, "python", "native")
    assert _parts.reused[0] - before >= 29


def test_shared_reaching_sets_are_walked_not_kept(walks_kept) -> None:
    """Minified code whose names are reused by every function grows shared sets (``Reach``):
    those parts are walked each time (keeping them would copy each set per edge)."""
    code = "function f(e,t){if(e){t+=e}return t}\n" * 40
    assert _edges(code, "javascript", "native") == _whole(code, "javascript", "native")
    assert _edges(code + "\n", "javascript", "native") == _whole(code + "\n", "javascript", "native")
