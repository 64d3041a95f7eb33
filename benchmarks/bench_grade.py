"""`refscore grade` end to end on HumanEval-Python completions: items/s and where the time goes.

Usage: .venv/bin/python benchmarks/bench_grade.py [--items 1000] [--data ../shared/data/humaneval/python.jsonl.gz]
       [--metrics codebleu,codebertscore] [--batch-size 32] [--out DIR] [--backends torch,onnx] [--rounds 1]

The completions are converted on the fly into the grade JSONL format (``id``, ``candidate``,
``reference``, ``context``, ``language``) in a temporary folder, then graded with the real
command (CSV, JSON and HTML reports, no cache). Timers wrapped around the Scorer and the encoder
(instrumentation only; nothing is replaced) split the wall time into: model loading, the model
forward pass, the rest of CodeBERTScore (tokenizing, matching), CodeBLEU, and the grader itself
(reading inputs, writing reports).

``--backends`` grades the same items once per CodeBERTScore encoder backend, each run a fresh
process as a user's ``refscore grade`` would be (``$REFSCORE_ENCODER_BACKEND`` set, model loading
included), alternating for ``--rounds``, and prints the best items/s of each and their ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "humaneval" / "python.jsonl.gz"

TIMES: dict[str, float] = defaultdict(float)


def _timed(owner: object, name: str, bucket: str) -> None:
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            TIMES[bucket] += time.perf_counter() - start

    setattr(owner, name, wrapper)


def instrument() -> None:
    """Time the Scorer's parts without changing what they do."""
    from refscore.scoring import scorer

    _timed(scorer.LocalScorer, "score_many", "scorer")
    if hasattr(scorer.LocalScorer, "score_codebleu"):  # trees before the pipeline's stages
        _timed(scorer.LocalScorer, "score_codebleu", "codebleu")
    else:  # the CPU stage (CodeBLEU, and chrF/TSED when asked), looked up in pipeline's globals
        from refscore.scoring import pipeline

        _timed(pipeline, "cpu_metrics", "codebleu")
    try:
        from refscore.embed import encoder
        from refscore.embed import bertscorer
    except ImportError:
        return
    _timed(encoder.Encoder, "__init__", "model_load")
    _timed(encoder.Encoder, "_forward", "model_forward")
    _timed(encoder.Encoder, "tokenize", "tokenize")
    _timed(bertscorer.BertScorer, "score_batch", "codebertscore")


def convert(data: Path, count: int, target: Path) -> int:
    """Write the first ``count`` completions as grade JSONL; return how many were written."""
    written = 0
    with gzip.open(data, "rt", encoding="utf-8") as src, open(target, "w", encoding="utf-8") as dst:
        for line in src:
            if written >= count:
                break
            row = json.loads(line)
            dst.write(json.dumps({"id": f"{row['task_id']}#{row['completion_idx']}", "candidate": row["hyp"],
                                  "reference": row["ref"], "context": row["nl"], "language": "python"}) + "\n")
            written += 1
    return written


def grade_once(source: Path, out: Path, n: int, args: argparse.Namespace, label: str) -> float:
    """One end-to-end ``refscore grade`` run; prints where the time went; returns items/s."""
    from refscore.cli import main as refscore_main

    TIMES.clear()
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = refscore_main(["grade", "--jsonl", str(source), "--metrics", args.metrics, "-o", str(out),
                              "--no-cache", "--quiet", "--batch-size", str(args.batch_size)])
    wall = time.perf_counter() - start
    report = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    html_mb = (out / "grade.html").stat().st_size / 1e6
    errors = report["summary"]["with_errors"]
    scorer_s = TIMES["scorer"]
    model_s = TIMES["model_forward"]
    backend = os.environ.get("REFSCORE_ENCODER_BACKEND", "auto")
    print(f"{label}backend {backend}, items {n}, metrics {args.metrics}, batch {args.batch_size}, exit {code}, with errors {errors}")
    print(f"wall {wall:.1f} s  ->  {n / wall:.1f} items/s end to end "
          f"({n / max(1e-9, wall - TIMES['model_load']):.1f} items/s without model loading)")
    rows = [("in the Scorer (score_many)", scorer_s), ("  model loading", TIMES["model_load"]),
            ("  model forward pass", model_s), ("  tokenizing", TIMES["tokenize"]),
            ("  CodeBERTScore total (incl. forward, matching)", TIMES["codebertscore"]),
            ("  CodeBLEU", TIMES["codebleu"]), ("grader outside the Scorer (inputs, reports)", wall - scorer_s)]
    for row_label, seconds in rows:
        print(f"  {row_label:<48} {seconds:7.2f} s  {100 * seconds / wall:5.1f} %")
    print(f"  HTML report {html_mb:.1f} MB", flush=True)
    return n / wall


def compare(args: argparse.Namespace, backends: list[str]) -> int:
    """Each backend in a fresh process per round (alternating); the best items/s of each."""
    best: dict[str, float] = {}
    argv = [sys.executable, __file__, "--items", str(args.items), "--data", str(args.data),
            "--metrics", args.metrics, "--batch-size", str(args.batch_size)]
    for _ in range(max(1, args.rounds)):
        for backend in backends:
            env = {**os.environ, "REFSCORE_ENCODER_BACKEND": backend}
            done = subprocess.run(argv, env=env, capture_output=True, text=True)
            print(f"[{backend}] " + done.stdout.strip().replace("\n", f"\n[{backend}] "), flush=True)
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return done.returncode
            rate = float(done.stdout.split("items/s end to end")[0].split("->")[-1])
            best[backend] = max(best.get(backend, 0.0), rate)
    base = backends[0]
    print("best items/s end to end: " + ", ".join(f"{b} {r:.1f} ({r / best[base]:.2f}x {base})"
                                                 for b, r in best.items()))
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--metrics", default="codebleu,codebertscore")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--out", type=Path, help="keep the reports here (default: a temporary folder)")
    parser.add_argument("--backends", default="", help="comma-separated encoder backends to compare "
                        "(torch, onnx, onnx-int8), each in a fresh process; default: one run, automatic choice")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    if not args.data.exists():
        print(f"bench_grade: {args.data} not found (pass --data)", file=sys.stderr)
        return 2
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if backends:
        print(f"load average {os.getloadavg()[0]:.1f}")
        return compare(args, backends)
    instrument()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "out"
        source = Path(tmp) / "humaneval.jsonl"
        n = convert(args.data, args.items, source)
        grade_once(source, out, n, args, "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
