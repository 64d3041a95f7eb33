"""``refscore score --json --no-daemon`` for (reference, candidate) pairs, one run per pair."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence


def score_pairs_json(folder: Path, references: Sequence[str], candidates: Sequence[str],
                     metrics: str = "codebleu,codebertscore") -> list[dict]:
    """The CLI's JSON object for each candidate scored against its reference (the similarity
    metrics the harness modules report: their combined number is the similarity fit's)."""
    rows = []
    for index, (reference, candidate) in enumerate(zip(references, candidates)):
        (folder / f"r{index}.py").write_text(reference)
        (folder / f"c{index}.py").write_text(candidate)
        result = subprocess.run([sys.executable, "-m", "refscore", "score", str(folder / f"r{index}.py"),
                                 str(folder / f"c{index}.py"), "--json", "--no-daemon", "--metrics", metrics],
                                capture_output=True,
                                text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        assert result.returncode == 0, result.stderr
        rows.append(json.loads(result.stdout))
    return rows
