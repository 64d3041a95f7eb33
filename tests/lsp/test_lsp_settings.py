"""End to end: the ``refscore`` settings section is pulled with workspace/configuration, mirrored
on the server and re-read on didChangeConfiguration (no restart); bad values get one message and
the default; CodeBERTScore without a daemon is announced once while CodeBLEU goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from refscore.scoring.codebleu import score_codebleu
from tests.lsp import samples
from tests.lsp.harness import session
from tests.support.timing import hang_guard

pytestmark = pytest.mark.asyncio


def workspace(tmp_path: Path) -> Path:
    cand = samples.write_pair(tmp_path, "s")
    return cand


async def test_weights_change_applies_without_restart(tmp_path: Path) -> None:
    cand = workspace(tmp_path)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        default = await s.wait_summary(doc)
        assert default.data["codebleu"]["score"] == pytest.approx(
            score_codebleu([samples.REFERENCE], samples.CANDIDATE, "python").score)
        s.client.set_configuration({"metrics": ["codebleu"], "codebleu": {"weights": [0, 0, 1, 0]}},
                                   section="refscore")
        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        changed = await s.wait_for(lambda: (d := s.summary(doc)) and "w:0,0,1,0" in d.data["codebleu"]["signature"]
                                   and d, what="rescored with new weights")
        assert changed.data["codebleu"]["score"] == pytest.approx(changed.data["codebleu"]["components"]["syntax_match"])
        assert changed.data["codebleu"]["score"] != pytest.approx(default.data["codebleu"]["score"])


async def test_bad_values_get_one_message_and_the_default(tmp_path: Path) -> None:
    cand = workspace(tmp_path)
    bad = {"codebleu": {"weights": [1, 2]}, "debounceMs": "soon", "weakTokens": {"threshold": 7}}
    async with session(tmp_path, settings=bad) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        assert "w:0.25,0.25,0.25,0.25" in summary.data["codebleu"]["signature"]
        await s.wait_for(lambda: len(s.client.messages) >= 3, what="three messages")
        shown = " | ".join(m.message for m in s.client.messages)
        for name in ("refscore.codebleu.weights", "refscore.debounceMs", "refscore.weakTokens.threshold"):
            assert name in shown
        assert len(s.client.messages) == 3


async def test_codebertscore_without_daemon_is_announced_once(tmp_path: Path) -> None:
    cand = workspace(tmp_path)
    other = tmp_path / "s2.py"
    other.write_text(samples.CANDIDATE + "\n# another\n", encoding="utf-8")
    (tmp_path / "s2.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    async with session(tmp_path, settings={"metrics": ["codebleu", "codebertscore"]}) as s:  # --no-daemon
        doc = s.open(cand)
        doc2 = s.open(other)
        summary = await s.wait_summary(doc, contains="CodeBERTScore unavailable")
        await s.wait_summary(doc2, contains="CodeBERTScore unavailable")
        assert "CodeBLEU" in summary.message and summary.data["codebertscoreState"] == "unavailable"
        await asyncio.sleep(0.2)
        unavailable = [m for m in s.client.messages if "CodeBERTScore is" in m.message]
        assert len(unavailable) == 1, s.client.messages
        hover = await s.hover(doc, 0, 1)
        assert hover is not None and "CodeBERTScore unavailable" in hover.contents.value


async def test_metrics_off_and_inlay_hints_off_by_default(tmp_path: Path) -> None:
    cand = workspace(tmp_path)
    async with session(tmp_path, settings={"metrics": []}) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        assert "no metric enabled" in summary.message and "codebleu" not in summary.data
        hints = await asyncio.wait_for(s.client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=doc),
            range=types.Range(types.Position(0, 0), types.Position(30, 0)))), 30)
        assert not hints


async def test_values_of_the_wrong_kind_get_one_message_each_and_the_default(tmp_path: Path) -> None:
    """What a hand-edited settings.json or a Lua table can hold: infinities, objects where a
    string is expected, booleans for numbers. Each is one message naming the setting, never an
    internal error, and the default is used (the document is still scored)."""
    cand = workspace(tmp_path)
    bad = {"debounceMs": float("inf"), "weakTokens": {"maxCount": float("inf"), "threshold": True},
           "insertion": {"minChars": float("-inf")}, "model": {"name": "x"}, "context": ["a task"],
           "device": 5, "layer": -1, "metrics": 5}
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        s.client.set_configuration(bad, section="refscore")
        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        names = ("debounceMs", "weakTokens.maxCount", "weakTokens.threshold", "insertion.minChars", "model",
                 "context", "device", "layer", "metrics")
        await s.wait_for(lambda: len(s.client.messages) >= len(names), what="one message per bad value")
        await asyncio.sleep(0.3)
        shown = [m.message for m in s.client.messages]
        assert not [m for m in shown if "internal error" in m or "Error in server" in m], shown
        for name in names:
            assert len([m for m in shown if m.startswith(f"refscore.{name}:")]) == 1, (name, shown)
        assert all("\n" not in m for m in shown)
        summary = await s.wait_summary(doc)  # the defaults: both metrics, so CodeBERTScore is asked for
        assert "CodeBLEU" in summary.message


async def test_a_group_given_as_a_plain_value_gets_one_message_naming_it(tmp_path: Path) -> None:
    """``inlayHints = true`` in a Lua table (for ``inlayHints.enabled``), ``weakTokens = 0.3``
    (for its threshold), ``codebleu = [...]`` (for its weights): each is one message naming the
    group and what it holds, not silence while the setting does nothing."""
    cand = workspace(tmp_path)
    bad = {"inlayHints": True, "weakTokens": 0.3, "codebleu": [0.1, 0.2, 0.3, 0.4], "differences": 2,
           "insertion": "80", "metrics": ["codebleu"]}
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        s.client.set_configuration(bad, section="refscore")
        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await s.wait_for(lambda: len(s.client.messages) >= len(bad) - 1, timeout=hang_guard(), what="one message per group")
        await asyncio.sleep(0.3)
        shown = [m.message for m in s.client.messages]
        for name, holds in (("inlayHints", "enabled"), ("weakTokens", "threshold"), ("codebleu", "weights"),
                            ("differences", "maxCount"), ("insertion", "minChars")):
            found = [m for m in shown if m.startswith(f"refscore.{name}:")]
            assert len(found) == 1 and holds in found[0], (name, shown)
        assert len(shown) == len(bad) - 1, shown
        summary = await s.wait_summary(doc)
        assert "CodeBLEU" in summary.message


async def test_turning_inlay_hints_off_asks_the_client_to_drop_them(tmp_path: Path) -> None:
    """The client keeps the hints it has until it is asked to refresh them: turning the setting
    off must ask (the server only asked while hints were on, so the old ones stayed)."""
    cand = workspace(tmp_path)
    async with session(tmp_path, settings={"inlayHints": {"enabled": True}}, capabilities="neovim") as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        await s.wait_for(lambda: s.hint_refreshes > 0, what="a refresh while hints are on")
        s.client.set_configuration({"metrics": ["codebleu"], "inlayHints": {"enabled": False}}, section="refscore")
        before = s.hint_refreshes
        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await s.wait_for(lambda: s.hint_refreshes > before, what="a refresh after turning hints off")
        hints = await asyncio.wait_for(s.client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=doc),
            range=types.Range(types.Position(0, 0), types.Position(30, 0)))), 30)
        assert not hints


async def test_a_reference_mapping_to_a_non_path_is_one_setting_message(tmp_path: Path) -> None:
    """``refscore.references`` whose glob maps to a number (or a list holding one) is a bad
    setting like any other: one message naming ``refscore.references`` and the glob, the
    document still scored by the conventions; before, every scoring failed with "RefScore could
    not score s.py: TypeError: 'int' object is not iterable" and the old summary stayed."""
    cand = workspace(tmp_path)
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        for bad in ({"*.py": 5}, {"*.py": ["key.py", 3]}, {"*.py": {"path": "key.py"}}):
            before = len(s.client.messages)
            s.client.set_configuration({"metrics": ["codebleu"], "references": bad}, section="refscore")
            s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
            await s.wait_for(lambda before=before: len(s.client.messages) > before, what=f"a message for {bad}")
            await asyncio.sleep(0.3)
            shown = [m.message for m in s.client.messages[before:]]
            assert len(shown) == 1 and shown[0].startswith("refscore.references:"), shown
            assert "'*.py'" in shown[0] and "could not score" not in shown[0], shown
            version = s.insert(doc, 0, 0, "#\n")
            summary = await s.wait_summary(doc, version=version)
            assert summary.data["referenceSource"] == "convention"


async def test_the_default_a_bad_value_falls_back_to_is_written_as_json(tmp_path: Path) -> None:
    """Settings are JSON (settings.json, a Lua table): the message names the default used as
    JSON, ``null`` or ``["codebleu", "codebertscore"]``, not as Python (``using None``, which
    reads as "no layer", or ``using ('codebleu', 'codebertscore')``)."""
    cand = workspace(tmp_path)
    bad = {"layer": -1, "metrics": ["nope"], "codebleu": {"weights": [1, 2]}}
    async with session(tmp_path, settings=bad) as s:
        await s.wait_summary(s.open(cand))
        await s.wait_for(lambda: len([m for m in s.client.messages if m.message.startswith("refscore.")]) >= 3,
                         what="three messages")
        shown = {m.message.split(":")[0]: m.message for m in s.client.messages if m.message.startswith("refscore.")}
        assert shown["refscore.layer"].endswith("; using the default, null"), shown
        assert shown["refscore.metrics"].endswith('; using the default, ["codebleu", "codebertscore"]'), shown
        assert shown["refscore.codebleu.weights"].endswith("; using the default, [0.25, 0.25, 0.25, 0.25]"), shown
