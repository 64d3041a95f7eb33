"""Similarity among students at course scale: MinHash/LSH candidates vs every pair (brute force).

Usage: .venv/bin/python benchmarks/bench_similarity.py [--students 1000] [--language python]
       [--threshold 0.8] [--seed 0] [--no-brute-force] [--json FILE]

Generates one problem's class (tests/similarity_class.py: each student writes the problem's
functions each in one of five ways, with their own names and order, plus the planted copies; at
this size students may share any number of ways, so some pairs are the same structure by
chance), analyses every submission (real tree-sitter), then flags pairs at or above the
threshold twice: ``compare(method="lsh")`` and ``compare(method="all")``. Prints the time of each
step, the pairs scored exactly by each and their ratio, and the LSH's recall of the pairs brute
force flags (the pairs it misses, with their scores).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "server"), str(REPO)]

from refscore.analysis.similarity_tokens import structural_tokens  # noqa: E402
from refscore.metrics.similarity import Submission, compare  # noqa: E402
from tests.similarity_class import make_class  # noqa: E402


def _timed(work):
    """(result, wall seconds, CPU seconds of this process): on a shared machine the CPU time is the
    steadier number."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--language", choices=("python", "java"), default="python")
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-brute-force", action="store_true", help="skip the all-pairs baseline")
    parser.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    args = parser.parse_args(argv)

    _, imported, imported_cpu = _timed(lambda: __import__("datasketch"))  # once per run, not per compare
    klass, generated, _ = _timed(lambda: make_class(args.language, args.students, args.seed, share=99))
    submissions, analysed, analysed_cpu = _timed(
        lambda: [Submission(s.id, structural_tokens(s.text, args.language)) for s in klass])
    tokens = sum(s.tokens.token_count for s in submissions)

    lsh, lsh_s, lsh_cpu = _timed(lambda: compare(submissions, args.threshold, method="lsh"))
    numbers = {"students": len(klass), "language": args.language, "threshold": args.threshold,
               "tokens_per_submission": round(tokens / len(klass), 1), "generate_s": round(generated, 2),
               "import_datasketch_s": round(imported, 2), "import_datasketch_cpu_s": round(imported_cpu, 2),
               "analyse_s": round(analysed, 2), "analyse_cpu_s": round(analysed_cpu, 2), "lsh_s": round(lsh_s, 2),
               "lsh_cpu_s": round(lsh_cpu, 2), "lsh_pairs_compared": lsh.compared,
               "possible_pairs": lsh.possible, "lsh_flagged": len(lsh.pairs),
               "python": platform.python_version(), "machine": platform.machine()}
    print(f"{len(klass)} {args.language} submissions ({numbers['tokens_per_submission']} tokens each): "
          f"generated {generated:.2f} s, analysed {analysed:.2f} s wall / {analysed_cpu:.2f} s CPU "
          f"(importing datasketch: {imported:.2f} s wall / {imported_cpu:.2f} s CPU)")
    print(f"MinHash/LSH: {lsh_s:.2f} s wall / {lsh_cpu:.2f} s CPU, {lsh.compared:,} of {lsh.possible:,} pairs "
          f"scored exactly ({lsh.compared / max(1, lsh.possible):.4f}), {len(lsh.pairs)} flagged")
    if not args.no_brute_force:
        brute, brute_s, brute_cpu = _timed(lambda: compare(submissions, args.threshold, method="all"))
        found = {(p.first, p.second) for p in lsh.pairs}
        missed = [p for p in brute.pairs if (p.first, p.second) not in found]
        recall = (len(brute.pairs) - len(missed)) / len(brute.pairs) if brute.pairs else 1.0
        numbers.update(brute_s=round(brute_s, 2), brute_cpu_s=round(brute_cpu, 2), brute_pairs_compared=brute.compared,
                       brute_flagged=len(brute.pairs), pairs_ratio=round(lsh.compared / max(1, brute.compared), 5),
                       time_ratio=round(lsh_s / brute_s, 4) if brute_s else None,
                       cpu_ratio=round(lsh_cpu / brute_cpu, 4) if brute_cpu else None, recall=round(recall, 4),
                       missed_scores=sorted(p.score for p in missed))
        print(f"all pairs:   {brute_s:.2f} s wall / {brute_cpu:.2f} s CPU, {brute.compared:,} pairs scored exactly, "
              f"{len(brute.pairs)} flagged")
        print(f"LSH / all pairs: pairs {numbers['pairs_ratio']:.5f}, wall {numbers['time_ratio']:.4f}, "
              f"CPU {numbers['cpu_ratio']:.4f}; "
              f"recall of flagged pairs {recall:.4f}" + (f" (missed scores {numbers['missed_scores']})" if missed else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(numbers, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
