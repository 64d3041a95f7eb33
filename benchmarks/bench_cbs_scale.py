"""Benchmark: RefScore's own work around the encoder, with a tiny encoder that costs little.

A RoBERTa of 4 layers, 64 wide, random weights (``tests/bert_fixtures.tiny_roberta``, written to
a temporary folder) makes the forward pass a small share of the time, so what is measured is the
tokenising, batching, matching and result building a GPU would leave on the CPU. 2,000
HumanEval-Python pairs (``/work/shared/data/humaneval``), one process, cold embedding caches in
every round (the model is loaded before the clock starts). Sides, alternated round by round, best
wall time of each kept:

* ``compat``: ``refscore.compat.score`` (the drop-in API);
* ``scorer``: ``BertScorer.score_batch`` without alignments, and ``scorer+align`` with them
  (what ``--explain``, the editor and the HTML report ask for);
* ``grade``: ``refscore grade --jsonl F --metrics codebertscore`` in this process (after one
  warm-up run), its own ``elapsed_s`` (start-up excluded);
* ``embed only``: the encoder alone (tokenise and forward every distinct text): the floor;
* ``package``: code-bert-score 0.4.1's ``score`` on the same model (one round: it is slow; its
  model load, timed apart, is subtracted).

Run: ``.venv/bin/python benchmarks/bench_cbs_scale.py [--pairs 2000] [--rounds 3] [--no-package]
[--server /work/main/server]`` (``--server``: another checkout's package, for before/after).
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
#: ``--server DIR`` (before the other options): measure another checkout's refscore (e.g. main's)
SERVER = Path(sys.argv[sys.argv.index("--server") + 1]) if "--server" in sys.argv else ROOT / "server"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(SERVER))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import bert_fixtures as bf  # noqa: E402

LAYERS = 4


def _cold(encoder) -> None:
    encoder.cache.clear()
    encoder.window_cache.clear()


def _grade_once(jsonl: Path, model: str, out: Path) -> float:
    from refscore.cli import main

    code = main(["grade", "--jsonl", str(jsonl), "--metrics", "codebertscore", "--model", model,
                 "--layer", str(LAYERS), "--no-cache", "-q", "--json", str(out)])
    if code not in (0, None):
        raise SystemExit(f"grade exited {code}")
    info = json.loads(out.read_text(encoding="utf-8"))
    info = info["settings"]
    return float(info["elapsed_s"])


def run(pairs: int, rounds: int, package: bool) -> dict:
    import torch

    from refscore.compat.bertscore_api import score
    from refscore.embed.bertscorer import BertScorer, ScorePair
    from refscore.embed.encoder import encoder_for
    from refscore.embed.registry import resolve_model

    recs = bf.humaneval_pairs(pairs, "python")
    cands, refs = [r["hyp"] for r in recs], [r["ref"] for r in recs]
    tmp = tempfile.TemporaryDirectory()
    model = bf.tiny_roberta(Path(tmp.name) / "tiny", hidden=64, layers=LAYERS, heads=4)
    jsonl = Path(tmp.name) / "items.jsonl"
    with open(jsonl, "w", encoding="utf-8") as fh:
        for i, (c, r) in enumerate(zip(cands, refs)):
            fh.write(json.dumps({"id": f"p{i}", "candidate": c, "reference": r, "language": "python"}) + "\n")
    warm = Path(tmp.name) / "warm.jsonl"
    warm.write_text("".join(jsonl.read_text(encoding="utf-8").splitlines(True)[:8]), encoding="utf-8")
    out = Path(tmp.name) / "grade.json"
    encoder = encoder_for(resolve_model(model=model, layer=LAYERS), device="cpu", half=False)
    scorer = BertScorer(encoder)
    score(cands[:4], refs[:4], model_type=model, num_layers=LAYERS, device="cpu")  # warm-up
    _grade_once(warm, model, out)

    def compat():
        return score(cands, refs, model_type=model, num_layers=LAYERS, device="cpu")

    def scored(explain: bool):
        items = [ScorePair(c, r, "python") for c, r in zip(cands, refs)]
        return scorer.score_batch(items, alignments=explain)

    from refscore.metrics.codebertscore import model_input

    texts = list(dict.fromkeys(model_input(t).text for pair in zip(cands, refs) for t in pair))

    sides = {"embed only": lambda: encoder.embed(texts), "compat": compat, "scorer": lambda: scored(False), "scorer+align": lambda: scored(True),
             "grade": None}
    best = {name: float("inf") for name in sides}
    best_cpu = dict(best)  # this process's CPU time (all threads): steadier than wall on a shared machine
    for round_index in range(rounds):
        names = list(sides)
        names = names[round_index % len(names):] + names[:round_index % len(names)]
        for name in names:
            _cold(encoder)
            cpu = time.process_time()
            if name == "grade":
                wall = _grade_once(jsonl, model, out)
            else:
                start = time.perf_counter()
                sides[name]()
                wall = time.perf_counter() - start
            best[name] = min(best[name], wall)
            best_cpu[name] = min(best_cpu[name], time.process_time() - cpu)
        print(f"  round {round_index + 1}: " + ", ".join(f"{n} {best[n]:.2f} s" for n in sides), flush=True)
    result = {"pairs": len(cands), "model": "tiny RoBERTa 4x64 (random)", "backend": encoder.backend,
              "pairs_per_s": {n: round(len(cands) / best[n], 1) for n in sides},
              "wall_s": {n: round(best[n], 3) for n in sides},
              "cpu_s": {n: round(best_cpu[n], 3) for n in sides}}
    if package:
        cbs = bf.load_oracle()
        from code_bert_score.utils import get_model
        from transformers import AutoTokenizer

        start = time.perf_counter()
        AutoTokenizer.from_pretrained(model)
        get_model(model, LAYERS)
        load = time.perf_counter() - start
        torch.set_num_threads(torch.get_num_threads())
        start = time.perf_counter()
        theirs = cbs.score(cands, refs, model_type=model, num_layers=LAYERS, device="cpu", batch_size=64)
        wall = time.perf_counter() - start - load
        result["pairs_per_s"]["package"] = round(len(cands) / wall, 1)
        result["wall_s"]["package"] = round(wall, 3)
        ours = compat()
        diff = max(float((a.double() - b.double()).abs().nan_to_num(0).max()) for a, b in zip(ours, theirs))
        result["compat_max_abs_diff_vs_package"] = diff
        result["compat_speedup_vs_package"] = round(wall / best["compat"], 1)
    tmp.cleanup()
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-package", action="store_true", help="skip code-bert-score")
    ap.add_argument("--json", help="write the result here")
    ap.add_argument("--server", help="the refscore package folder to measure (default: this checkout's)")
    args = ap.parse_args(argv)
    if not bf.humaneval_pairs(1, "python"):
        print("bench_cbs_scale: HumanEval data not found (see tests/bert_fixtures.py)", file=sys.stderr)
        return 2
    import refscore

    print(f"refscore from {Path(refscore.__file__).parent.parent}, load average {os.getloadavg()[0]:.1f}")
    result = run(args.pairs, args.rounds, not args.no_package)
    print(json.dumps(result, indent=2))
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
