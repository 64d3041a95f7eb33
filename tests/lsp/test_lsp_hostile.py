"""Hostile references and code in the editor (issue 16, defects 1, 3 and 4), end to end with the
real server and a pytest-lsp client: a pragma naming ``/dev/zero`` or a FIFO gives a clear
problem diagnostic (no memory growth, no blocked scoring thread), scoring and shutdown keep
working, and bidi control characters in the code get a Warning where they are."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp import samples
from tests.lsp.harness import WAIT, session

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(240),
              pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"),
                                 reason="needs FIFOs and /dev/zero (POSIX)")]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problem(s, doc: str) -> types.Diagnostic | None:
    return next((d for d in s.diagnostics(doc) if d.code == "refscore.problem"), None)


async def test_a_pragma_naming_a_file_outside_the_workspace_is_not_read(tmp_path: Path) -> None:
    """Issue 45, item 6: ``# refscore: reference=/abs/secret.py`` sent the file's text back in
    diagnostics; a pragma is the document's own text, so it may only name workspace files."""
    secret = write(tmp_path / "secret" / "key.py", "TOKEN = 'hunter2-do-not-show'\n" + samples.REFERENCE)
    workspace = tmp_path / "ws"
    doc_path = write(workspace / "a.py", f"# refscore: reference={secret}\n" + samples.CANDIDATE)
    inside = write(workspace / "b.py", "# refscore: reference=ref/key.py\n" + samples.CANDIDATE)
    write(workspace / "ref" / "key.py", samples.REFERENCE)
    async with session(workspace) as s:
        doc = s.open(doc_path)
        found = await s.wait_for(lambda: problem(s, doc), what="a problem diagnostic for the outside file")
        assert "outside the workspace" in found.message and "refscore.references" in found.message
        assert all("hunter2" not in d.message for d in s.diagnostics(doc))
        other = s.open(inside)
        assert 0 < (await s.wait_summary(other)).data["codebleu"]["score"] <= 1


async def test_pragma_naming_a_device_is_a_problem_not_a_read(tmp_path: Path) -> None:
    write(tmp_path / "key.py", samples.REFERENCE)
    zero = write(tmp_path / "zero.py", "# refscore: reference=/dev/zero\n" + samples.CANDIDATE)
    good = write(tmp_path / "good.py", "# refscore: reference=key.py\n" + samples.CANDIDATE)
    async with session(tmp_path) as s:
        doc = s.open(zero)
        found = await s.wait_for(lambda: problem(s, doc), what="a problem diagnostic for /dev/zero")
        # outside the workspace: refused before any read (issue 45, item 6)
        assert "/dev/zero" in found.message and "outside the workspace" in found.message
        assert found.severity == types.DiagnosticSeverity.Warning
        other = s.open(good)
        assert 0 < (await s.wait_summary(other)).data["codebleu"]["score"] <= 1


async def test_fifo_references_never_block_scoring_or_shutdown(tmp_path: Path) -> None:
    """Two documents whose pragmas name FIFOs (nobody writes to them): both get a problem, a
    third document is still scored, and shutdown/exit end the server."""
    os.mkfifo(tmp_path / "pipe1.py")
    os.mkfifo(tmp_path / "pipe2.py")
    write(tmp_path / "key.py", samples.REFERENCE)
    docs = [write(tmp_path / f"c{i}.py", f"# refscore: reference=pipe{i}.py\n" + samples.CANDIDATE) for i in (1, 2)]
    good = write(tmp_path / "good.py", "# refscore: reference=key.py\n" + samples.CANDIDATE)
    async with session(tmp_path) as s:
        opened = [s.open(path) for path in docs]
        for doc, name in zip(opened, ("pipe1.py", "pipe2.py")):
            found = await s.wait_for(lambda doc=doc: problem(s, doc), what=f"a problem diagnostic for {name}")
            assert name in found.message and "named pipe" in found.message
        assert (await s.wait_summary(s.open(good))).data["codebleu"]["score"] > 0
        # an edit of a FIFO document is answered again (no thread is left waiting on the pipe)
        version = s.replace_all(opened[0], "# refscore: reference=pipe1.py\nx = 1\n")
        await s.wait_for(lambda: (p := problem(s, opened[0])) is not None and p.data.get("version") == version,
                         what="the edited FIFO document's problem")
        await asyncio.wait_for(s.client.shutdown_session(), WAIT)
        server = s.client._server
        assert server is not None and server.returncode is not None


async def test_bidi_controls_get_a_warning_where_they_are(tmp_path: Path) -> None:
    write(tmp_path / "key.py", samples.REFERENCE)
    text = "# refscore: reference=key.py\n" + samples.CANDIDATE + "access = 'user\u202e \u2066# admin\u2069\u2066'\n"
    cand = write(tmp_path / "mine.py", text)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        warnings = await s.wait_for(lambda: [d for d in s.diagnostics(doc) if d.code == "refscore.bidi-control"],
                                    what="bidi warnings")
        assert len(warnings) == 4
        assert all(d.severity == types.DiagnosticSeverity.Warning and d.source == "refscore" for d in warnings)
        assert "U+202E" in warnings[0].message and "Trojan Source" in warnings[0].message
        line = text.count("\n", 0, text.index("\u202e"))
        column = text.splitlines()[line].index("\u202e")
        assert warnings[0].range.start == types.Position(line=line, character=column)
        assert warnings[0].range.end == types.Position(line=line, character=column + 1)
        plain = s.open(write(tmp_path / "plain.py", "# refscore: reference=key.py\n" + samples.CANDIDATE))
        await s.wait_summary(plain)
        assert not [d for d in s.diagnostics(plain) if d.code == "refscore.bidi-control"]


#: What raw control characters in the code could do on the client's screen (clear it, ring, cut
#: a line, recolour it): never sent verbatim in text a client shows.
RAW_CONTROLS = "\x1b\x00\x07\r\x08\x7f\x9b"


def shown_raw(text: str, keep: str = "") -> list[str]:
    return [c for c in text if c in RAW_CONTROLS and c not in keep]


async def test_control_characters_are_escaped_in_messages_hovers_and_lenses(tmp_path: Path) -> None:
    # a file on disk with NUL is refused as binary: the reference has the others
    reference = samples.REFERENCE.replace("    result = 0\n", '    result = 0\n    banner = "\x1b[2J\x07\x08\x7f\x9b"\n')
    write(tmp_path / "ctl.ref.py", reference)
    candidate = samples.CANDIDATE + 'bell\x07word = "\x1b[31m\x00"\n'
    cand = write(tmp_path / "ctl.py", candidate)
    async with session(tmp_path, settings={"differences": {"maxCount": 20}}) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        messages = [d.message for d in s.diagnostics(doc)]
        messages += [r.message for d in s.diagnostics(doc) for r in d.related_information or []]
        assert any("<U+001B>" in m for m in messages), messages  # the difference names the banner, visibly
        assert not [m for m in messages if shown_raw(m)], [m for m in messages if shown_raw(m)]
        hovers = [await s.hover(doc, summary.range.start.line, 0)]
        line = candidate.splitlines().index('bell\x07word = "\x1b[31m\x00"')
        hovers += [await s.hover(doc, line, 1), await s.hover(doc, line, 12)]
        values = [h.contents.value for h in hovers if h is not None]
        assert len(values) == 3 and all("U+0007" in v or "U+001B" in v for v in values), values
        assert not [v for v in values if shown_raw(v, keep="\n")], values
        titles = [lens.command.title for lens in await s.lenses(doc) if lens.command is not None]
        assert titles and not [t for t in titles if shown_raw(t)], titles


async def test_a_lone_surrogate_is_one_clear_problem(tmp_path: Path) -> None:
    """A client may send ``"\\udc00"`` in JSON: not text, no metric can encode it. The document
    (or its reference open in the editor) gets a problem saying where it is, not the summary
    "codebleu: UnicodeEncodeError: 'utf-8' codec can't encode ..." with no score."""
    cand = samples.write_pair(tmp_path, "sur")
    async with session(tmp_path, settings={"debounceMs": 0}) as s:
        doc = s.open(cand, text=samples.CANDIDATE + 'x = "\udc00"\n')
        found = await s.wait_for(lambda: problem(s, doc), what="the problem")
        offset = (samples.CANDIDATE + 'x = "').__len__()
        assert found.message == (f"RefScore: sur.py holds a lone surrogate (U+DC00 at character {offset}), "
                                 "which is not text; it cannot be scored"), found.message
        version = s.replace_all(doc, samples.CANDIDATE)
        await s.wait_summary(doc, version=version)
        s.open(tmp_path / "sur.ref.py", text=samples.REFERENCE + "\ud800\n")  # the reference, unsaved
        found = await s.wait_for(lambda: problem(s, doc), what="the reference's problem")
        assert "sur.ref.py holds a lone surrogate (U+D800 at character" in found.message, found.message
        assert not s.client.messages, s.client.messages
