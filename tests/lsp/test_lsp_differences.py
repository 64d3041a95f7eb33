"""End to end with the real server: the ranked differences from the reference are diagnostics
beside the weak-token ones, each linked to the reference code it departs from."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.lsp.harness import REPO, session, uri

pytestmark = pytest.mark.asyncio

SAMPLE = REPO / "client-vscode" / "e2e" / "workspace"
DIFFERENCE = "refscore.difference"


async def test_the_e2e_sample_accumulation_slip_names_the_reference_plus_equals(tmp_path: Path) -> None:
    for name in ("totals.py", "totals.ref.py"):
        shutil.copy(SAMPLE / name, tmp_path / name)
    text = (tmp_path / "totals.py").read_text(encoding="utf-8")
    slip = text.splitlines().index("        total = value")  # line 9
    async with session(tmp_path) as s:
        doc = s.open(tmp_path / "totals.py")
        await s.wait_summary(doc)
        found = [d for d in s.diagnostics(doc) if d.code == DIFFERENCE]
        assert found, "no difference diagnostics"
        on_slip = [d for d in found if d.range.start.line == slip]
        assert on_slip, [(d.range.start.line, d.message) for d in found]
        assert "'+='" in on_slip[0].message and "`" not in on_slip[0].message  # plain text: quotes, no backticks
        related = on_slip[0].related_information[0]
        assert related.location.uri == uri(tmp_path / "totals.ref.py")
        reference = (tmp_path / "totals.ref.py").read_text(encoding="utf-8").splitlines()
        assert "total += value" in reference[related.location.range.start.line]
        assert on_slip[0].data["reference"]["range"]["start"]["line"] == related.location.range.start.line


async def test_identical_copy_has_no_differences_and_max_count_zero_turns_them_off(tmp_path: Path) -> None:
    shutil.copy(SAMPLE / "totals.ref.py", tmp_path / "same.ref.py")
    shutil.copy(SAMPLE / "totals.ref.py", tmp_path / "same.py")
    shutil.copy(SAMPLE / "totals.ref.py", tmp_path / "slip.ref.py")
    shutil.copy(SAMPLE / "totals.py", tmp_path / "slip.py")
    async with session(tmp_path, settings={"differences": {"maxCount": 0}}) as s:
        same = s.open(tmp_path / "same.py")
        slip = s.open(tmp_path / "slip.py")
        await s.wait_summary(same)
        await s.wait_summary(slip)
        assert not [d for d in s.diagnostics(same) if d.code == DIFFERENCE]
        assert not [d for d in s.diagnostics(slip) if d.code == DIFFERENCE]
    async with session(tmp_path) as s:
        same = s.open(tmp_path / "same.py")
        await s.wait_summary(same)
        assert not [d for d in s.diagnostics(same) if d.code == DIFFERENCE]
