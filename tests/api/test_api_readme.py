"""The README's five-line `refscore.score` / `score_corpus` example, run as printed: its per-sample
numbers are `refscore score --json`'s and its corpus CodeBLEU is the codebleu package's
(real tree-sitter, the embedded model, the installed `codebleu` 0.7.0 as the oracle:
tests/support/codebleu_oracle.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support import codebleu_oracle
from tests.support.score_json import score_pairs_json

os.environ.setdefault("HF_HUB_OFFLINE", "1")
README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    """The first python block of the README's "Python API" section."""
    section = README.read_text(encoding="utf-8").split("## Python API", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's Python API section has no python block"
    return match.group(1)


def test_the_example_is_five_lines_calling_score_and_score_corpus() -> None:
    lines = [line for line in readme_example().splitlines() if line.strip()]
    assert len(lines) == 5
    assert any("refscore.score(" in line for line in lines) and any("refscore.score_corpus(" in line for line in lines)


def test_the_example_gives_the_cli_numbers(tmp_path: Path) -> None:
    namespace: dict = {}
    exec(compile(readme_example(), str(README), "exec"), namespace)  # noqa: S102 - the README's own code
    rows, corpus, refs, cands = (namespace[name] for name in ("rows", "corpus", "refs", "cands"))
    cli = score_pairs_json(tmp_path, refs, cands, metrics="codebleu,codebertscore,behaviour")  # the API's defaults
    assert len(rows) == len(cli) == 2
    for row, data in zip(rows, cli):
        for key, value in data["codebleu_native"].items():  # the native rule under its own names
            assert getattr(row, key) == pytest.approx(value, abs=1e-12), key
        for key in ("precision", "recall", "f1", "f3"):
            assert getattr(row, f"codebertscore_{key}") == pytest.approx(data["codebertscore"][key], abs=1e-6), key
        assert row.refscore == pytest.approx(data["refscore"]["score"], abs=1e-6)
    expected = codebleu_oracle.calc_codebleu([[r] for r in refs], cands, "python")
    for key, value in expected.items():
        assert getattr(corpus, key) == pytest.approx(value, abs=1e-12), key
    assert corpus.codebertscore_f1 == pytest.approx(sum(r.codebertscore_f1 for r in rows) / 2, abs=1e-9)
