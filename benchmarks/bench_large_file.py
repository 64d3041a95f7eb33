"""CodeBLEU on one large generated file: the full file against its first half (time must be linear).

Usage: .venv/bin/python benchmarks/bench_large_file.py [--language python|java|javascript]
       [--lines 160000] [--rule native|compat] [--rounds 1]

Generates a module of ``--lines`` lines (Python: about 5 MB at 160,000 lines) made of many small
functions with loops, branches and unique local names (as generated code has), and a candidate:
the same module with other constants and operators in some places. Scores the candidate against
the module in-process (cold caches), then the first half of both (cut at a function boundary),
and prints both times and their ratio: linear work gives about 2x.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))


def _python_function(k: int, rng: random.Random) -> list[str]:
    op = rng.choice("+-*")
    return [
        f"def process_{k}(items_{k}, limit_{k}={rng.randint(1, 99)}):",
        f'    """Step {k} of the pipeline."""',
        f"    total_{k} = 0",
        f"    count_{k} = {rng.randint(0, 9)}",
        f"    for idx_{k}, item_{k} in enumerate(items_{k}):",
        f"        if item_{k} > limit_{k}:",
        f"            total_{k} += item_{k} {op} idx_{k}",
        f"        elif item_{k} < {rng.randint(-9, 0)}:",
        f"            count_{k} -= 1",
        "        else:",
        f"            count_{k} += 1",
        f"    while total_{k} > limit_{k}:",
        f"        total_{k} = total_{k} // {rng.randint(2, 5)}",
        f"        if count_{k} > {rng.randint(1, 9)}:",
        f"            count_{k} = count_{k} - 1",
        f"    values_{k} = [value {op} {rng.randint(1, 9)} for value in items_{k} if value]",
        f"    return total_{k} + count_{k} + len(values_{k})",
        "",
    ]


def _c_like_function(k: int, rng: random.Random, java: bool) -> list[str]:
    op = rng.choice("+-*")
    decl = "int" if java else "let"
    head = (f"    static int process{k}(int[] items{k}, int limit{k}) {{" if java
            else f"function process{k}(items{k}, limit{k}) {{")
    pad = "    " if java else ""
    body = [
        f"    {decl} total{k} = 0;",
        f"    {decl} count{k} = {rng.randint(0, 9)};",
        f"    for ({decl} i{k} = 0; i{k} < items{k}.length; i{k}++) {{",
        f"        if (items{k}[i{k}] > limit{k}) {{",
        f"            total{k} += items{k}[i{k}] {op} i{k};",
        f"        }} else if (items{k}[i{k}] < {rng.randint(-9, 0)}) {{",
        f"            count{k} -= 1;",
        "        } else {",
        f"            count{k} += 1;",
        "        }",
        "    }",
        f"    while (total{k} > limit{k}) {{",
        f"        total{k} = total{k} / {rng.randint(2, 5)};",
        f"        if (count{k} > {rng.randint(1, 9)}) {{",
        f"            count{k} = count{k} - 1;",
        "        }",
        "    }",
        f"    return total{k} + count{k};",
        "}",
        "",
    ]
    return [head] + [pad + line if line else line for line in body]


def generate(language: str, lines: int, seed: int) -> list[str]:
    """The module's lines (at least ``lines``), function by function; same seed, same text."""
    rng = random.Random(seed)
    out: list[str] = []
    if language == "python":
        out += ["import math", ""]
    elif language == "java":
        out += ["public class Generated {", ""]
    k = 0
    while len(out) < lines:
        if language == "python":
            out += _python_function(k, rng)
        else:
            out += _c_like_function(k, rng, language == "java")
        k += 1
    return out


def _text(lines: list[str], language: str) -> str:
    return "\n".join(lines + (["}"] if language == "java" else [])) + "\n"


def _half(lines: list[str]) -> list[str]:
    """The first half of the lines, cut at a blank line (a function boundary)."""
    cut = len(lines) // 2
    while cut < len(lines) and lines[cut]:
        cut += 1
    return lines[:cut]


def _clear_caches() -> None:
    from refscore.analysis.comments import strip_compat
    from refscore.analysis.document import analyse_structure, analyse_tokens

    analyse_structure.cache_clear()
    analyse_tokens.cache_clear()
    strip_compat.cache_clear()


def time_score(reference: str, candidate: str, language: str, rule: str) -> tuple[float, float, float]:
    """Wall seconds and CPU seconds of one cold CodeBLEU score, and the score. The machines are
    shared: CPU time (one thread does the work) is what to compare, wall time is what a user sees."""
    from refscore.scoring.codebleu import score_codebleu
    from refscore.scoring.corpus import corpus_codebleu_compat

    _clear_caches()
    wall, cpu = time.perf_counter(), time.process_time()
    if rule == "compat":
        value = corpus_codebleu_compat([[reference]], [candidate], language).score
    else:
        value = score_codebleu([reference], candidate, language, explain=False).score
    return time.perf_counter() - wall, time.process_time() - cpu, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", choices=("python", "java", "javascript"), default="python")
    parser.add_argument("--lines", type=int, default=160_000)
    parser.add_argument("--rule", choices=("native", "compat"), default="native")
    parser.add_argument("--rounds", type=int, default=1, help="best of this many runs each")
    parser.add_argument("--write", type=Path, help="also write the full module to this file")
    args = parser.parse_args()

    ref_lines = generate(args.language, args.lines, seed=1)
    cand_lines = generate(args.language, args.lines, seed=2)
    full = (_text(ref_lines, args.language), _text(cand_lines, args.language))
    half = (_text(_half(ref_lines), args.language), _text(_half(cand_lines), args.language))
    if args.write:
        args.write.write_text(full[0], encoding="utf-8")
    print(f"{args.language}, rule {args.rule}: full {len(ref_lines):,} lines, "
          f"{len(full[0].encode()) / 1e6:.1f} MB; half {len(_half(ref_lines)):,} lines")
    best = {name: [float("inf"), float("inf")] for name in ("half", "full")}
    for _ in range(args.rounds):
        for name, (ref, cand) in (("half", half), ("full", full)):
            wall, cpu, value = time_score(ref, cand, args.language, args.rule)
            best[name] = [min(best[name][0], wall), min(best[name][1], cpu)]
            print(f"  {name}: wall {wall:6.2f} s  cpu {cpu:6.2f} s  CodeBLEU {value:.4f}", flush=True)
    (half_wall, half_cpu), (full_wall, full_cpu) = best["half"], best["full"]
    print(f"best: half {half_wall:.2f} s wall, {half_cpu:.2f} s cpu; full {full_wall:.2f} s wall, "
          f"{full_cpu:.2f} s cpu; ratio full/half {full_cpu / half_cpu:.2f}x cpu, "
          f"{full_wall / half_wall:.2f}x wall")


if __name__ == "__main__":
    main()
