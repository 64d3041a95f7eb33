"""Start-up stays small: the ``grade`` command's parser (built for every ``refscore`` run) loads no
classroom module, no HTML report builder and no grading run; they load when a run needs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_of_the_grade_command_loads_no_classroom_module() -> None:
    code = ("import sys, refscore.cli, refscore.commands.grade; refscore.cli.build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith('refscore.classroom.') "
            "or m in ('refscore.classroom', 'refscore.grade.html_report', 'refscore.grade.run', "
            "'refscore.grade.mapping', 'torch')))")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
