"""`refscore grade` end to end on HumanEval-Python completions: items/s and where the time goes.

Usage: .venv/bin/python benchmarks/bench_grade.py [--items 1000] [--data ../shared/data/humaneval/python.jsonl.gz]
       [--metrics codebleu,codebertscore] [--batch-size 32] [--out DIR] [--backends torch,onnx] [--rounds 1]

The completions are converted on the fly into the grade JSONL format (``id``, ``candidate``,
``reference``, ``context``, ``language``) in a temporary folder, then graded with the real
command (CSV, JSON and HTML reports, no cache). Timers wrapped around the Scorer and the encoder
(instrumentation only; nothing is replaced) split the wall time into: model loading, the model
forward pass, the rest of CodeBERTScore (tokenizing, matching), CodeBLEU, and the grader itself
(reading inputs, writing reports).

``--backends`` grades the same items once per CodeBERTScore encoder backend in one process
(alternating for ``--rounds``; each backend's model is loaded before its clock starts and every
embedding cache is emptied before each run), and prints the items/s of each and their ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
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
    if hasattr(scorer.LocalScorer, "score_codebleu"):
        _timed(scorer.LocalScorer, "score_codebleu", "codebleu")
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


def _prepare(backend: str | None) -> None:
    """Select ``backend``, load its model before the clock starts, and empty every embedding cache."""
    if backend is not None:
        os.environ["REFSCORE_ENCODER_BACKEND"] = backend
    from refscore.embed import encoder
    from refscore.embed.models import scorer_for

    scorer_for("python")
    for loaded in list(encoder._LOADED.values()):
        loaded.cache.clear()
        loaded.window_cache.clear()


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
    print(f"{label}items {n}, metrics {args.metrics}, batch {args.batch_size}, exit {code}, with errors {errors}")
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--metrics", default="codebleu,codebertscore")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--out", type=Path, help="keep the reports here (default: a temporary folder)")
    parser.add_argument("--backends", default="", help="comma-separated encoder backends to compare in one run "
                        "(torch, onnx, onnx-int8); default: the automatic choice, model load included")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    if not args.data.exists():
        print(f"bench_grade: {args.data} not found (pass --data)", file=sys.stderr)
        return 2
    instrument()
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    print(f"load average {os.getloadavg()[0]:.1f}")
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "out"
        source = Path(tmp) / "humaneval.jsonl"
        n = convert(args.data, args.items, source)
        if not backends:
            grade_once(source, out, n, args, "")
            return 0
        for _ in range(max(1, args.rounds)):
            for backend in backends:
                _prepare(backend)
                rate = grade_once(source, out, n, args, f"[{backend}] ")
                best[backend] = max(best.get(backend, 0.0), rate)
    base = backends[0]
    print("best items/s: " + ", ".join(f"{b} {r:.1f} ({r / best[base]:.2f}x {base})" for b, r in best.items()))
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
