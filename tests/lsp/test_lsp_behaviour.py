"""End to end (issue 43, items 4 and 5): behaviour per function in the editor, in the sandbox,
only in a trusted workspace; a completion named differently from its reference function is
compared with the function it implements by the lenses, ``refscore/scoreText``, the code
actions and the comparison commands; the ranking puts a correct completion above a buggy one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Union

import pytest
from lsprotocol import types

from tests.lsp.harness import session, uri

pytestmark = [pytest.mark.asyncio,
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="behaviour runs in a bubblewrap sandbox")]

DATA = Path(__file__).parent.parent / "data" / "pairing"
STUDENT = "def average(xs):\n    return sum(xs) / len(xs)\n\n\n"
BUGGY = "def average_ai(values):\n    total = len(values)\n    return total / len(values)\n"
CORRECT = "def average_ai(values):\n    total = sum(values)\n    return total / len(values)\n"


def _pair(tmp_path: Path) -> Path:
    (tmp_path / "stats.ref.py").write_text((DATA / "stats.ref.py").read_text(encoding="utf-8"), encoding="utf-8")
    cand = tmp_path / "stats.py"
    cand.write_text(STUDENT + BUGGY, encoding="utf-8")
    return cand


def _read_code_actions(client) -> None:
    """lsprotocol reads any reply item with a ``command`` as a Command, a CodeAction's (an object)
    too: read it as what it is, as VS Code does."""
    converter = client.protocol._converter

    def hook(item, _):
        kind = types.CodeAction if isinstance(item.get("command"), dict) else types.Command
        return converter.structure(item, kind)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)


def _behaviour(s, doc: str) -> list[types.Diagnostic]:
    return [d for d in s.diagnostics(doc) if d.code == "refscore.behaviour"]


CLIENT_COMMANDS = {"clientCommands": ["refscore.showReferenceSideBySide", "refscore.compareWithReference"]}


async def test_behaviour_lens_and_diagnostic_on_the_function_that_differs(tmp_path: Path) -> None:
    cand = _pair(tmp_path)
    async with session(tmp_path, init_options=CLIENT_COMMANDS) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        found = await s.wait_for(lambda: _behaviour(s, doc), what="a behaviour diagnostic")
        assert len(found) == 1 and found[0].range.start.line == 4  # average_ai's first line; average agrees
        message = found[0].message
        assert message.startswith("for `average_ai(") and "this returns `" in message
        assert "the reference returns `" in message and "inputs)" in message
        assert found[0].data["referenceFunction"] == "average"
        titles = {lens.range.start.line: [] for lens in await s.lenses(doc)}
        for lens in await s.lenses(doc):
            titles[lens.range.start.line].append(lens.command.title)
        assert any("behaves like `average` on 40/40 inputs" in t for t in titles[0])
        assert any("behaves like `average` on" in t and "40/40" not in t for t in titles[4])
        lens = next(x for x in await s.lenses(doc) if x.range.start.line == 4 and x.data.get("matchedBy"))
        assert lens.data["referenceFunction"] == "average"  # not "no matching reference function"

        # the same pairing for a pasted snippet, the code actions and the commands
        answer = await s.client.protocol.send_request_async("refscore/scoreText", {"uri": doc, "text": BUGGY})
        assert answer.region.function == "average"
        assert answer.behaviour.agreed < answer.behaviour.inputs == 40 and answer.differences  # Score Selection's
        assert answer.behaviour.difference.startswith("for `average_ai(")
        _read_code_actions(s.client)
        actions = await s.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc), range=types.Range(types.Position(5, 4),
                                                                                     types.Position(5, 4)),
            context=types.CodeActionContext(diagnostics=[])))
        commands = {a.command.command: a for a in actions}
        side = commands["refscore.showReferenceSideBySide"].command.arguments[0]
        assert side["referenceFunction"] == "average" and side["referenceUri"] == uri(tmp_path / "stats.ref.py")
        assert list(commands["refscore.compareWithReference"].command.arguments) == [doc, 4]
        choices = await s.command("refscore.referenceChoices", doc, 4)
        assert choices["function"] == "average_ai" and choices["choices"][0]["function"] == "average"
        compared = await s.command("refscore.compareWith", doc, 4, "median")
        assert compared["region"]["function"] == "median" and compared["behaviour"]["agreed"] < 40
        await s.command("refscore.compareWith", doc, 4, None)  # a choice stays until withdrawn (below)

        ranked = (await s.command("refscore.rankAlternatives", doc,
                                  [{"label": "buggy", "text": BUGGY}, {"label": "correct", "text": CORRECT}]))["ranked"]
        assert [r["label"] for r in ranked] == ["correct", "buggy"]
        assert ranked[0]["behaviour"] == {"agreed": 40, "inputs": 40, "difference": None}
        assert ranked[1]["behaviour"]["difference"].startswith("for `average_ai(") and ranked[1]["differences"]
        assert all(r["region"]["function"] == "average" for r in ranked)

        # fixing the bug: the lens says 40/40 and the diagnostic is withdrawn
        version = s.replace_all(doc, STUDENT + CORRECT)
        await s.wait_summary(doc, version)
        await _wait_lens(s, doc, 4, "behaves like `average` on 40/40 inputs")
        assert not _behaviour(s, doc)


async def _wait_lens(s, doc: str, line: int, text: str) -> None:
    """Ask for the lenses after each publish or lens refresh until the one on ``line`` says ``text``."""
    seen = -1
    while True:
        events = await s.wait_for(lambda: len(s.published) + s.lens_refreshes > seen and
                                  len(s.published) + s.lens_refreshes, what=f"lens {text!r}")
        seen = events
        if any(text in lens.command.title for lens in await s.lenses(doc) if lens.range.start.line == line):
            return


async def test_untrusted_workspace_runs_nothing_until_trusted(tmp_path: Path) -> None:
    cand = _pair(tmp_path)
    async with session(tmp_path, init_options={"workspaceTrusted": False}) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        ranked = (await s.command("refscore.rankAlternatives", doc, [BUGGY, CORRECT]))["ranked"]
        assert all(r["behaviour"] is None for r in ranked)  # nothing was run
        assert not any("behaves like" in lens.command.title for lens in await s.lenses(doc))
        _read_code_actions(s.client)
        actions = await s.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc), range=types.Range(types.Position(5, 4),
                                                                                     types.Position(5, 4)),
            context=types.CodeActionContext(diagnostics=[])))
        assert not actions  # a client that runs no RefScore command of its own gets no action naming one
        s.client.protocol.notify("refscore/workspaceTrusted", {"trusted": True})
        found = await s.wait_for(lambda: _behaviour(s, doc), what="a behaviour diagnostic once trusted")
        assert found[0].range.start.line == 4
    async with session(tmp_path, settings={"behaviour": {"enabled": False}}) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        ranked = (await s.command("refscore.rankAlternatives", doc, [BUGGY, CORRECT]))["ranked"]
        assert all(r["behaviour"] is None for r in ranked)


FOLD = "def fold(rows):\n    return [sum(c) / len(c) for c in zip(*rows)]\n"


async def test_behaviour_then_the_users_choice_decide_the_pairing(tmp_path: Path) -> None:
    cand = _pair(tmp_path)
    cand.write_text(STUDENT + BUGGY + "\n\n" + FOLD, encoding="utf-8")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        # fold reads like average, and is paired with it by resemblance until it is run: it
        # behaves like column_means, so it is paired with column_means
        await _wait_lens(s, doc, 9, "behaves like `column_means` on 40/40 inputs")
        lens = next(x for x in await s.lenses(doc) if x.range.start.line == 9 and x.data.get("matchedBy"))
        assert lens.data["matchedBy"] == "behaviour" and lens.data["referenceFunction"] == "column_means"
        assert "vs column_means (behaves alike)" in lens.command.title
        # the user's choice: average_ai compared with median from now on, then back to the rule
        compared = await s.command("refscore.compareWith", doc, 4, "median")
        assert compared["region"]["function"] == "median"
        await _wait_lens(s, doc, 4, "behaves like `median` on")
        lens = next(x for x in await s.lenses(doc) if x.range.start.line == 4 and x.data.get("matchedBy"))
        assert lens.data["matchedBy"] == "chosen" and lens.data["referenceFunction"] == "median"
        assert "vs median (your choice)" in lens.command.title
        assert await s.command("refscore.compareWith", doc, 4, None) == {"function": "average_ai",
                                                                         "referenceFunction": None}
        await _wait_lens(s, doc, 4, "behaves like `average` on")
        assert (await s.command("refscore.compareWith", doc, 4, "nothing"))["error"]


MEDIAN = ("def median(xs):\n    s = sorted(xs)\n    n = len(s)\n    return s[n // 2] if n % 2 else "
          "(s[n // 2 - 1] + s[n // 2]) / 2\n")


async def test_an_inserted_block_is_compared_with_the_function_it_implements(tmp_path: Path) -> None:
    cand = _pair(tmp_path)
    text = "def column_means(rows):\n    return [sum(c) / len(c) for c in zip(*rows)]\n"
    cand.write_text(text, encoding="utf-8")
    async with session(tmp_path, settings={"insertion": {"minChars": 40}}) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        for block, name in (("\n\n" + MEDIAN, "median"), ("\n\n" + CORRECT, "average")):
            version = s.insert(doc, text.count("\n"), 0, block)  # typed (pasted) at the end
            text += block
            await s.wait_summary(doc, version)
            found = [d for d in s.diagnostics(doc) if d.code == "refscore.inserted-block"]
            assert len(found) == 1 and f"vs reference function {name})" in found[0].message
