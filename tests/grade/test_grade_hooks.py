"""The classroom sits above the grader: ``refscore.grade`` never imports ``refscore.classroom``
(an import-linter contract, which fails when an import comes back), the grader runs whole without
it, and a plug-in is called at the named points of ``grade.hooks``, in order."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from refscore.cli import build_parser
from refscore.commands.grade import job_from_args
from refscore.grade.hooks import NO_CLASSES, PLAIN
from refscore.grade.items import ItemSet
from refscore.grade.job import GradeJob
from refscore.grade.run import execute

ROOT = Path(__file__).resolve().parents[2]
_LINT = ("import sys; from importlinter.cli import lint_imports; "
         "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))")
REFERENCE = "def add(a, b):\n    return a + b\n"


def _job(*argv: str) -> GradeJob:
    """The job ``refscore grade ARGV`` runs (CodeBLEU only: no model)."""
    return job_from_args(build_parser().parse_args(["grade", *argv, "--metrics", "codebleu", "-q"]))


def _contract() -> str:
    """The pyproject contract that keeps the grader below the classroom, as an .importlinter file."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    found = [c for c in contracts if c["type"] == "forbidden" and c["source_modules"] == ["refscore.grade"]
             and c["forbidden_modules"] == ["refscore.classroom"]]
    assert len(found) == 1, "pyproject.toml: no contract keeps refscore.grade from importing refscore.classroom"
    return ("[importlinter]\nroot_package = refscore\n\n[importlinter:contract:grader-below-classroom]\n"
            f"name = {found[0]['name']}\ntype = forbidden\nsource_modules =\n    refscore.grade\n"
            "forbidden_modules =\n    refscore.classroom\n")


def test_the_contract_fails_when_the_grader_imports_the_classroom(tmp_path: Path) -> None:
    pytest.importorskip("importlinter")
    config = tmp_path / ".importlinter"
    config.write_text(_contract())
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "server" / "refscore", tree / "refscore", ignore=shutil.ignore_patterns("__pycache__"))

    def lint() -> subprocess.CompletedProcess:
        env = dict(os.environ, PYTHONPATH=str(tree))
        return subprocess.run([sys.executable, "-c", _LINT, str(config)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    kept = lint()
    assert kept.returncode == 0 and "1 kept, 0 broken" in kept.stdout, kept.stdout + kept.stderr
    steps = tree / "refscore" / "grade" / "steps.py"
    steps.write_text(steps.read_text(encoding="utf-8") + "\nfrom ..classroom.hooks import classroom_hooks  # noqa\n",
                     encoding="utf-8")
    broken = lint()
    assert broken.returncode != 0 and "BROKEN" in broken.stdout, broken.stdout + broken.stderr


def test_the_plain_grader_grades_without_loading_the_classroom(tmp_path: Path) -> None:
    """A job without a plug-in (``dataset``'s kind): graded whole, no classroom module loaded."""
    (tmp_path / "ref.py").write_text(REFERENCE)
    (tmp_path / "a.py").write_text("def add(x, y):\n    return x + y\n")
    code = ("import sys, dataclasses; from refscore.cli import build_parser; "
            "from refscore.commands.grade import job_from_args; from refscore.grade.hooks import PLAIN; "
            "from refscore.grade.run import execute; "
            f"d = {str(tmp_path)!r}; "
            "args = build_parser().parse_args(['grade', '-r', d + '/ref.py', d + '/a.py', '--metrics', 'codebleu', "
            "'--json', d + '/out/grade.json']); "
            "job = dataclasses.replace(job_from_args(args), hooks=PLAIN); "
            "[sys.modules.pop(m) for m in list(sys.modules) if m.startswith('refscore.classroom')]; "
            "o = execute(job); print(o.stats.rows, sorted(m for m in sys.modules if m.startswith('refscore.classroom')))")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"), HF_HUB_OFFLINE="1")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "[]"]


def test_without_the_classroom_a_zip_is_not_read_as_a_class(tmp_path: Path) -> None:
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("alice/add.py", "def add(x, y):\n    return x + y\n")
    assert NO_CLASSES.split([str(archive), "b.py"], None) == ([], [str(archive), "b.py"])
    from refscore.classroom.hooks import Classes

    assert Classes().split([str(archive), "b.py"], None) == ([archive], ["b.py"])


@dataclass
class Recorder:
    """A plug-in (``grade.hooks.GradeHooks``) that records when the grader calls it, adds a page
    section and writes one file of its own at the end."""

    extra: Path
    calls: list[str] = field(default_factory=list)
    classes: Any = NO_CLASSES
    needs_details: bool = False
    writes: bool = True

    def outputs(self) -> dict[str, Path]:
        self.calls.append("outputs")
        return {"recorded": self.extra}

    def folders(self) -> list[Path]:
        self.calls.append("folders")
        return []

    def start(self, items: ItemSet) -> "Recorder":
        self.calls.append(f"start:{len(items.items)}")
        return self

    def page(self, info: dict[str, Any], html: Path | None):
        self.calls.append("page")
        return lambda rows, details=(): f'<section class="recorded">{len(rows)} rows</section>'

    def end(self, done: Any, held_back: bool, elapsed: float, say: bool, store: Any, plan: Any):
        self.calls.append(f"end:{len(done.rows)}:{held_back}")
        self.extra.write_text(json.dumps([r["id"] for r in done.rows]), encoding="utf-8")
        return None, False


def test_a_plug_in_is_called_at_the_named_points_in_order(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REFERENCE)
    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text("def add(x, y):\n    return x + y\n")
    out = tmp_path / "out"
    plug = Recorder(tmp_path / "recorded.json")
    job = _job("-r", str(tmp_path / "ref.py"), str(tmp_path / "a.py"), str(tmp_path / "b.py"),
               "--html", str(out / "grade.html"), "--no-cache")
    outcome = execute(replace(job, hooks=plug))
    assert plug.calls == ["outputs", "folders", "start:2", "page", "end:2:False"]
    assert outcome.stats.rows == 2
    assert '<section class="recorded">2 rows</section>' in (out / "grade.html").read_text(encoding="utf-8")
    assert sorted(Path(i).name for i in json.loads(plug.extra.read_text(encoding="utf-8"))) == ["a.py", "b.py"]


def test_the_command_plugs_the_classroom_in_and_nothing_else_does() -> None:
    job = _job("--jsonl", "x.jsonl")
    assert type(job.hooks).__module__ == "refscore.classroom.hooks"
    assert GradeJob(job.inputs, job.settings).hooks is PLAIN
