"""CodeBLEU speed: RefScore against the codebleu 0.7.0 package, same pairs, same run.

Usage: .venv/bin/python benchmarks/bench_codebleu.py [--pairs 1000] [--data ../shared/data/humaneval]

Reports (1) corpus throughput on HumanEval-Python pairs, one corpus call per pair, as a ratio
against the package (cold: our analysis caches cleared before the run; warm: references already
analysed, as in an editor or a grading run); (2) median time to rescore an edited 300-line
candidate against a cached reference; (3) time for 16 nested loops (package: exponential).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def load_pairs(data: Path, count: int) -> list[tuple[str, str]]:
    with gzip.open(data / "python.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [(r["ref"], r["hyp"]) for r in rows[:count]]


def clear_caches() -> None:
    from refscore.analysis.document import analyse_structure, analyse_tokens

    analyse_structure.cache_clear()
    analyse_tokens.cache_clear()


def time_corpus(calc, pairs: list[tuple[str, str]]) -> float:
    start = time.perf_counter()
    for ref, hyp in pairs:
        calc([ref], [hyp], "python")
    return time.perf_counter() - start


def nested_loops(depth: int) -> str:
    lines = ["def f(n):", "    total = 0"]
    for level in range(depth):
        lines.append("    " * (level + 1) + f"for i{level} in range(n):")
    lines.append("    " * (depth + 1) + "total += i0")
    lines.append("    return total")
    return "\n".join(lines)


def edited_file_median(runs: int = 30) -> float:
    from refscore.scoring.codebleu import score_codebleu

    block = (REPO / "examples/python/candidate_close.py").read_text()
    base = "\n".join(block.replace("running_max", f"running_max_{i}") for i in range(34))  # ~300 lines
    reference = base.replace("current", "best")
    score_codebleu([reference], base, "python")  # reference analysed once
    times = []
    for run in range(runs):
        edited = base.replace("out = []", f"out = [{run}]", 1)
        start = time.perf_counter()
        score_codebleu([reference], edited, "python")
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(base.splitlines())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "humaneval")
    parser.add_argument("--nested-package", type=int, default=12,
                        help="nesting depth to time the package at (16 takes ~15 s)")
    args = parser.parse_args()

    import codebleu
    from refscore.compat import calc_codebleu

    pairs = load_pairs(args.data, args.pairs)
    calc_codebleu(*([pairs[0][0]], [pairs[0][1]]), "python")  # import/grammar warm-up for both
    codebleu.calc_codebleu([pairs[0][0]], [pairs[0][1]], "python")

    package = time_corpus(codebleu.calc_codebleu, pairs)
    clear_caches()
    ours_cold = time_corpus(calc_codebleu, pairs)
    ours_warm = time_corpus(calc_codebleu, pairs)
    print(f"corpus, {len(pairs)} HumanEval-Python pairs, one calc_codebleu call each")
    print(f"  codebleu 0.7.0      {package:8.2f} s  {len(pairs) / package:8.1f} pairs/s")
    print(f"  refscore (cold)     {ours_cold:8.2f} s  {len(pairs) / ours_cold:8.1f} pairs/s  ratio {package / ours_cold:5.1f}x")
    print(f"  refscore (warm)     {ours_warm:8.2f} s  {len(pairs) / ours_warm:8.1f} pairs/s  ratio {package / ours_warm:5.1f}x")

    median, lines = edited_file_median()
    print(f"rescoring an edited {lines}-line candidate against a cached reference: median {median * 1000:.1f} ms")

    from refscore.scoring.codebleu import score_codebleu

    for depth in (args.nested_package, 16):
        code = nested_loops(depth)
        clear_caches()
        start = time.perf_counter()
        score_codebleu([code], code, "python")
        ours = time.perf_counter() - start
        line = f"{depth} nested loops: refscore {ours * 1000:.1f} ms"
        if depth == args.nested_package:
            start = time.perf_counter()
            codebleu.calc_codebleu([code], [code], "python")
            theirs = time.perf_counter() - start
            line += f", codebleu 0.7.0 {theirs * 1000:.0f} ms (ratio {theirs / ours:.0f}x)"
        print(line)


if __name__ == "__main__":
    main()
