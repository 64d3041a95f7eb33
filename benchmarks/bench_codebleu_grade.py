"""CodeBLEU end to end: `refscore grade --jsonl` against a script over the codebleu 0.7.0 package,
same pairs, same run, each a fresh process (start-up, reading, scoring and writing a CSV included).

Usage: .venv/bin/python benchmarks/bench_codebleu_grade.py [--pairs 5000] [--rounds 2] [--report JSON]

The peer is the shortest honest program a researcher would write with the package: read the JSONL,
call ``codebleu.calc_codebleu([reference], [candidate], lang)`` per pair, write a CSV of the five
numbers. RefScore runs with the package's rule (``--codebleu-rule compat``), so both write the same
numbers; the two alternate for ``--rounds`` rounds and each keeps its best wall time. The machine's
load average is recorded beside the ratio (shared machines are noisy; the ratio is what holds).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
PYTHON = REPO / ".venv" / "bin" / "python"

PACKAGE_SCRIPT = """
import csv, json, sys
import codebleu
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
with open(sys.argv[2], "w", newline="") as handle:
    out = csv.writer(handle)
    out.writerow(["id", "codebleu", "ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match"])
    for row in rows:
        s = codebleu.calc_codebleu([row["reference"]], [row["candidate"]], row["language"])
        out.writerow([row["id"], s["codebleu"], s["ngram_match_score"], s["weighted_ngram_match_score"],
                      s["syntax_match_score"], s["dataflow_match_score"]])
"""


def write_pairs(data: Path, count: int, folder: Path) -> Path:
    """The first ``count`` HumanEval-Python completions as grade JSONL."""
    out = folder / "pairs.jsonl"
    with gzip.open(data, "rt", encoding="utf-8") as source, out.open("w", encoding="utf-8") as sink:
        for index, line in zip(range(count), source):
            row = json.loads(line)
            sink.write(json.dumps({"id": index, "reference": row["ref"], "candidate": row["hyp"],
                                   "language": "python"}) + "\n")
    return out


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "humaneval" / "python.jsonl.gz")
    parser.add_argument("--report", type=Path, metavar="JSON", help="write the figures (docs/reports/codebleu-grade.json)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pairs = write_pairs(args.data, args.pairs, folder)
        script = folder / "package_grade.py"
        script.write_text(PACKAGE_SCRIPT, encoding="utf-8")
        runs = {
            "package": [str(PYTHON), str(script), str(pairs), str(folder / "package.csv")],
            "refscore": [str(REPO / ".venv" / "bin" / "refscore"), "grade", "--jsonl", str(pairs), "-o",
                         str(folder / "out"), "--metrics", "codebleu", "--codebleu-rule", "compat", "--no-cache",
                         "--no-daemon"],
        }
        best = {name: float("inf") for name in runs}
        loads = []
        for _ in range(args.rounds):
            for name, command in runs.items():
                best[name] = min(best[name], timed(command))
                loads.append(os.getloadavg()[0])
    ratio = best["package"] / best["refscore"]
    print(f"{args.pairs} pairs end to end, best of {args.rounds}: codebleu 0.7.0 script {best['package']:.1f} s, "
          f"refscore grade {best['refscore']:.1f} s, ratio {ratio:.1f}x (load average {max(loads):.1f})")
    if args.report:
        from report_file import write_report

        print("wrote", write_report(args.report, {"pairs": args.pairs, "rounds": args.rounds, "seconds": best,
                                                  "ratio": ratio, "load_average": max(loads)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
