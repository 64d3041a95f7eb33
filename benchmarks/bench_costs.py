"""What hostile but legal inputs cost, at three sizes each doubling (issue 45, items 1, 2 and 7).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_costs.py [--before] [--json FILE]

* ``differences``: the differences finder (``scoring.differences.find_differences``) on a
  reference of N functions ``def fK(a): return a + K`` and a candidate of N ``def gK(a): return
  a * K`` (under the finder's 12,000-token cap);
* ``pairing``: pairing those candidate functions with those reference functions
  (``scoring.pairing.pair_functions``, the editor's first phase and ``--per-function``; CodeBLEU
  in this process; at most 500 functions a file are read, so N=800 pairs 500);
* ``budget``: ``refscore``'s CPU stage (``scoring.pipeline.cpu_metrics``, CodeBLEU) on a candidate
  of ``x = 1`` lines over the code-token budget: refused after counting, in the memory of a small
  file; and CodeBLEU itself under the budget, to show what the budget bounds;
* ``dataflow``: the data flow (``dataflow.extract_dataflow``) of N JavaScript functions
  ``function f(e,t){if(e){t+=e}return t}`` that reuse their local names.

Each measurement runs in its own process (CPU seconds of the work, the process's peak RSS). With
``--before``, each also runs with the old behaviour switched back on where a setting allows it
(the finder's step budget unbounded, the data flow's shared sets off, the pairing's index of
reference functions built again for each candidate function), at the smaller sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PRELUDE = f"""
import resource, sys, time
sys.path.insert(0, {str(ROOT / 'server')!r})
"""

_DIFFERENCES = """
from refscore.metrics.differences import bounded
from refscore.scoring.differences import find_differences
if BEFORE:
    bounded.BUDGET = 10 ** 15
ref = "".join(f"def f{k}(a):\\n    return a + {k}\\n\\n" for k in range(N))
cand = "".join(f"def g{k}(a):\\n    return a * {k}\\n\\n" for k in range(N))
start = time.process_time()
found = find_differences(cand, (ref,), None, "python")
cpu = time.process_time() - start
detail = f"{len(found.differences)} differences"
"""

_PAIRING = """
from refscore import languages
from refscore.scoring import pairing
from refscore.scoring.scorer import LocalScorer
if BEFORE:
    _rank = pairing.rank_references
    pairing.rank_references = lambda *args: _rank(*args[:-1])  # no shared index: N parses per function
ref = "".join(f"def f{k}(a):\\n    return a + {k}\\n\\n" for k in range(N))
cand = "".join(f"def g{k}(a):\\n    return a * {k}\\n\\n" for k in range(N))
start = time.process_time()
pairs = pairing.pair_functions(cand, (ref,), languages.get("python"), LocalScorer().score_many, (0.25,) * 4)
cpu = time.process_time() - start
detail = f"{len(pairs)} pairs, {len(cand) // 1024} KB"
"""

_BUDGET = """
from refscore.scoring.pipeline import cpu_metrics, prepare
from refscore.scoring.report import ScoreRequest
text = "x = 1\\n" * N
start = time.process_time()
cpu_scores = cpu_metrics(prepare(ScoreRequest(text, ("y = 2\\n",), "python", metrics=("codebleu",))))
cpu = time.process_time() - start
detail = (cpu_scores.errors or ["scored"])[0][:60]
"""

_DATAFLOW = """
from refscore import languages
from refscore.dataflow import _reach, extract_dataflow
if BEFORE:
    _reach.SHARED_FROM = 10 ** 15
code = "function f(e,t){if(e){t+=e}return t}\\n" * N
root = languages.get("javascript").parse(code.encode()).root_node
start = time.process_time()
edges = extract_dataflow(root, code, "javascript")
cpu = time.process_time() - start
detail = f"{len(edges)} edges, {len(code) // 1024} KB"
"""

_REPORT = """
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(f"{cpu:.3f}\\t{rss}\\t{detail}")
"""

CASES = {
    "differences": (_DIFFERENCES, (250, 500, 1000), (250, 500)),
    "pairing": (_PAIRING, (200, 400, 800), (200, 400)),
    "budget (over, refused)": (_BUDGET, (400_000, 800_000, 1_600_000), ()),
    "budget (CodeBLEU under it)": (_BUDGET, (40_000, 80_000, 160_000), ()),
    "dataflow": (_DATAFLOW, (4000, 8000, 16000), (2000, 4000)),
}


def measure(body: str, size: int, before: bool) -> dict:
    script = _PRELUDE + f"N = {size}\nBEFORE = {before}\n" + body + _REPORT
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"size {size}: {done.stderr.strip().splitlines()[-1]}")
    cpu, rss, detail = done.stdout.strip().splitlines()[-1].split("\t")
    return {"size": size, "cpu_s": float(cpu), "rss_mb": int(rss), "detail": detail, "before": before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", action="store_true", help="also measure the old behaviour where it can be switched")
    parser.add_argument("--json", help="write the measurements here")
    args = parser.parse_args()
    results = []
    for name, (body, sizes, before_sizes) in CASES.items():
        runs = [measure(body, size, False) for size in sizes]
        if args.before:
            runs += [measure(body, size, True) for size in before_sizes]
        for run in runs:
            previous = next((r for r in runs if r["before"] == run["before"] and r["size"] * 2 == run["size"]), None)
            growth = f"{run['cpu_s'] / previous['cpu_s']:.2f}x" if previous and previous["cpu_s"] > 0 else ""
            print(f"{name:28} {'before' if run['before'] else 'now':6} N={run['size']:>9,}  cpu {run['cpu_s']:8.3f} s"
                  f"  {growth:>6}  rss {run['rss_mb']:6} MB  {run['detail']}")
            results.append({"case": name, **run})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
