"""The same behaviour numbers from ``refscore score`` (table and JSON, in-process and through the
daemon) and ``refscore.score``; and without a sandbox, one line and nothing executed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import refscore
from tests.service.test_daemon import place  # noqa: F401 - the fixture

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")

REFERENCE = '''def clamp(x, lo, hi):
    """clamp(5, 0, 3) ==> 3
    clamp(-1, 0, 3) ==> 0"""
    return max(lo, min(x, hi))
'''
CANDIDATE = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x >= hi:\n        return hi - 1\n    return x\n"


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "refscore", *args], capture_output=True, text=True, timeout=300,
                          env=env)


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "ref.py").write_text(REFERENCE)
    (tmp_path / "cand.py").write_text(CANDIDATE)
    return tmp_path / "ref.py", tmp_path / "cand.py"


def test_score_table_json_and_api_agree(files) -> None:
    reference, candidate = files
    table = cli("score", str(reference), str(candidate), "--metrics", "codebleu,behaviour", "--no-daemon")
    assert table.returncode == 0, table.stderr
    line = next(li for li in table.stdout.splitlines() if li.strip().startswith("Behaviour"))
    assert "agrees with the reference on" in line
    assert "differs on clamp(5, 0, 3): expected 3, got 2" in table.stdout
    data = json.loads(cli("score", str(reference), str(candidate), "--metrics", "codebleu,behaviour",
                          "--no-daemon", "--json").stdout)
    assert data["scores"]["behaviour"] == data["behaviour"]["agreement"]
    assert f"{data['behaviour']['agreed']}/{data['behaviour']['inputs']}" in line
    api, = refscore.score([CANDIDATE], [REFERENCE], "python", metrics=("codebleu", "behaviour"))
    assert api.behaviour == data["behaviour"]["agreement"] and 0 < api.behaviour < 1
    assert dict(api.signatures)["behaviour"] == data["behaviour"]["signature"]


def test_the_daemon_gives_the_same_behaviour(place, files) -> None:  # noqa: F811
    reference, candidate = files
    local = json.loads(cli("score", str(reference), str(candidate), "--metrics", "behaviour", "--no-daemon",
                           "--json").stdout)
    remote, = refscore.score([CANDIDATE], [REFERENCE], "python", metrics=("behaviour",), scorer="daemon")
    assert remote.errors == ()
    assert remote.report.behaviour.to_dict() == local["behaviour"]


def test_an_inputs_file_reaches_the_stage(files, tmp_path: Path) -> None:
    reference, candidate = files
    (tmp_path / "inputs.txt").write_text("clamp(100, 0, 50)\n")
    data = json.loads(cli("score", str(reference), str(candidate), "--metrics", "behaviour", "--no-daemon",
                          "--json", "--inputs", str(tmp_path / "inputs.txt")).stdout)
    assert any(d["input"] == "clamp(100, 0, 50)" for d in data["behaviour"]["disagreements"])


def test_without_a_sandbox_behaviour_is_not_run_and_nothing_executes(files, tmp_path: Path) -> None:
    reference, _ = files
    marker = tmp_path / "ran"
    candidate = tmp_path / "evil.py"
    candidate.write_text(f"open({str(marker)!r}, 'w').write('x')\ndef clamp(x, lo, hi):\n    return x\n")
    reference.write_text(REFERENCE + f"open({str(marker)!r}, 'w').write('x')\n")
    env = {**os.environ, "PATH": str(tmp_path / "no-bwrap-here")}
    result = cli("score", str(reference), str(candidate), "--metrics", "codebleu,behaviour", "--no-daemon",
                 env=env)
    assert result.returncode == 0, result.stderr
    assert "Behaviour                    n/a   not run: no sandbox: bubblewrap (bwrap) is not installed" \
        in result.stdout
    assert not marker.exists()
    only = cli("score", str(reference), str(candidate), "--metrics", "behaviour", "--no-daemon", "--json", env=env)
    assert only.returncode == 3 and "nothing was scored" in only.stderr and "no sandbox" in only.stderr
    assert "Traceback" not in only.stderr and not marker.exists()
