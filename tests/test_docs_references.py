"""What README.md and docs/*.md name exists: every test they cite (`tests/x.py::test_name`, also
`` `::test_other` `` after it), every test file, and every option of a `refscore ...` command line
they show (in code blocks, continuation lines included, and in inline code), in that subcommand's
own parser. A renamed test or option then fails here instead of leaving a page that sends readers
to something that is not there."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from refscore.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# `tests/x.py`, then `::name` right after it or in a later `` `::name` `` of the same list
CITATION = re.compile(r"(tests/[\w/]+\.py)|(?<=::)(test_\w+)")
COMMAND = re.compile(r"\brefscore ((?:daemon )?[a-z]+)\b([^`#|\n]*)")
OPTION = re.compile(r"(?<![\w\-./=])(--?[A-Za-z][\w-]*)")


def _parsers() -> dict[str, set[str]]:
    """Each (sub)command's words ('score', 'daemon start') -> the options its parser takes."""
    found: dict[str, set[str]] = {}

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        options: set[str] = set()
        for action in parser._actions:  # noqa: SLF001 - argparse has no public list of them
            options.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                for name, sub in action.choices.items():
                    walk(sub, (*words, name))
        found[" ".join(words)] = options

    walk(build_parser(), ())
    return found


def _command_lines(text: str) -> list[str]:
    """Inline code spans and code-block lines, a block's continuation lines joined to their command."""
    lines = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", text)
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M):
        lines.extend(re.sub(r"\\?\n\s+(?=\[|-)", " ", block).splitlines())
    return lines


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_cited_test_exists(page: Path) -> None:
    missing, current = [], None
    for match in CITATION.finditer(page.read_text(encoding="utf-8")):
        if match.group(1):
            current = match.group(1)
            if not (ROOT / current).is_file():
                missing.append(current)
                current = None
        elif current is not None:
            source = (ROOT / current).read_text(encoding="utf-8")
            if not re.search(rf"^\s*(?:async )?def {match.group(2)}\b", source, re.M):
                missing.append(f"{current}::{match.group(2)}")
    assert not missing, f"{page.name} cites what is not there: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_option_shown_on_a_command_line_exists(page: Path) -> None:
    parsers, unknown = _parsers(), []
    for line in _command_lines(page.read_text(encoding="utf-8")):
        for match in COMMAND.finditer(line):
            words = match.group(1)
            if words not in parsers:
                words = words.split()[0]
            if words not in parsers:
                continue  # prose ("refscore scores ..."), not a command
            for option in OPTION.findall(match.group(2)):
                if option != "-" and option not in parsers[words]:
                    unknown.append(f"refscore {words} {option}")
    assert not unknown, f"{page.name} shows options the command does not take: {sorted(set(unknown))}"


def test_the_checks_see_the_pages_command_lines() -> None:
    """The patterns find what they are meant to: the README's synopsis and a daemon line."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = {m.group(1) for line in _command_lines(text) for m in COMMAND.finditer(line)}
    assert {"score", "grade", "serve", "eval", "setup"} <= found
    daemon = (ROOT / "docs/daemon.md").read_text(encoding="utf-8")
    assert any("--large-workers" in m.group(2) for line in _command_lines(daemon)
               for m in COMMAND.finditer(line) if m.group(1) == "daemon start")
    citations = [m.group(2) for m in CITATION.finditer((ROOT / "docs/reliability.md").read_text(encoding="utf-8"))
                 if m.group(2)]
    assert len(citations) > 50
