"""The VS Code client's own unit tests (client-vscode/test/*.test.ts: status text, score panel,
settings manifest, set-up plan...) and its lint, run as part of the suite.

They need Node 20 and the client's dev dependencies; a checkout without ``node_modules`` gets
them with ``npm ci`` (about 15 s from the npm registry) on the first run.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "client-vscode"
NETWORK = ("ENOTFOUND", "ETIMEDOUT", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "network")


@pytest.fixture(scope="module")
def client() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("the VS Code client's unit tests need Node 20 and npm")
    if not (CLIENT / "node_modules" / "esbuild").is_dir() or not (CLIENT / "node_modules" / "eslint").is_dir():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=CLIENT,
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            if any(word in done.stderr for word in NETWORK):
                pytest.skip(f"npm ci could not reach the registry: {done.stderr.strip().splitlines()[-1]}")
            pytest.fail(f"npm ci failed:\n{done.stderr[-3000:]}")
    return CLIENT


def test_client_unit_tests_pass(client: Path) -> None:
    done = subprocess.run(["node", "scripts/unit.mjs"], cwd=client, capture_output=True, text=True, timeout=600)
    summary = [line for line in done.stdout.splitlines() if line.startswith(("# pass", "# fail"))]
    lines = done.stdout.splitlines()
    failed = ["\n".join(lines[i:i + 20]) for i, line in enumerate(lines) if line.lstrip().startswith("not ok")]
    assert done.returncode == 0, "\n\n".join(failed)[-8000:] or done.stdout[-6000:] + done.stderr[-2000:]
    assert summary and summary[-1] == "# fail 0" and int(summary[0].split()[-1]) > 40, summary


def test_client_lint_is_clean(client: Path) -> None:
    done = subprocess.run(["node", "node_modules/eslint/bin/eslint.js", "src", "test"], cwd=client,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
