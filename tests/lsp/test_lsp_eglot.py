"""Emacs eglot, a second generic LSP client, drives `refscore serve` (issue 25): the summary
diagnostic reaches eglot and flymake, and a hover comes back in plain text (eglot without
markdown-mode asks for ``plaintext``). Skipped, saying why, when Emacs with eglot is not installed
(`apt-get install emacs-nox elpa-eglot`; `.ci/run` installs it), except in CI (``CI=true``),
where it fails instead, like the other real-client tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.harness import server_command, server_env

SCRIPT = Path(__file__).parent.parent / "lsp" / "eglot_refscore.el"


def find_eglot() -> tuple[str | None, str]:
    """An Emacs that can load eglot, or None and why not."""
    emacs = shutil.which("emacs")
    if emacs is None:
        return None, "Emacs not found (apt-get install emacs-nox elpa-eglot)"
    try:
        probe = subprocess.run([emacs, "--batch", "--no-init-file", "--eval", "(progn (require 'eglot) (princ \"ok\"))"],
                               capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"Emacs does not start: {error}"
    return (emacs, "") if probe.stdout.strip() == "ok" else (None, "Emacs has no eglot (apt-get install elpa-eglot)")


EMACS, REASON = find_eglot()
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.mark.skipif(EMACS is None and not IN_CI, reason=REASON)
def test_eglot_shows_the_summary_and_a_plain_text_hover(tmp_path: Path) -> None:
    assert EMACS is not None, f"CI=true and the Emacs eglot client cannot run: {REASON}"
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    out = tmp_path / "out.json"
    home = tmp_path / "home"
    home.mkdir()
    env = {**server_env(), "REFSCORE_CMD": json.dumps(server_command()), "REFSCORE_ROOT": str(ws),
           "REFSCORE_FILE": str(cand), "REFSCORE_OUT": str(out), "REFSCORE_WAIT_S": "90", "HOME": str(home)}
    run = subprocess.run([EMACS, "--batch", "--no-init-file", "-l", str(SCRIPT)], env=env, capture_output=True, text=True,
                         timeout=150, stdin=subprocess.DEVNULL)
    assert out.exists(), f"Emacs wrote nothing: rc={run.returncode}\n{run.stdout}\n{run.stderr}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert not result["errors"], (result, run.stderr)
    summary = result["summary"]
    assert summary and summary["line"] == 0 and summary["severity"] == 3  # Information
    assert "CodeBLEU" in summary["message"]
    assert any("CodeBLEU" in text for text in result["flymake"]), result["flymake"]
    # the summary underlines no code but the first line's last character (eglot widens a zero-width
    # range to one character: ``def fizzbuzz(n):`` gets its ``:``), never the whole line
    assert result["summary_underlined"] == ":", result["summary_underlined"]
    assert result["hover_kind"] == "plaintext"
    shown = result["hover_shown"]
    assert "CodeBLEU" in shown
    for raw in ("**", "](", "\\[", "`"):  # markdown that a plain-text client would show as it is
        assert raw not in shown, shown
