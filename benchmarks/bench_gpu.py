"""GPU path of CodeBERTScore: fp16 against fp32, length-sorted batches, against code-bert-score.

Usage: .venv/bin/python benchmarks/bench_gpu.py [--pairs 1000] [--device cuda] [--rounds 3]
       [--models minilm,codebert-shape] [--shapes nocontext,context] [--no-package]
       [--record benchmarks/results/gpu.jsonl]

One command for the whole GPU check. On a CUDA machine it scores HumanEval-Python pairs (grading
shape; and with the NL prompt as context) through ``BertScorer.score_batch`` (batched matching on
the device, no token alignments: the grader's path) with the torch backend in fp32 and in fp16
(the default on CUDA), for two encoders:

* ``minilm``: the embedded all-MiniLM-L6-v2 at layer 6;
* ``codebert-shape``: the paper's codebert-python when it is in the local Hugging Face cache, else
  a RoBERTa of codebert-base's shape (12 layers, 768 wide, 12 heads, 3072 inner; random weights,
  a byte-level BPE trained locally) at layer 11 -- the cost a GPU sees, not meaningful scores.

code-bert-score 0.4.1 runs on the same device and model (without context: its ``sources`` path
needs a RoBERTa tokenizer), sides alternating round by round (best of each kept). It reports
pairs/s, the fp16 difference from fp32 (P/R/F1/F3, per pair; the fp16 signature says
``precision:fp16``), fp32's difference from the package, and GPU utilisation sampled every 0.2 s
during the timed runs (``torch.cuda.utilization``, else ``nvidia-smi``); prints a Markdown table
for docs/benchmarks.md and appends the whole result, with the GPU's name and the versions, to
``--record``. Without a GPU it says so on one line and exits 3 (nothing measured, nothing
recorded); ``--device cpu`` runs the same steps on the CPU (fp32 only) as a check of the script.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "server"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import bert_fixtures as bf  # noqa: E402


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


class _Utilisation:
    """GPU utilisation (percent) sampled every 0.2 s on a thread while ``with`` runs."""

    def __init__(self, device: str) -> None:
        self.device, self.samples = device, []
        self._stop = None

    def _read(self) -> float | None:
        import subprocess

        import torch

        try:
            return float(torch.cuda.utilization(torch.device(self.device)))
        except Exception:  # noqa: BLE001 - no pynvml: ask nvidia-smi
            try:
                index = torch.device(self.device).index or 0
                out = subprocess.run(["nvidia-smi", "-i", str(index), "--query-gpu=utilization.gpu",
                                      "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=5)
                return float(out.stdout.strip().splitlines()[0])
            except Exception:  # noqa: BLE001
                return None

    def __enter__(self) -> "_Utilisation":
        import threading

        if not self.device.startswith("cuda"):
            return self
        self._stop = threading.Event()

        def sample() -> None:
            while not self._stop.wait(0.2):
                value = self._read()
                if value is not None:
                    self.samples.append(value)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._stop is not None:
            self._stop.set()
            self._thread.join(timeout=10)

    def summary(self) -> dict:
        if not self.samples:
            return {}
        return {"gpu_util_mean_pct": round(sum(self.samples) / len(self.samples), 1),
                "gpu_util_max_pct": max(self.samples), "gpu_util_samples": len(self.samples)}


def _ours(encoder, items) -> tuple[float, object, str]:
    import torch

    from refscore.embed.bertscorer import BertScorer, ScorePair

    encoder.cache.clear()
    encoder.window_cache.clear()
    scorer = BertScorer(encoder)
    _sync(encoder.device)
    start = time.perf_counter()
    results = scorer.score_batch([ScorePair(c, r, None, ctx) for c, r, ctx in items], alignments=False)
    _sync(encoder.device)
    wall = time.perf_counter() - start
    signature = results[0].signature if results else ""
    return wall, torch.tensor([[s.precision, s.recall, s.f1, s.f3] for s in results], dtype=torch.float64), signature


def _package(items, device: str, model: str, layer: int) -> tuple[float, object]:
    import torch

    cbs = bf.load_oracle()
    cands, refs = [c for c, _, _ in items], [r for _, r, _ in items]
    sources = [ctx for _, _, ctx in items] if items and items[0][2] is not None else None
    kw = dict(model_type=model, num_layers=layer, device=device, batch_size=64)
    if sources is not None:
        kw["sources"] = sources
    _sync(device)
    start = time.perf_counter()
    out = cbs.score(cands, refs, **kw)
    _sync(device)
    wall = time.perf_counter() - start
    return wall, torch.stack([t.double() for t in out], dim=1)


def encoder_model(name: str, scratch: Path) -> tuple[str, int, str]:
    """(folder, layer, description) of a ``--models`` entry."""
    from refscore.embed.registry import local_model_path, paper_model

    if name == "minilm":
        return bf.minilm_path(), 6, "all-MiniLM-L6-v2 (embedded), layer 6"
    if name == "codebert-shape":
        paper, layer = paper_model("python")
        path = local_model_path(paper)
        if path is not None:
            return path, layer, f"{paper} (cached), layer {layer}"
        folder = bf.tiny_roberta(scratch / "codebert-shape", hidden=768, layers=12, heads=12,
                                 intermediate=3072, vocab_size=8000)
        return folder, 11, "RoBERTa of codebert-base's shape (12x768, random weights), layer 11"
    raise SystemExit(f"bench_gpu: unknown model {name!r} (use minilm, codebert-shape)")


def run_shape(name: str, items, device: str, rounds: int, package: bool, model: tuple[str, int, str]) -> dict:
    from refscore.embed.encoder import encoder_for
    from refscore.embed.registry import ModelSpec

    path, layer, described = model
    spec = ModelSpec(path, path, layer)
    encoders = {"fp32": encoder_for(spec, device=device, half=False, backend="torch")}
    if device.startswith("cuda"):
        encoders["fp16"] = encoder_for(spec, device=device, half=True, backend="torch")
    sides = [*encoders, *(["package"] if package else [])]
    best: dict[str, float] = {s: float("inf") for s in sides}
    scores: dict[str, object] = {}
    signatures: dict[str, str] = {}
    for side in sides:  # warm-up: CUDA kernels, allocator
        if side == "package":
            _package(items[:8], device, path, layer)
        else:
            _ours(encoders[side], items[:8])
    utilisation = {s: _Utilisation(device) for s in sides}
    for round_index in range(rounds):
        order = sides[round_index % len(sides):] + sides[:round_index % len(sides)]
        for side in order:
            with utilisation[side]:
                if side == "package":
                    wall, out = _package(items, device, path, layer)
                else:
                    wall, out, signatures[side] = _ours(encoders[side], items)
            best[side] = min(best[side], wall)
            scores[side] = out
        print(f"  {name} round {round_index + 1}: " + ", ".join(f"{s} {best[s]:.2f} s" for s in sides), flush=True)
    result = {"shape": name, "model": described, "pairs": len(items), "device": device,
              "pairs_per_s": {s: round(len(items) / best[s], 1) for s in sides},
              "wall_s": {s: round(best[s], 3) for s in sides}, "signatures": signatures,
              "utilisation": {s: u.summary() for s, u in utilisation.items()}}
    if "fp16" in scores:
        result["fp16_max_abs_diff_vs_fp32"] = float((scores["fp16"] - scores["fp32"]).abs().max())
        result["fp16_speedup_vs_fp32"] = round(best["fp32"] / best["fp16"], 2)
    if "package" in scores:  # parity through the drop-in API (BertScorer's own rules differ in places)
        import torch

        from refscore.compat.bertscore_api import score

        sources = [ctx for _, _, ctx in items] if items and items[0][2] is not None else None
        ours = score([c for c, _, _ in items], [r for _, r, _ in items], model_type=path,
                     num_layers=layer, device=device, sources=sources)
        ours = torch.stack([t.double() for t in ours], dim=1)
        result["fp32_max_abs_diff_vs_package"] = float((ours - scores["package"]).abs().nan_to_num(0).max())
        for side in encoders:
            result[f"{side}_speedup_vs_package"] = round(best["package"] / best[side], 2)
    return result


def _machine(device: str) -> dict:
    import torch

    info = {"torch": torch.__version__, "device": device,
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    if device.startswith("cuda"):
        info["gpu"] = torch.cuda.get_device_name(torch.device(device))
        info["cuda"] = torch.version.cuda
    return info


def _markdown(machine: dict, results: list[dict]) -> str:
    lines = [f"GPU: {machine.get('gpu', machine['device'])}, torch {machine['torch']}, {machine['date']}", "",
             "| model | shape | pairs | fp32 pairs/s | fp16 pairs/s | fp16 / fp32 | package pairs/s "
             "| fp16 vs package | fp16 diff vs fp32 | fp32 diff vs package | GPU util fp16 (mean/max %) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        rate = r["pairs_per_s"]
        util = r.get("utilisation", {}).get("fp16", {})
        shown = f"{util['gpu_util_mean_pct']}/{util['gpu_util_max_pct']}" if util else "-"
        lines.append(f"| {r['model']} | {r['shape']} | {r['pairs']} | {rate.get('fp32', '-')} | {rate.get('fp16', '-')} "
                     f"| {r.get('fp16_speedup_vs_fp32', '-')} | {rate.get('package', '-')} "
                     f"| {r.get('fp16_speedup_vs_package', '-')} | {r.get('fp16_max_abs_diff_vs_fp32', '-')} "
                     f"| {r.get('fp32_max_abs_diff_vs_package', '-')} | {shown} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shapes", default="nocontext,context")
    ap.add_argument("--models", default="minilm,codebert-shape", help="comma-separated: minilm, codebert-shape")
    ap.add_argument("--no-package", action="store_true", help="skip code-bert-score")
    ap.add_argument("--record", type=Path, default=ROOT / "benchmarks" / "results" / "gpu.jsonl",
                    help="append the result (one JSON line) here")
    args = ap.parse_args(argv)
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("bench_gpu: no CUDA device on this machine: the GPU path is unmeasured here "
              "(run this on a GPU machine; --device cpu checks the script)", file=sys.stderr)
        return 3
    recs = bf.humaneval_pairs(args.pairs, "python")
    if not recs:
        print("bench_gpu: HumanEval data not found (see tests/bert_fixtures.py)", file=sys.stderr)
        return 2
    machine = _machine(args.device)
    print(json.dumps(machine))
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in [m.strip() for m in args.models.split(",") if m.strip()]:
            model = encoder_model(name, Path(scratch))
            print(f"model {name}: {model[2]}", flush=True)
            for shape in [s.strip() for s in args.shapes.split(",") if s.strip()]:
                items = [(r["hyp"], r["ref"], r["nl"] if shape == "context" else None) for r in recs]
                # the package's ``sources`` path needs a RoBERTa tokenizer: no peer for MiniLM with context
                package = not args.no_package and not (shape == "context" and name == "minilm")
                results.append(run_shape(shape, items, args.device, args.rounds, package, model))
                print(json.dumps(results[-1]), flush=True)
    print(_markdown(machine, results))
    if args.device.startswith("cuda"):
        args.record.parent.mkdir(parents=True, exist_ok=True)
        with open(args.record, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"machine": machine, "results": results}) + "\n")
        print(f"recorded in {args.record}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
