"""The model being prepared shows progress (issue 43, item 8): the first CodeBERTScore after an
install converts the model for ONNX Runtime (about 30 s on a 2-core CPU, once). Here a daemon
with an empty ONNX cache folder does that conversion for real; the client sees the progress
begin with what is happening, a report of the seconds waited every few seconds, and its end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, own_daemon
from tests.lsp.harness import session

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(600),
              pytest.mark.skipif(bert_unavailable() is not None, reason=bert_unavailable() or "")]


async def test_a_first_model_preparation_reports_its_progress(tmp_path: Path) -> None:
    with own_daemon(tmp_path) as env:
        env = {**env, "REFSCORE_ONNX_DIR": str(tmp_path / "onnx")}  # nothing converted yet
        async with session(tmp_path, settings={"metrics": ["codebleu", "codebertscore"]}, daemon=True, env=env) as s:
            doc = s.open(samples.write_pair(tmp_path, "task"))
            await s.wait_scored(doc, timeout=540)
            reports = [v for values in s.client.progress_reports.values() for v in values]
    assert any((tmp_path / "onnx").glob("*.onnx")), "the daemon converted the model"
    kinds = [type(v).__name__ for v in reports]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd", kinds
    assert "loading the CodeBERTScore model (the first time after an install" in reports[0].message
    ticks = [v.message for v in reports if type(v).__name__ == "WorkDoneProgressReport"]
    assert ticks and ticks[0].endswith(": 5 s so far"), ticks  # the conversion takes far longer than one tick
