"""Open documents: the time until every one of N open documents has its summary diagnostic,
through the real ``refscore serve`` (CodeBLEU only) and pytest-lsp's client (issue 45, item 8).

Usage: .venv/bin/python benchmarks/bench_lsp_documents.py [--sizes 100,200,400] [--rounds 1]

Each size gets a fresh server and a fresh folder of N small Python candidates, each with its
reference beside it (``NAME.ref.py``). All N are opened at once (one ``didOpen`` each, as an editor
restoring a session does); the time runs from the first ``didOpen`` to the arrival of the last
document's first summary. Prints seconds per size, per document, and the ratio per doubling (linear:
about 2x per doubling of N; the issue's target is within 1.5x of that).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.lsp.harness import session  # noqa: E402

CANDIDATE = '''def total_{i}(values):
    """Sum the numbers."""
    result = 0
    for value in values:
        result = result + value
    return result
'''


def make_folder(folder: Path, count: int) -> list[Path]:
    """``count`` candidates with their references (one renamed variable each)."""
    paths = []
    for i in range(count):
        text = CANDIDATE.format(i=i)
        (folder / f"c{i}.ref.py").write_text(text.replace("result", "acc"), encoding="utf-8")
        path = folder / f"c{i}.py"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


async def measure(count: int) -> float:
    """Seconds from opening ``count`` documents to the last one's first summary."""
    with tempfile.TemporaryDirectory(prefix="refscore-docs-") as name:
        folder = Path(name)
        paths = make_folder(folder, count)
        async with session(folder, settings={"metrics": ["codebleu"], "debounceMs": 100}) as lsp:
            started = time.perf_counter()
            docs = [lsp.open(path) for path in paths]
            waiting = set(docs)

            def all_arrived() -> bool:  # the documents still waited for only: the poll stays cheap
                waiting.difference_update([doc for doc in waiting if (doc, 1) in lsp.arrivals])
                return not waiting

            await lsp.wait_for(all_arrived, timeout=600, what=f"a summary on each of {count} documents")
            return max(lsp.arrivals[(doc, 1)] for doc in docs) - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,200,400")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f}")
    for _ in range(max(1, args.rounds)):
        times = []
        for count in sizes:
            seconds = asyncio.run(measure(count))
            times.append(seconds)
            ratio = f"  x{seconds / times[-2]:.2f} for x{count / sizes[len(times) - 2]:.0f} documents" \
                if len(times) > 1 else ""
            print(f"{count:5d} documents: {seconds:6.2f} s, {seconds / count * 1000:5.1f} ms each{ratio}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
