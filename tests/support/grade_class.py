"""The small class that `refscore grade` output tests run on, in memory and block by block."""

from __future__ import annotations

import json
from pathlib import Path

REF = "def add(a, b):\n    total = a + b\n    return total\n"
CAND = "def add(x, y):\n    s = x + y\n    return s\n"


def write_class(root: Path, rows: int = 3) -> None:
    """``root``/ref.py (REF), subs/a.py and subs/b.py (CAND), and runs.jsonl: ``rows`` JSONL rows
    ``c0``, ``c1``, ... of CAND against REF."""
    (root / "ref.py").write_text(REF)
    (root / "subs").mkdir()
    for name in ("a.py", "b.py"):
        (root / "subs" / name).write_text(CAND)
    lines = [json.dumps({"id": f"c{i}", "candidate": CAND, "reference": REF, "language": "python"})
             for i in range(rows)]
    (root / "runs.jsonl").write_text("\n".join(lines) + "\n")
