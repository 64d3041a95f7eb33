"""What a user without an optional extra sees when asking for what it brings: one line naming the
extra to install, never "internal error". The missing packages are made unimportable before the
real command starts (``sys.modules[name] = None``), as in a fresh ``pip install refscore``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _refscore_without(packages: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    hide = "".join(f"sys.modules[{name!r}] = None; " for name in packages)
    code = f"import sys; {hide}from refscore.cli import main; sys.exit(main({args!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=cwd, stdin=subprocess.DEVNULL, check=False)


def test_serve_without_the_lsp_extra_names_it(tmp_path: Path) -> None:
    done = _refscore_without(["pygls", "lsprotocol"], ["serve"], tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "internal error" not in done.stderr, done.stderr
    assert "pip install 'refscore[lsp]'" in done.stderr, done.stderr
    assert done.stdout == ""  # stdout is the LSP channel: nothing a client would misread
