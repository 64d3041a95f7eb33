"""The React flavours VS Code sends as ``javascriptreact`` (.jsx) and ``typescriptreact`` (.tsx)
are scored by the real server (pytest-lsp): a summary with CodeBLEU and a lens per component.
The files are the ones the VS Code end-to-end test opens (client-vscode/e2e/workspace/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from refscore.scoring.codebleu import score_codebleu
from tests.lsp.harness import session

pytestmark = pytest.mark.asyncio

WORKSPACE = Path(__file__).resolve().parents[2] / "client-vscode" / "e2e" / "workspace"


@pytest.mark.parametrize("language_id, name, language, functions", [
    ("javascriptreact", "Greeting.jsx", "javascript", {"Greeting", "Counter"}),
    ("typescriptreact", "List.tsx", "tsx", {"List"}),
])
async def test_react_documents_are_scored(tmp_path: Path, language_id: str, name: str, language: str,
                                          functions: set[str]) -> None:
    stem, ext = name.split(".")
    ref, path = tmp_path / f"{stem}.ref.{ext}", tmp_path / name
    shutil.copy(WORKSPACE / ref.name, ref)
    shutil.copy(WORKSPACE / name, path)
    async with session(tmp_path) as s:
        doc = s.open(path, language_id=language_id)
        summary = await s.wait_summary(doc, contains="CodeBLEU")
        expected = score_codebleu([ref.read_text(encoding="utf-8")], path.read_text(encoding="utf-8"),
                                  language, explain=False).score
        assert f"CodeBLEU {expected:.2f}" in summary.message
        lenses = await s.lenses(doc)
        assert {lens.data["function"] for lens in lenses} == functions
