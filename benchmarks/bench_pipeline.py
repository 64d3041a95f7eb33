"""Time the shared pipeline (``LocalScorer.score_many``) on HumanEval-Python pairs in this tree.

Run it from two checkouts to compare commits (same numbers, same CPU time):

    PYTHONPATH=server HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_pipeline.py codebleu 300
    PYTHONPATH=server HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_pipeline.py codebertscore 60

Prints one JSON line: wall and CPU seconds, and the sum of the scores (CodeBLEU, or CodeBERTScore
F1) so two trees can be checked for the same numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import bert_fixtures  # noqa: E402  (offline env, data paths)
from refscore.scoring.report import ScoreRequest  # noqa: E402
from refscore.scoring.scorer import LocalScorer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("metric", choices=("codebleu", "codebertscore"))
    parser.add_argument("pairs", type=int, nargs="?", default=300)
    args = parser.parse_args()
    rows = bert_fixtures.humaneval_pairs(args.pairs)
    requests = [ScoreRequest(r["hyp"], (r["ref"],), "python", metrics=(args.metric,)) for r in rows]
    scorer = LocalScorer()
    if args.metric == "codebertscore":
        scorer.score_many(requests[:2])  # load the model outside the timing
        from refscore.embed.models import loaded_scorers

        for loaded in loaded_scorers():
            loaded.encoder.cache.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    reports = scorer.score_many(requests)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if args.metric == "codebleu":
        total = sum(r.codebleu.score for r in reports if r.codebleu is not None)
    else:
        total = sum(r.codebertscore.f1 for r in reports if r.codebertscore is not None)
    print(json.dumps({"metric": args.metric, "pairs": len(requests), "wall_s": round(wall, 4),
                      "cpu_s": round(cpu, 4), "sum": total}))


if __name__ == "__main__":
    main()
