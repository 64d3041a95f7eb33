"""End to end: clients send percent-encoded URIs (VS Code and Neovim write a space as ``%20``):
documents, workspace folders and references under such paths are scored like any other, and
the reference URIs the server sends back name the real files."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.lsp import samples
from tests.lsp.harness import session

pytestmark = pytest.mark.asyncio


def path_of(address: str) -> Path:
    return Path(unquote(urlparse(address).path))


async def test_paths_with_spaces_and_brackets_are_scored(tmp_path: Path) -> None:
    root = tmp_path / "course 2026 (fall)"
    (root / "lab 1").mkdir(parents=True)
    (root / "reference" / "lab 1").mkdir(parents=True)
    (root / "reference" / "lab 1" / "fizz #1.py").write_text(samples.REFERENCE, encoding="utf-8")
    cand = root / "lab 1" / "fizz #1.py"
    cand.write_text(samples.CANDIDATE, encoding="utf-8")
    async with session(root) as s:
        doc = s.open(cand)
        assert "%20" in doc and "%23" in doc  # what real clients send
        first = await s.wait_summary(doc, version=1)
        assert first.data["referenceSource"] == "convention"
        assert first.message.startswith("RefScore vs fizz #1.py (convention): CodeBLEU")
        summary_hover = await s.hover(doc, 0, 1)
        assert summary_hover.contents.value.startswith("**RefScore** vs [fizz #1.py](file://")
        assert [path_of(u) for u in first.data["references"]] == [root / "reference" / "lab 1" / "fizz #1.py"]
        version = s.insert(doc, 0, 0, "# edited\n")
        second = await s.wait_summary(doc, version=version)
        assert second.data["codebleu"]["score"] != first.data["codebleu"]["score"]
        hover = await s.hover(doc, 2, 5)  # `if`
        assert hover is not None and "also in the reference" in hover.contents.value
        assert [lens.command.title for lens in await s.lenses(doc)][0].endswith("vs fizzbuzz (same name)")


async def test_an_open_reference_under_an_encoded_uri_counts_with_its_unsaved_text(tmp_path: Path) -> None:
    folder = tmp_path / "key & answers"
    folder.mkdir()
    cand = samples.write_pair(folder, "task one")
    ref = folder / "task one.ref.py"
    async with session(tmp_path) as s:
        doc = s.open(cand)
        before = await s.wait_summary(doc)
        ref_doc = s.open(ref)
        assert "%20" in ref_doc
        s.replace_all(ref_doc, samples.CANDIDATE)  # unsaved: the editor's text counts
        after = await s.wait_for(
            lambda: (d := s.summary(doc)) and d.data["codebleu"]["score"] > 0.99 and d, what="rescored candidate")
        assert after.data["codebleu"]["score"] > before.data["codebleu"]["score"]
        answer = await s.command("refscore.setReference", doc, "task one.ref.py")
        chosen = answer["references"] if isinstance(answer, dict) else answer.references
        assert [path_of(u) for u in chosen] == [ref]
        await s.wait_for(lambda: (d := s.summary(doc)) and d.data["referenceSource"] == "command", what="command")


async def test_a_workspace_opened_through_a_symbolic_link(tmp_path: Path) -> None:
    """The editor opens the workspace by a linked path (macOS's /tmp is /private/tmp, a home
    folder on another disk): conventions under reference/ and settings globs still apply (the
    folder was resolved and the document's path not, so the document was in no folder)."""
    real = tmp_path / "real"
    (real / "lab").mkdir(parents=True)
    (real / "reference" / "lab").mkdir(parents=True)
    (real / "reference" / "lab" / "fizz.py").write_text(samples.REFERENCE, encoding="utf-8")
    (real / "lab" / "fizz.py").write_text(samples.CANDIDATE, encoding="utf-8")
    (real / "keys").mkdir()
    (real / "keys" / "other.py").write_text(samples.REFERENCE, encoding="utf-8")
    (real / "lab" / "other.py").write_text(samples.CANDIDATE, encoding="utf-8")
    linked = tmp_path / "linked"
    linked.symlink_to(real, target_is_directory=True)
    async with session(linked, settings={"references": {"lab/other.py": "keys/other.py"}}) as s:
        doc = s.open(linked / "lab" / "fizz.py")
        assert "/linked/" in doc  # the editor's spelling, not resolved
        found = await s.wait_summary(doc)
        assert found.data["referenceSource"] == "convention"
        other = await s.wait_summary(s.open(linked / "lab" / "other.py"))
        assert other.data["referenceSource"] == "settings"
