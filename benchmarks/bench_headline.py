"""What the combined RefScore number costs on top of scoring the same HumanEval pairs with both
metrics.

    .venv/bin/python benchmarks/bench_headline.py [--pairs 300]

The pairs are scored once from cold without the headline, then the headline is added to the same
reports (chrF++ by sacrebleu, a parse-error count by tree-sitter, the fitted combination): the
ratio is what the headline adds to scoring on a CPU.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from refscore.scoring import headline  # noqa: E402
from refscore.scoring.report import ScoreRequest  # noqa: E402
from refscore.scoring.scorer import LocalScorer  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "humaneval" / "python.jsonl.gz"


def pairs(count: int) -> list[ScoreRequest]:
    out = []
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            out.append(ScoreRequest(row["hyp"], (row["ref"],), "python"))
            if len(out) == count:
                break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300)
    args = parser.parse_args()
    everything = pairs(32 + args.pairs)
    scorer = LocalScorer()
    shipped = headline.headline_model()
    if shipped is None:
        sys.exit("the shipped combination has no headline: nothing to measure")
    headline.headline_model = lambda: None  # type: ignore[assignment]
    scorer.score_many(everything[:32])  # load the model
    requests = everything[32:]
    start = time.process_time()
    reports = [r for i in range(0, len(requests), 32) for r in scorer.score_many(requests[i:i + 32])]
    scoring = time.process_time() - start
    assert all(r.refscore is None for r in reports)
    headline.headline_model = lambda: shipped  # type: ignore[assignment]
    start = time.process_time()
    combined = [headline.refscore_for(request, report) for request, report in zip(requests, reports)]
    extra = time.process_time() - start
    assert all(c is not None for c in combined)
    n = len(requests)
    print(f"{n} HumanEval-Python pairs, CodeBLEU + CodeBERTScore from cold, CPU seconds:")
    print(f"  scoring without the headline  {scoring:6.2f} s   {n / scoring:6.1f} pairs/s")
    print(f"  the headline on top           {extra:6.2f} s   {1000 * extra / n:.1f} ms per pair (chrF++, parse errors, the fit)")
    print(f"  ratio with / without          {(scoring + extra) / scoring:.3f}x")


if __name__ == "__main__":
    main()
