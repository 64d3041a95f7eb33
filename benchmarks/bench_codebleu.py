"""CodeBLEU speed: RefScore against the codebleu 0.7.0 package, same pairs, same run.

Usage: .venv/bin/python benchmarks/bench_codebleu.py [--pairs 1000] [--data ../shared/data/humaneval]

Reports (1) corpus throughput on HumanEval-Python pairs as a ratio against the package, both as
one calc_codebleu call per pair and as one call for the whole corpus (cold: our analysis caches
cleared before each run; warm: references already analysed, as in an editor or a grading run).
The machines are shared and noisy, so the two sides alternate for ``--rounds`` rounds and each
keeps its best time; (2) median time to rescore an edited 300-line candidate against a cached
reference; (3) time for 16 nested loops (package: exponential). ``--stages`` instead prints
where the cold analysis of one text goes. ``--count-run cold|warm|none`` makes one corpus call
(after the warm-up) and nothing else, for an instruction count that a shared machine's load does
not disturb: ``valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python
benchmarks/bench_codebleu.py --count-run cold``, minus the same with ``none`` (start-up only),
is the cold call; ``warm`` makes a cold call then a warm one, so ``warm`` minus ``cold`` is the warm call.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


#: --language -> the HumanEval file it reads
FILES = {"python": "python", "java": "java", "javascript": "js", "cpp": "cpp"}
LANGUAGE = "python"  # set from --language in main()
#: the clock of the corpus timings (--clock): wall time, or this process's CPU time, which other
#: jobs on a shared machine disturb far less
CLOCK = time.perf_counter


def load_pairs(data: Path, count: int, language: str = "python") -> list[tuple[str, str]]:
    with gzip.open(data / f"{FILES[language]}.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [(r["ref"], r["hyp"]) for r in rows[:count]]


def clear_caches() -> None:
    from refscore.analysis.comments import strip_compat
    from refscore.analysis.document import analyse_structure, analyse_tokens

    analyse_structure.cache_clear()
    analyse_tokens.cache_clear()
    strip_compat.cache_clear()


def time_corpus(calc, pairs: list[tuple[str, str]]) -> float:
    """One call per pair."""
    start = CLOCK()
    for ref, hyp in pairs:
        calc([ref], [hyp], LANGUAGE)
    return CLOCK() - start


def time_one_call(calc, pairs: list[tuple[str, str]]) -> float:
    """One call for the whole corpus."""
    start = CLOCK()
    calc([r for r, _ in pairs], [h for _, h in pairs], LANGUAGE)
    return CLOCK() - start


def best_of(rounds: int, runs: dict) -> dict[str, float]:
    """Alternate the runs (name -> callable giving seconds) for ``rounds`` rounds; best time each."""
    best = {name: float("inf") for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            best[name] = min(best[name], run())
    return best


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


def stage_profile(pairs: list[tuple[str, str]], language: str = "python") -> None:
    """Where the cold analysis of one text goes, stage by stage, over the corpus's distinct texts."""
    from refscore import languages
    from refscore.analysis.comments import strip_compat
    from refscore.analysis.document import analyse_tokens, count
    from refscore.parsing.flat import flatten
    from refscore.dataflow import RULE_SETS, _assemble, dropped_types, normalized_keys
    from refscore.dataflow._tree import build
    from refscore.dataflow._walker import Walker

    texts = list(dict.fromkeys(t.strip() for pair in pairs for t in pair))
    spec = languages.get(language)
    rules, drop = RULE_SETS[spec.dataflow_rules("compat")], dropped_types(language, "compat")
    spent: dict[str, float] = {}

    def timed(stage, fn, *args):
        start = time.perf_counter()
        result = fn(*args)
        spent[stage] = spent.get(stage, 0.0) + time.perf_counter() - start
        return result

    def walk(walker):
        try:
            walker.walk(0, {})
        except Exception:  # noqa: BLE001 - as the extractor: no dataflow
            pass

    clear_caches()
    for text in texts:
        stripped = timed("strip comments (compat)", strip_compat, text, language)
        tree = timed("tree-sitter parse", spec.parse, stripped.encode())
        flat = timed("flat tree + subtree keys", flatten, tree.root_node, language, drop, "compat")
        timed("subtree multiset", count, flat.compat_keys or [])
        data = timed("dataflow: token table", build, flat, stripped)
        walker = timed("dataflow: walker set-up", Walker, rules, data, 10**9)
        timed("dataflow: walk", walk, walker)
        raw = timed("dataflow: merge edges", _assemble, walker.out, data.spans)
        timed("dataflow: normalise", normalized_keys, raw)
        timed("tokens + n-gram counts", analyse_tokens, text)
    print(f"cold analysis of one text, {len(texts)} distinct texts (microseconds per text)")
    for stage, seconds in spent.items():
        print(f"  {stage:26s} {seconds * 1e6 / len(texts):7.1f}")
    print(f"  {'total':26s} {sum(spent.values()) * 1e6 / len(texts):7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--language", choices=sorted(FILES), default="python",
                        help="HumanEval language (the edited-file and nested-loop timings are Python's)")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "humaneval")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds, best time kept")
    parser.add_argument("--nested-package", type=int, default=12,
                        help="nesting depth to time the package at (16 takes ~15 s)")
    parser.add_argument("--stages", action="store_true", help="only print where a text's analysis time goes")
    parser.add_argument("--count-run", choices=("cold", "warm", "none"),
                        help="one corpus call after the warm-up, nothing else (for callgrind)")
    parser.add_argument("--report", type=Path, metavar="JSON",
                        help="also write the figures as a report (docs/reports/codebleu-speed-<language>.json)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time the corpus runs by wall time (default) or this process's CPU time")
    args = parser.parse_args()
    global LANGUAGE, CLOCK
    LANGUAGE = args.language
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    logging.disable(logging.WARNING)  # the package warns once per corpus without reference dataflow
    if args.stages:
        stage_profile(load_pairs(args.data, args.pairs, LANGUAGE), LANGUAGE)
        return

    import codebleu
    from refscore.compat import calc_codebleu

    pairs = load_pairs(args.data, args.pairs, LANGUAGE)
    calc_codebleu(*([pairs[0][0]], [pairs[0][1]]), LANGUAGE)  # import/grammar warm-up for both
    if args.count_run:
        if args.count_run == "warm":
            time_one_call(calc_codebleu, pairs)  # fills the caches; the counted call reuses them
        if args.count_run != "none":
            if args.count_run == "cold":
                clear_caches()
            time_one_call(calc_codebleu, pairs)
        return
    codebleu.calc_codebleu([pairs[0][0]], [pairs[0][1]], LANGUAGE)

    def cold(timer):
        def run() -> float:
            clear_caches()
            return timer(calc_codebleu, pairs)
        return run

    best = best_of(args.rounds, {
        "package": lambda: time_corpus(codebleu.calc_codebleu, pairs),
        "cold": cold(time_corpus),
        "package_one": lambda: time_one_call(codebleu.calc_codebleu, pairs),
        "cold_one": cold(time_one_call),
    })
    best["warm"] = min(time_corpus(calc_codebleu, pairs) for _ in range(args.rounds))
    n = len(pairs)
    print(f"corpus, {n} HumanEval-{LANGUAGE} pairs, best of {args.rounds} alternating rounds ({args.clock} time)")
    for label, ours, theirs in (("one call per pair", "cold", "package"), ("", "warm", "package"),
                                ("one call for the corpus", "cold_one", "package_one")):
        if label:
            print(f"  {label}: codebleu 0.7.0 {best[theirs]:6.2f} s  {n / best[theirs]:8.1f} pairs/s")
        print(f"    refscore ({ours.split('_')[0]:4s})      {best[ours]:6.2f} s  {n / best[ours]:8.1f} pairs/s"
              f"  ratio {best[theirs] / best[ours]:5.1f}x")

    values = {"language": LANGUAGE, "pairs": n, "rounds": args.rounds, "clock": args.clock,
              "load_average": os.getloadavg()[0], "seconds": best,
              "ratio": {"cold": best["package"] / best["cold"], "warm": best["package"] / best["warm"],
                        "one_call": best["package_one"] / best["cold_one"]}}
    if LANGUAGE == "python":
        median, lines = edited_file_median()
        values["edited_file_ms"], values["edited_file_lines"] = median * 1000, lines
        print(f"rescoring an edited {lines}-line candidate against a cached reference: median {median * 1000:.1f} ms")
    if args.report:
        from report_file import write_report

        print("wrote", write_report(args.report, values))
    if LANGUAGE != "python":
        return

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
