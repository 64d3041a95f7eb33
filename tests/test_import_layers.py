"""The layering of server/refscore/ (pyproject.toml's import-linter contracts) holds, and the check
fails when a contract is broken."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "refscore"
_RUN = ("import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))")


def _lint(config: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
    return subprocess.run([sys.executable, "-c", _RUN, str(config)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_contracts_are_kept() -> None:
    result = _lint(ROOT / "pyproject.toml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_broken_contract_fails_the_check(tmp_path: Path) -> None:
    config = tmp_path / ".importlinter"
    config.write_text("[importlinter]\nroot_package = refscore\n\n"
                      "[importlinter:contract:upside-down]\nname = languages above scoring\ntype = layers\n"
                      "layers =\n    refscore.languages\n    refscore.scoring\n")
    result = _lint(config)
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout + result.stderr


def test_every_folder_is_a_regular_package() -> None:
    folders = [d for d in PACKAGE.rglob("*") if d.is_dir() and d.name != "__pycache__"]
    assert folders and [str(d.relative_to(PACKAGE)) for d in folders if not (d / "__init__.py").is_file()] == []


def test_every_subpackage_and_top_level_module_has_a_layer() -> None:
    """A new subpackage left out of the layers contract would escape every check."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    named = {name.strip().split(".")[1] for layer in layers for name in layer.replace(":", "|").split("|")}
    present = {p.stem if p.suffix == ".py" else p.name for p in PACKAGE.iterdir()
               if (p.suffix == ".py" and p.name != "__init__.py") or (p.is_dir() and p.name != "__pycache__")}
    assert sorted(present - named) == []


def test_no_runtime_import_cycle_anywhere() -> None:
    """grade <-> classroom, lsp's phases/commands/ranking -> server, results -> tokens and
    eval <-> eval_paper were cycles the layers could not see; none may come back."""
    result = _lint(ROOT / "tests" / "contracts" / "no_cycles.toml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_a_runtime_cycle_fails_the_check(tmp_path: Path) -> None:
    package = tmp_path / "cyclic"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("from . import a\n")
    config = tmp_path / "cycles.toml"
    config.write_text((ROOT / "tests" / "contracts" / "no_cycles.toml").read_text().replace("refscore", "cyclic"))
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", _RUN, str(config)], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout + result.stderr
