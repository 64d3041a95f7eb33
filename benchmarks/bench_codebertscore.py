"""Benchmark: refscore's CodeBERTScore against code-bert-score 0.4.1, same pairs, same run.

Shapes (grading shape: few references, many candidates):

* ``minilm``: the embedded all-MiniLM-L6-v2 (layer 6), HumanEval-Python, 20 problems x 10
  completions, no context.
* ``ctx``: a MiniLM-sized RoBERTa (6 layers, 384 wide, random weights, byte-level BPE trained
  locally), 10 problems x 10 completions with the NL task description as context (the package's
  ``sources`` path only works with RoBERTa-family tokenizers).

Both sides get the same inputs and return the same numbers (checked). The package reloads its
model on every call, so its time is reported with and without that load. Our time is measured with
the encoder loaded and the embedding cache empty. The profile splits our time into model forward
and everything else.

Run: ``.venv/bin/python benchmarks/bench_codebertscore.py [--device cpu] [--pairs 200] [--json out]``
Data is read from /work/shared/data/humaneval (never copied into the repository).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "server"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import bert_fixtures as bf  # noqa: E402


def _timed(fn, *args, **kw):
    start = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - start, out


def _package_load_time(path: str, layers: int) -> float:
    from code_bert_score.utils import get_model
    from transformers import AutoTokenizer

    start = time.perf_counter()
    AutoTokenizer.from_pretrained(path)
    get_model(path, layers)
    return time.perf_counter() - start


class _ForwardTimer:
    """Wraps the encoder model's forward to add up the time spent in it."""

    def __init__(self, model) -> None:
        self.model, self.total = model, 0.0
        self._orig = model.forward

        def timed(*a, **k):
            start = time.perf_counter()
            try:
                return self._orig(*a, **k)
            finally:
                if str(next(model.parameters()).device).startswith("cuda"):
                    import torch

                    torch.cuda.synchronize()
                self.total += time.perf_counter() - start

        model.forward = timed

    def restore(self) -> None:
        self.model.forward = self._orig


def run_shape(name: str, cands, refs, model_path: str, layers: int, sources, device: str,
              repeats: int = 2) -> dict:
    import torch

    from refscore.compat.bertscore_api import score
    from refscore.embed.encoder import encoder_for
    from refscore.embed.registry import resolve_model

    cbs = bf.load_oracle()
    kw = dict(model_type=model_path, num_layers=layers, device=device)
    if sources is not None:
        kw["sources"] = sources
    encoder = encoder_for(resolve_model(model=model_path, layer=layers), device=device, half=False)
    score(cands[:2], refs[:2], **{**kw, "sources": sources[:2] if sources else None})  # load
    # alternate the two sides so machine load hits both alike; keep the best of each
    ours_times, ours_cpu, forward_share, theirs_times, theirs_cpu = [], [], [], [], []
    for _ in range(repeats):
        encoder.cache.clear()
        timer = _ForwardTimer(encoder.model)
        c0 = time.process_time()
        t, ours = _timed(score, cands, refs, **kw)
        ours_cpu.append(time.process_time() - c0)
        timer.restore()
        ours_times.append(t)
        forward_share.append(timer.total / t)
        c0 = time.process_time()
        t, theirs = _timed(cbs.score, cands, refs, **kw)
        theirs_cpu.append(time.process_time() - c0)
        theirs_times.append(t)
    load = _package_load_time(model_path, layers)
    diff = (torch.stack(list(ours)) - torch.stack(list(theirs))).abs().max().item()
    ours_t, theirs_t = min(ours_times), min(theirs_times)
    return {
        "shape": name, "pairs": len(cands), "distinct_refs": len(set(refs)), "device": device,
        "context": sources is not None, "ours_s": round(ours_t, 3), "package_s": round(theirs_t, 3),
        "package_load_s": round(load, 3),
        "speedup": round(theirs_t / ours_t, 2),
        "speedup_excluding_package_load": round((theirs_t - load) / ours_t, 2),
        "ours_cpu_s": round(min(ours_cpu), 3), "package_cpu_s": round(min(theirs_cpu), 3),
        "speedup_cpu_time": round(min(theirs_cpu) / min(ours_cpu), 2),
        "ours_pairs_per_s": round(len(cands) / ours_t, 1),
        "forward_share": round(max(forward_share), 3), "max_abs_diff": diff,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--problems", type=int, default=20, help="problems for the MiniLM shape")
    ap.add_argument("--shapes", default="minilm,ctx")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    import torch

    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, device {args.device}")
    results = []
    if "minilm" in args.shapes:
        recs = bf.humaneval_pairs(args.problems * 10, "python", per_task=10)
        results.append(run_shape("minilm", [r["hyp"] for r in recs], [r["ref"] for r in recs],
                                 bf.minilm_path(), 6, None, args.device, args.repeats))
        print(json.dumps(results[-1]))
    if "ctx" in args.shapes:
        recs = bf.humaneval_pairs(100, "python", per_task=10)
        with tempfile.TemporaryDirectory() as tmp:
            rob = bf.tiny_roberta(Path(tmp) / "rob", hidden=384, layers=6, heads=12,
                                  intermediate=1536, vocab_size=8000)
            results.append(run_shape("ctx", [r["hyp"] for r in recs], [r["ref"] for r in recs],
                                     rob, 6, [r["nl"] for r in recs], args.device, args.repeats))
        print(json.dumps(results[-1]))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
