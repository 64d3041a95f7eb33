"""The server says what it can score (issue 21, a thin client): in its initialize result
(``capabilities.experimental.refscore``) and in ``refscore/status`` notifications, so a client
never has to probe the interpreter or rewrite the user's settings.

The interpreter without CodeBERTScore's runtime is this one with ``torch`` and ``transformers``
made unimportable before the real server starts (``sys.modules[name] = None``), as in a fresh
``python3`` that has neither.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lsp import samples
from tests.lsp.harness import session

BOTH = {"metrics": ["codebleu", "codebertscore"]}
WITHOUT_TORCH = [sys.executable, "-c", ("import sys; sys.modules['torch'] = sys.modules['transformers'] = None; "
                                        "from refscore.cli import main; sys.exit(main(['serve']))")]


def _advertised(s: Any) -> dict[str, Any]:
    experimental = s.initialize_result.capabilities.experimental
    assert isinstance(experimental, dict) and "refscore" in experimental, experimental
    return experimental["refscore"]


@pytest.mark.asyncio
async def test_a_server_without_torch_says_codebertscore_needs_setting_up(tmp_path: Path) -> None:
    (tmp_path / "h.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    cand = tmp_path / "h.py"
    cand.write_text(samples.CANDIDATE, encoding="utf-8")
    async with session(tmp_path, settings=BOTH, command=WITHOUT_TORCH) as s:
        advertised = _advertised(s)
        status = await s.wait_for(lambda: s.statuses and s.statuses[-1], what="a refscore/status notification")
        doc = s.open(cand)
        summary = await s.wait_summary(doc, contains="CodeBERTScore not set up")
        hover = await s.hover(doc, 0, 3)
    for told in (advertised, status):
        assert told["codebleu"] == "ready" and told["codebertscore"] == "setup", told
        assert "torch and transformers not installed" in told["reason"] and "refscore setup" in told["reason"]
        assert told["setupCommand"][-2:] == ["refscore", "setup"]
    assert "CodeBLEU" in summary.message and summary.data["codebertscoreState"] == "setup"
    assert "codebertscore" not in summary.data
    assert hover is not None and "refscore setup" in hover.contents.value


@pytest.mark.asyncio
async def test_a_server_with_the_runtime_is_ready_and_follows_the_metrics_setting(tmp_path: Path) -> None:
    async with session(tmp_path, settings=BOTH, daemon=True) as s:
        advertised = _advertised(s)
        ready = await s.wait_for(lambda: s.statuses and s.statuses[-1], what="a refscore/status notification")
        s.client.set_configuration({"metrics": ["codebleu"]}, section="refscore")
        from lsprotocol import types

        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        off = await s.wait_for(lambda: len(s.statuses) > 1 and s.statuses[-1], what="a second refscore/status")
    assert advertised["codebertscore"] == "ready" and advertised["reason"] is None
    assert ready["codebertscore"] == "ready"
    assert off["codebertscore"] == "off" and off["reason"] == "not in refscore.metrics"
