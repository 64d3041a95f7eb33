"""An editing process parses each new version from a kept tree (``parsing.parsed.reparse_edits``):
the tree is the fresh parse's, node for node (types, fields, byte ranges, points), on random edits
of documents in several languages, syntax errors included; and the incremental path is taken."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Iterator

import pytest

from refscore import languages
from refscore.parsing import parsed
from tests.analysis.test_code_tokens_parts import CORPORA, _edit

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def incremental(monkeypatch):
    """Incremental parsing on, for sources of any length, with no trees kept from other tests."""
    monkeypatch.setattr(parsed, "_INCREMENTAL", [True])
    monkeypatch.setattr(parsed, "INCREMENTAL_MIN_BYTES", 0)
    monkeypatch.setattr(parsed, "_kept", type(parsed._kept)())
    monkeypatch.setattr(parsed, "_bytes", 0)


def _nodes(tree) -> Iterator[tuple]:
    """Every node in preorder: its field, type, byte range, points, and whether it is missing."""
    cursor = tree.walk()
    while True:
        node = cursor.node
        yield (cursor.field_name, node.type, node.start_byte, node.end_byte, node.start_point, node.end_point,
               node.is_missing, node.is_named)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _versions(language: str, seed: int, count: int) -> Iterator[str]:
    rng = random.Random(seed)
    parts = CORPORA[language]
    text = "".join(rng.choice(parts) for _ in range(12))
    spec = languages.get(language)
    for _ in range(count):
        edited = _edit(text, rng)
        yield edited
        if not spec.parse(edited.encode("utf-8")).root_node.has_error:
            text = edited  # else the user undoes it: the next version is edited from the last clean one


@pytest.mark.parametrize("language", sorted(CORPORA))
def test_every_edited_version_has_the_fresh_parse_tree(incremental, language: str) -> None:
    spec = languages.get(language)
    before, clean = parsed.incremental_parses, 0
    for seed in range(6):
        for text in _versions(language, seed, 30):
            source = text.encode("utf-8")
            fresh = spec.parse(source)
            assert list(_nodes(parsed.parse(spec, source))) == list(_nodes(fresh)), text
            clean += not fresh.root_node.has_error
    assert clean >= 20 and parsed.incremental_parses - before >= clean // 2, "the incremental path was taken"


def test_a_real_module_edited_line_by_line(incremental) -> None:
    """This project's own largest module edited as a user types: a character added to the name
    each assignment binds, a blank line inserted every few lines, one deleted; each version's
    tree equals the fresh parse, and all but the first are incremental."""
    spec = languages.get("python")
    module = max((ROOT / "server" / "refscore").rglob("*.py"), key=lambda p: p.stat().st_size)
    lines = module.read_text(encoding="utf-8").splitlines(keepends=True)
    assert not spec.parse("".join(lines).encode()).root_node.has_error
    before, versions = parsed.incremental_parses, 0
    for number in range(len(lines)):
        assignment = re.match(r"( *)([a-z_]+) = ", lines[number])
        if assignment:
            lines[number] = lines[number][:assignment.end(2)] + "x" + lines[number][assignment.end(2):]
        elif number % 9 == 0:
            lines.insert(number, "\n")
        else:
            continue
        source = "".join(lines).encode("utf-8")
        assert list(_nodes(parsed.parse(spec, source))) == list(_nodes(spec.parse(source))), number
        versions += 1
    del lines[len(lines) // 2]
    source = "".join(lines).encode("utf-8")
    assert list(_nodes(parsed.parse(spec, source))) == list(_nodes(spec.parse(source)))
    assert versions > 20 and parsed.incremental_parses - before >= versions


def test_a_version_with_a_syntax_error_is_parsed_from_scratch(incremental, monkeypatch) -> None:
    spec = languages.get("python")
    text = "def f(x):\n    return x + 1\n\n" * 50
    parsed.parse(spec, text.encode())
    broken = text.replace("return x + 1", "return x + (", 1).encode()
    before = parsed.incremental_parses
    tree = parsed.parse(spec, broken)
    assert tree.root_node.has_error
    assert parsed.incremental_parses == before  # not counted: the fresh parse's tree is used
    assert list(_nodes(tree)) == list(_nodes(spec.parse(broken)))
