"""End to end (real server, pytest-lsp client): how a candidate's reference is found, and that
reference edits (in the editor or on disk) rescore the open candidates."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types

from refscore.scoring.codebleu import score_codebleu
from tests.lsp import samples
from tests.lsp.harness import session, uri

pytestmark = pytest.mark.asyncio


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_pragma_names_the_reference_and_context(tmp_path: Path) -> None:
    write(tmp_path / "answers" / "key.py", samples.REFERENCE)
    cand = write(tmp_path / "work" / "mine.py",
                 "# refscore: reference=../answers/key.py\n# refscore: context=FizzBuzz and a sum\n" + samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        assert summary.data["referenceSource"] == "pragma"
        assert summary.data["references"] == [uri(tmp_path / "answers" / "key.py")]
        assert summary.severity == types.DiagnosticSeverity.Information and summary.source == "refscore"
        assert summary.range.start.line == 0
        assert 0 < summary.data["codebleu"]["score"] < 1
        assert set(summary.data["codebleu"]["components"]) == {
            "ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match"}


@pytest.mark.parametrize("named", ['"my key.py"', "'my key.py'", "\"my key.py\", 'key, two.py'", " my key.py "])
async def test_pragma_paths_may_be_quoted(tmp_path: Path, named: str) -> None:
    """A path with spaces (or a comma) is named in double or single quotes; unquoted, a path is
    trimmed (its inner spaces kept) as before."""
    write(tmp_path / "answers" / "my key.py", samples.REFERENCE)
    write(tmp_path / "answers" / "key, two.py", samples.REFERENCE.replace("total", "sum_all"))
    cand = write(tmp_path / "answers" / "mine.py", f"# refscore: reference={named}\n" + samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        expected = [uri(tmp_path / "answers" / "my key.py")]
        if "two" in named:
            expected.append(uri(tmp_path / "answers" / "key, two.py"))
        assert summary.data["referenceSource"] == "pragma" and summary.data["references"] == expected


async def test_pragma_outside_a_comment_is_ignored(tmp_path: Path) -> None:
    write(tmp_path / "key.py", samples.REFERENCE)
    cand = write(tmp_path / "mine.py", 'x = "refscore: reference=key.py"\n' + samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        other = s.open(write(tmp_path / "b.py", "# refscore: reference=key.py\nprint(1)\n"))
        await s.wait_summary(other)  # the server is live; the first file still has nothing
        assert s.diagnostics(doc) == []


async def test_settings_glob_with_stem_and_several_references(tmp_path: Path) -> None:
    write(tmp_path / "solutions_a" / "task1.py", samples.REFERENCE)
    write(tmp_path / "solutions_b" / "task1_alt.py", samples.CANDIDATE)
    cand = write(tmp_path / "students" / "ann" / "task1.py", samples.CANDIDATE)
    mapping = {"students/**/*.py": ["solutions_a/${stem}.py", "${workspaceFolder}/solutions_b/${stem}_alt.py"]}
    async with session(tmp_path, settings={"references": mapping}) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        assert summary.data["referenceSource"] == "settings"
        assert summary.data["references"] == [uri(tmp_path / "solutions_a" / "task1.py"),
                                              uri(tmp_path / "solutions_b" / "task1_alt.py")]
        # identical to the second reference: a perfect n-gram match
        assert summary.data["codebleu"]["components"]["ngram_match"] == pytest.approx(1.0)


@pytest.mark.parametrize("layout", ["beside", "reference", "solutions"])
async def test_conventions(tmp_path: Path, layout: str) -> None:
    target = {"beside": tmp_path / "lab" / "sum.ref.py", "reference": tmp_path / "reference" / "lab" / "sum.py",
              "solutions": tmp_path / "solutions" / "lab" / "sum.py"}[layout]
    write(target, samples.REFERENCE)
    cand = write(tmp_path / "lab" / "sum.py", samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        assert summary.data["referenceSource"] == "convention"
        assert summary.data["references"] == [uri(target)]
        ref_doc = s.open(target)  # a reference is not scored against itself
        await s.wait_summary(doc)
        await asyncio.sleep(0.5)
        assert s.diagnostics(ref_doc) == []


async def test_no_reference_no_noise(tmp_path: Path) -> None:
    cand = write(tmp_path / "alone.py", samples.CANDIDATE)
    write(tmp_path / "other.ref.py", samples.REFERENCE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        witness = s.open(write(tmp_path / "other.py", samples.CANDIDATE))
        await s.wait_summary(witness)
        await asyncio.sleep(0.3)
        assert s.diagnostics(doc) == []
        assert await s.hover(doc, 0, 4) is None
        assert await s.lenses(doc) == []
        assert not [m for m in s.client.messages if "alone" in m.message]


async def test_set_reference_command_wins_and_clears(tmp_path: Path) -> None:
    write(tmp_path / "task.ref.py", samples.UNRELATED)
    chosen = write(tmp_path / "keys" / "chosen.py", samples.REFERENCE)
    cand = write(tmp_path / "task.py", samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        first = await s.wait_summary(doc)
        assert first.data["referenceSource"] == "convention"
        answer = await s.command("refscore.setReference", doc, "keys/chosen.py")
        assert list(getattr(answer, "references", None) or answer["references"]) == [uri(chosen)]
        chosen_summary = await s.wait_for(
            lambda: (d := s.summary(doc)) and d.data["referenceSource"] == "command" and d, what="command source")
        assert chosen_summary.data["references"] == [uri(chosen)]
        assert chosen_summary.data["codebleu"]["score"] > first.data["codebleu"]["score"]
        await s.command("refscore.setReference", doc, None)
        await s.wait_for(lambda: (d := s.summary(doc)) and d.data["referenceSource"] == "convention", what="cleared")


async def test_reference_edited_in_the_editor_rescores_the_candidate(tmp_path: Path) -> None:
    ref = write(tmp_path / "task.ref.py", samples.REFERENCE)
    cand = write(tmp_path / "task.py", samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        before = await s.wait_summary(doc)
        ref_doc = s.open(ref)
        s.replace_all(ref_doc, samples.CANDIDATE)  # unsaved: the editor's text counts
        after = await s.wait_for(
            lambda: (d := s.summary(doc)) and d.data["codebleu"]["score"] > 0.99 and d, what="rescored candidate")
        assert after.data["codebleu"]["score"] > before.data["codebleu"]["score"]
        assert after.data["version"] == 1  # the candidate itself did not change


async def test_reference_changed_on_disk_rescores(tmp_path: Path) -> None:
    ref = write(tmp_path / "task.ref.py", samples.REFERENCE)
    cand = write(tmp_path / "task.py", samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        before = await s.wait_summary(doc)
        ref.write_text(samples.CANDIDATE, encoding="utf-8")
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(ref), type=types.FileChangeType.Changed)]))
        after = await s.wait_for(
            lambda: (d := s.summary(doc)) and d.data["codebleu"]["score"] > 0.99 and d, what="rescored from disk")
        assert after.data["codebleu"]["score"] > before.data["codebleu"]["score"]


async def test_a_reference_rewritten_with_its_size_and_mtime_kept_is_read_again(tmp_path: Path) -> None:
    """Extracting a zip or a Nix/reproducible-build tree gives files a fixed mtime, and a new
    version of a reference can have the old one's length: the watcher's Changed event (and the
    file's changed ctime) must still make the server read it again, not score the cached text."""
    ref = write(tmp_path / "task.ref.py", samples.REFERENCE)
    cand = write(tmp_path / "task.py", samples.CANDIDATE)
    os.utime(ref, ns=(10**18, 10**18))
    same_size = samples.CANDIDATE[:len(samples.REFERENCE)].ljust(len(samples.REFERENCE), "\n")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        before = await s.wait_summary(doc)
        ref.write_text(same_size, encoding="utf-8")
        os.utime(ref, ns=(10**18, 10**18))
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(ref), type=types.FileChangeType.Changed)]))
        expected = score_codebleu([same_size], samples.CANDIDATE, "python").score
        assert expected != pytest.approx(before.data["codebleu"]["score"])
        await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebleu"]["score"] == pytest.approx(expected),
                         what="rescored from the rewritten reference")


async def test_watched_file_events_for_a_symbolic_link_loop_are_no_error(tmp_path: Path) -> None:
    """A project may hold a symbolic link loop (``ln -s a b; ln -s b a``); the watcher reports it
    created or changed. Resolving it raised RuntimeError in the handler: "RefScore: internal
    error: Symlink loop from ..." shown to the user. Now it names no one's reference, quietly."""
    cand = write(tmp_path / "task.py", samples.CANDIDATE)
    write(tmp_path / "task.ref.py", samples.REFERENCE)
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc, version=1)
        before = len(s.published)
        for kind in (types.FileChangeType.Created, types.FileChangeType.Changed, types.FileChangeType.Deleted):
            s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
                types.FileEvent(uri=uri(tmp_path / "a" / "x.py"), type=kind), types.FileEvent(uri=uri(tmp_path / "a"), type=kind)]))
        await s.wait_for(lambda: len(s.published) > before or any(  # rescored: the same inputs keep their result
            "task.py v1 unchanged since it was scored" in m.message for m in s.client.log_messages),
            what="rescored after the created link")
        await asyncio.sleep(0.5)
        assert not [m.message for m in s.client.messages if "error" in m.message.lower()], s.client.messages
        assert s.summary(doc) is not None


async def test_a_reference_inside_a_symbolic_link_loop_is_one_problem_diagnostic(tmp_path: Path) -> None:
    """A pragma (or refscore.setReference) naming a path through a link loop: the reference
    cannot be read, which is a Warning diagnostic like any unreadable reference. Before, the
    resolve raised: a pop-up "RefScore could not score task.py: RuntimeError: Symlink loop" and
    no diagnostics, and the command failed with an internal error."""
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    cand = write(tmp_path / "task.py", "# refscore: reference=a/ref.py\n" + samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        problem = await s.wait_for(lambda: s.diagnostics(doc), what="problem diagnostic")
        assert [d.code for d in problem] == ["refscore.problem"], problem
        assert "a/ref.py" in problem[0].message and "symbolic links" in problem[0].message
        answer = await s.command("refscore.setReference", doc, "b/other.py")
        assert answer["references"] == [uri(tmp_path / "b" / "other.py")]
        await s.wait_for(lambda: (d := s.diagnostics(doc)) and "b/other.py" in d[0].message, what="set reference")
        assert not s.client.messages, s.client.messages


async def test_a_reference_under_an_unknown_users_home_is_a_missing_reference(tmp_path: Path) -> None:
    """``~nosuchuser/ref.py`` in a pragma, a settings template or refscore.setReference: there is
    no such home, so no such file (a Warning diagnostic). Before, ``expanduser`` raised: a pop-up
    "RefScore could not score task.py: RuntimeError: Could not determine home directory."."""
    cand = write(tmp_path / "task.py", "# refscore: reference=~nosuchuser9/ref.py\n" + samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        problem = await s.wait_for(lambda: s.diagnostics(doc), what="problem diagnostic")
        assert [d.code for d in problem] == ["refscore.problem"] and "~nosuchuser9" in problem[0].message, problem
        answer = await s.command("refscore.setReference", doc, "~nosuchuser9/other.py")
        assert answer["references"] and answer["references"][0].endswith("/other.py")
        await s.wait_for(lambda: (d := s.diagnostics(doc)) and "other.py" in d[0].message, what="set reference")
        assert not s.client.messages, s.client.messages


async def test_an_empty_reference_is_one_problem_not_a_score_of_zero(tmp_path: Path) -> None:
    """A reference that holds nothing yet (a teacher's placeholder ``solutions/hw1.py``) gives
    one Warning saying so, as ``refscore score`` notes it, not "CodeBLEU 0.00" as if the work
    were wrong; once it has content, the candidate is scored."""
    ref = write(tmp_path / "task.ref.py", " \n\n")
    cand = write(tmp_path / "task.py", samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        problem = await s.wait_for(lambda: s.diagnostics(doc), what="problem diagnostic")
        assert [(d.code, d.severity) for d in problem] == [("refscore.problem", types.DiagnosticSeverity.Warning)]
        assert "task.ref.py is empty" in problem[0].message, problem[0].message
        ref.write_text(samples.REFERENCE, encoding="utf-8")
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(ref), type=types.FileChangeType.Changed)]))
        summary = await s.wait_summary(doc)
        assert "CodeBLEU" in summary.message


async def test_unreadable_or_unsupported(tmp_path: Path) -> None:
    (tmp_path / "bin.ref.py").write_bytes(b"\x00\x01binary\x00")
    cand = write(tmp_path / "bin.py", samples.CANDIDATE)
    write(tmp_path / "notes.ref.txt", "hello")
    notes = write(tmp_path / "notes.txt", "hello there")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        problem = await s.wait_for(lambda: s.diagnostics(doc), what="problem diagnostic")
        assert len(problem) == 1 and problem[0].code == "refscore.problem"
        assert "binary" in problem[0].message
        notes_doc = s.open(notes, language_id="plaintext")
        unsupported = await s.wait_for(lambda: s.diagnostics(notes_doc), what="unsupported language")
        assert len(unsupported) == 1 and "not supported" in unsupported[0].message
        assert "python" in unsupported[0].message


async def test_unsaved_buffer_uses_pragma_only(tmp_path: Path) -> None:
    write(tmp_path / "key.py", samples.REFERENCE)
    write(tmp_path / "Untitled-1.ref", samples.REFERENCE)  # conventions do not apply to unsaved buffers
    async with session(tmp_path) as s:
        plain = "untitled:Untitled-1"
        with_pragma = "untitled:Untitled-2"
        for doc, text in ((plain, samples.CANDIDATE), (with_pragma, "# refscore: reference=key.py\n" + samples.CANDIDATE)):
            s.versions[doc] = 1
            s.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
                uri=doc, language_id="python", version=1, text=text)))
        summary = await s.wait_summary(with_pragma)
        assert summary.data["references"] == [uri(tmp_path / "key.py")]
        await asyncio.sleep(0.3)
        assert s.diagnostics(plain) == []


async def test_workspace_folders_added_and_removed_rescore_open_documents(tmp_path: Path) -> None:
    """Multi-root: a folder added later brings its reference/ convention to the documents
    already open in it; removing it takes it away (no edit needed either way)."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    write(second / "reference" / "lab" / "task.py", samples.REFERENCE)
    cand = write(second / "lab" / "task.py", samples.CANDIDATE)
    async with session(first) as s:
        doc = s.open(cand)
        witness = s.open(samples.write_pair(first, "w"))
        await s.wait_summary(witness)
        await asyncio.sleep(0.3)
        assert s.summary(doc) is None  # not in a workspace folder: no reference/ to look in
        folder = types.WorkspaceFolder(uri=uri(second), name="second")
        s.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])))
        found = await s.wait_summary(doc)
        assert found.data["referenceSource"] == "convention" and found.data["version"] == 1
        s.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])))
        await s.wait_for(lambda: s.summary(doc) is None, what="diagnostics cleared when the folder went")


async def test_set_reference_on_an_unsaved_buffer_starts_from_the_workspace_folder(tmp_path: Path) -> None:
    """An ``untitled:`` buffer has no folder: a relative path given to ``refscore.setReference``
    starts at the first workspace folder, as its pragma paths do (not at the server's working
    directory, which depends on how the editor started it)."""
    key = write(tmp_path / "keys" / "key.py", samples.REFERENCE)
    async with session(tmp_path) as s:
        doc = "untitled:Untitled-3"
        s.versions[doc] = 1
        s.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=doc, language_id="python", version=1, text=samples.CANDIDATE)))
        answer = await s.command("refscore.setReference", doc, "keys/key.py")
        assert answer["references"] == [uri(key)]
        summary = await s.wait_summary(doc)
        assert summary.data["referenceSource"] == "command" and summary.data["references"] == [uri(key)]


async def test_a_reference_written_from_the_editor_is_found_without_a_file_watcher(tmp_path: Path) -> None:
    """Neovim on Linux has no file watcher: a candidate with no reference yet gets its score
    when the reference is written from the editor (didOpen then didSave of ``task.ref.py``),
    not only at its own next edit."""
    cand = write(tmp_path / "task.py", samples.CANDIDATE)
    async with session(tmp_path, capabilities="neovim") as s:
        doc = s.open(cand)
        witness = s.open(samples.write_pair(tmp_path, "w"))
        await s.wait_summary(witness)
        await asyncio.sleep(0.3)
        assert s.summary(doc) is None
        ref = tmp_path / "task.ref.py"
        ref_doc = s.open(ref, text=samples.REFERENCE)  # a new buffer: not on disk yet
        ref.write_text(samples.REFERENCE, encoding="utf-8")  # :write
        s.client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=ref_doc)))
        found = await s.wait_summary(doc, version=1)
        assert found.data["referenceSource"] == "convention"


async def test_files_changed_on_disk_rescore_only_the_documents_they_concern(tmp_path: Path) -> None:
    """A program writing a log file in the workspace sends a change event every few ms: the open
    candidates are not rescored (and their CodeBERTScore not restarted) for files that are not
    their references; a change to a reference, or a file created (maybe a new ``.ref`` file),
    still rescores."""
    ref = write(tmp_path / "task.ref.py", samples.REFERENCE)
    cand = write(tmp_path / "task.py", samples.CANDIDATE)
    log = write(tmp_path / "run.log", "")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        published = len([p for p in s.published if p[0] == doc])
        for line in range(20):
            log.write_text(f"line {line}\n", encoding="utf-8")
            s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
                types.FileEvent(uri=uri(log), type=types.FileChangeType.Changed)]))
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.6)
        assert len([p for p in s.published if p[0] == doc]) == published
        ref.write_text(samples.CANDIDATE, encoding="utf-8")
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(ref), type=types.FileChangeType.Changed)]))
        await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebleu"]["score"] > 0.99, what="rescored")
        other = write(tmp_path / "other.py", samples.CANDIDATE)
        other_doc = s.open(other)
        await asyncio.sleep(0.3)
        assert s.summary(other_doc) is None
        write(tmp_path / "other.ref.py", samples.REFERENCE)
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(tmp_path / "other.ref.py"), type=types.FileChangeType.Created)]))
        await s.wait_summary(other_doc)


async def test_a_comment_marker_inside_a_string_is_not_a_pragma(tmp_path: Path) -> None:
    """docs/editor.md: the pragma's text in a string is ignored, also when the string holds the
    comment marker (``"# refscore: reference=..."``): before, the ``#`` inside the quotes was
    taken for a comment, and the document got "reference (pragma) .../key.py\\": no such file".
    A real comment after such a string still counts."""
    write(tmp_path / "key.py", samples.REFERENCE)
    write(tmp_path / "key.js", "function add(a, b) { return a + b; }\n")
    in_string = write(tmp_path / "mine.py", 's = "# refscore: reference=key.py"\n' + samples.CANDIDATE)
    after = write(tmp_path / "web.js", 'const u = "http://x#y"; // refscore: reference=key.js\n'
                                       "function add(a, b) { return b + a; }\n")
    async with session(tmp_path) as s:
        doc = s.open(in_string)
        js = s.open(after, language_id="javascript")
        summary = await s.wait_summary(js)
        assert summary.data["referenceSource"] == "pragma" and summary.data["references"][0].endswith("key.js")
        await asyncio.sleep(0.5)
        assert s.diagnostics(doc) == [], [d.message for d in s.diagnostics(doc)]


@pytest.mark.parametrize("pragma", ["# refscore: reference=", "# refscore: reference = ,", '# refscore: reference=""'])
async def test_a_pragma_that_names_no_reference_says_so(tmp_path: Path, pragma: str) -> None:
    """`refscore: reference=` with no path was passed over without a word: the file got the
    settings' or the convention's reference, or (as here) no diagnostics at all."""
    cand = write(tmp_path / "mine.py", f"{pragma}\n" + samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        problem = await s.wait_for(lambda: s.diagnostics(doc), what="problem diagnostic")
        assert [d.code for d in problem] == ["refscore.problem"], problem
        assert "names no reference" in problem[0].message and problem[0].range.start.line == 0
