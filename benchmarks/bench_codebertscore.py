"""Benchmark: refscore's CodeBERTScore backends against code-bert-score 0.4.1, same pairs, same run.

Shapes (grading shape: few references, many candidates):

* ``minilm``: the embedded all-MiniLM-L6-v2 (layer 6), HumanEval-Python, 20 problems x 10
  completions, no context.
* ``ctx``: a MiniLM-sized RoBERTa (6 layers, 384 wide, random weights, byte-level BPE trained
  locally), 10 problems x 10 completions with the NL task description as context (the package's
  ``sources`` path only works with RoBERTa-family tokenizers).

Sides, alternated round by round (the machine is shared: each keeps its best wall and CPU time):
``package`` (code-bert-score), and ``refscore.compat.score`` on each encoder backend named by
``--backends`` (``torch`` is the torch eager path every release before the ONNX backend used;
``onnx`` the ONNX Runtime default on a CPU; ``onnx-int8`` the opt-in quantised weights). Every
refscore side is compared with the torch side (largest P/R/F1/F3 difference per pair) and with the
package. Our encoders are loaded (and exported) before the clock starts, with empty embedding
caches in every round; the package reloads its model on every call, so its time is reported with
and without that load. CPU time is this process's (all threads).

Run: ``.venv/bin/python benchmarks/bench_codebertscore.py [--shapes minilm,ctx] [--rounds 3]
[--backends torch,onnx,onnx-int8] [--device cpu] [--json out]``
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


def _package_load_time(path: str, layers: int) -> float:
    from code_bert_score.utils import get_model
    from transformers import AutoTokenizer

    start = time.perf_counter()
    AutoTokenizer.from_pretrained(path)
    get_model(path, layers)
    return time.perf_counter() - start


class _ForwardTimer:
    """Adds up the wall time an encoder spends in its forward passes (``Encoder._forward``: the
    model calls, side by side on ONNX Runtime, and putting their vectors in place)."""

    def __init__(self, encoder) -> None:
        self.encoder, self.total = encoder, 0.0
        original = encoder._forward

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                if str(encoder.device).startswith("cuda"):
                    import torch

                    torch.cuda.synchronize()
                self.total += time.perf_counter() - start

        encoder._forward = timed

    def restore(self) -> None:
        del self.encoder._forward


def _stack(result):
    import torch

    return torch.stack([t.float() for t in result])


def run_shape(name: str, cands, refs, model_path: str, layers: int, sources, device: str,
              backends: list[str], rounds: int, default_threads: int) -> dict:
    from refscore.compat.bertscore_api import score
    from refscore.embed.backends import BACKEND_ENV
    from refscore.embed.encoder import encoder_for
    from refscore.embed.registry import resolve_model

    import torch

    cbs = bf.load_oracle()
    kw = dict(model_type=model_path, num_layers=layers, device=device)
    if sources is not None:
        kw["sources"] = sources
    spec = resolve_model(model=model_path, layer=layers)
    encoders = {}
    for backend in backends:  # load (and export) before the clock starts
        torch.set_num_threads(default_threads)
        encoders[backend] = encoder_for(spec, device=device, half=False, backend=backend)
        os.environ[BACKEND_ENV] = backend
        score(cands[:2], refs[:2], **{**kw, "sources": sources[:2] if sources else None})
    cbs.score(cands[:2], refs[:2], **{**kw, "sources": sources[:2] if sources else None})

    def ours(backend: str):
        encoder = encoders[backend]
        encoder.cache.clear()
        encoder.window_cache.clear()
        os.environ[BACKEND_ENV] = backend
        # each side as it runs alone: torch eager on torch's default threads; ONNX Runtime on
        # those threads with torch itself single-threaded (what loading an ONNX encoder sets)
        torch.set_num_threads(1 if encoder.runner is not None else default_threads)
        timer = _ForwardTimer(encoder)
        try:
            return score(cands, refs, **kw), timer.total
        finally:
            timer.restore()

    sides = ["package", *backends]
    best: dict[str, dict] = {s: {"wall": float("inf"), "cpu": float("inf"), "forward": 0.0} for s in sides}
    outputs: dict[str, object] = {}
    for round_index in range(rounds):
        order = sides[round_index % len(sides):] + sides[:round_index % len(sides)]
        for side in order:
            c0, t0 = time.process_time(), time.perf_counter()
            if side == "package":
                torch.set_num_threads(default_threads)
                out, forward = cbs.score(cands, refs, **kw), 0.0
            else:
                out, forward = ours(side)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            outputs[side] = out
            entry = best[side]
            if wall < entry["wall"]:
                entry.update(wall=wall, forward=forward)
            entry["cpu"] = min(entry["cpu"], cpu)
        print(f"  round {round_index + 1}: " + ", ".join(f"{s} {best[s]['wall']:.2f} s" for s in sides),
              flush=True)
    load = _package_load_time(model_path, layers)
    package = _stack(outputs["package"])
    base = "torch" if "torch" in backends else backends[0]
    reference = _stack(outputs[base])
    result = {"shape": name, "pairs": len(cands), "distinct_refs": len(set(refs)), "device": device,
              "context": sources is not None, "package_load_s": round(load, 3), "sides": {}}
    for side in sides:
        entry = best[side]
        row = {"wall_s": round(entry["wall"], 3), "cpu_s": round(entry["cpu"], 3),
               "pairs_per_s": round(len(cands) / entry["wall"], 1)}
        if side != "package":
            mine = _stack(outputs[side])
            row.update(
                forward_share=round(entry["forward"] / entry["wall"], 3),
                speedup_vs_package_wall=round(best["package"]["wall"] / entry["wall"], 2),
                speedup_vs_package_cpu=round(best["package"]["cpu"] / entry["cpu"], 2),
                speedup_vs_package_wall_excluding_load=round((best["package"]["wall"] - load) / entry["wall"], 2),
                speedup_vs_torch_wall=round(best[base]["wall"] / entry["wall"], 2),
                speedup_vs_torch_cpu=round(best[base]["cpu"] / entry["cpu"], 2),
                max_abs_diff_vs_torch=float((mine - reference).abs().nan_to_num(0.0).max()),
                max_abs_diff_vs_package=float((mine - package).abs().nan_to_num(0.0).max()),
            )
        result["sides"][side] = row
    return result


def _print(result: dict) -> None:
    print(f"{result['shape']}: {result['pairs']} pairs, {result['distinct_refs']} references, "
          f"context {result['context']}, device {result['device']}")
    print(f"  {'side':<10} {'wall s':>8} {'CPU s':>8} {'vs torch wall/CPU':>18} {'vs package wall/CPU':>20} "
          f"{'forward':>8} {'diff vs torch':>14} {'diff vs package':>16}")
    for side, row in result["sides"].items():
        if side == "package":
            print(f"  {side:<10} {row['wall_s']:8.2f} {row['cpu_s']:8.2f}")
            continue
        print(f"  {side:<10} {row['wall_s']:8.2f} {row['cpu_s']:8.2f} "
              f"{row['speedup_vs_torch_wall']:8.2f}x/{row['speedup_vs_torch_cpu']:.2f}x "
              f"{row['speedup_vs_package_wall']:10.2f}x/{row['speedup_vs_package_cpu']:.2f}x "
              f"{100 * row['forward_share']:7.1f}% {row['max_abs_diff_vs_torch']:14.1e} "
              f"{row['max_abs_diff_vs_package']:16.1e}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--problems", type=int, default=20, help="problems for the MiniLM shape")
    ap.add_argument("--shapes", default="minilm,ctx")
    ap.add_argument("--backends", default="torch,onnx", help="comma-separated: torch, onnx, onnx-int8")
    ap.add_argument("--rounds", "--repeats", type=int, default=3)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    import torch

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    threads = torch.get_num_threads()  # before any ONNX encoder makes torch single-threaded
    print(f"torch {torch.__version__}, threads {threads}, device {args.device}, "
          f"backends {', '.join(backends)}, load average {os.getloadavg()[0]:.1f}")
    results = []
    if "minilm" in args.shapes:
        recs = bf.humaneval_pairs(args.problems * 10, "python", per_task=10)
        results.append(run_shape("minilm", [r["hyp"] for r in recs], [r["ref"] for r in recs],
                                 bf.minilm_path(), 6, None, args.device, backends, args.rounds, threads))
        _print(results[-1])
    if "ctx" in args.shapes:
        recs = bf.humaneval_pairs(100, "python", per_task=10)
        with tempfile.TemporaryDirectory() as tmp:
            rob = bf.tiny_roberta(Path(tmp) / "rob", hidden=384, layers=6, heads=12,
                                  intermediate=1536, vocab_size=8000)
            results.append(run_shape("ctx", [r["hyp"] for r in recs], [r["ref"] for r in recs],
                                     rob, 6, [r["nl"] for r in recs], args.device, backends, args.rounds, threads))
        _print(results[-1])
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
