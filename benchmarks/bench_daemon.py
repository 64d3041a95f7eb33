"""Benchmark: one shared scoring daemon against separate in-process scorers, same machine, same run.

Shape (issue 4): 4 concurrent clients, each sending 100 CodeBERTScore requests one at a time (the
interactive shape: send, wait for the answer, send the next), HumanEval-Python completions scored
against their problem's canonical solution with the default model (the embedded MiniLM).

* ``in-process``: 4 processes, each with its own ``LocalScorer`` (its own model), warmed with one
  request before the clock starts.
* ``daemon``: 4 client processes and one daemon they start themselves (racing to start it). Each
  client first sends 10 other requests at once, while the daemon is still loading the model: they
  must wait, not fail. Then the clock starts, as for the in-process run.

Throughput is 400 / (last finish - first start). Memory is peak resident set size (VmHWM): the sum
over the 4 in-process scorers, against the daemon plus its 4 clients. The F1 values of the two
runs are compared (same pairs, same model).

``--sweep`` adds the batching gain: one client submits ``--sweep-requests`` requests at once to a
fresh daemon started with ``--max-batch B --lanes 1`` for each B, requests/s against B (use
``--device cuda`` on a GPU machine).

``--inproc-threads 1`` gives each in-process scorer one torch thread (a hand-tuned baseline: by
default each takes all cores, and 4 of them oversubscribe the CPU).

Run: ``.venv/bin/python benchmarks/bench_daemon.py [--clients 4] [--requests 100] [--sweep 1,4,16,64]
[--device cpu] [--json out.json]``. Data is read from ../shared/data/humaneval (never copied here).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "humaneval"
sys.path.insert(0, str(ROOT / "server"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

WARMUP_PER_CLIENT = 10


def load_pairs(data: Path, count: int) -> list[tuple[str, str]]:
    """(candidate, reference) pairs from HumanEval-Python, in file order."""
    pairs = []
    with gzip.open(data / "python.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            pairs.append((row["hyp"], row["ref"]))
            if len(pairs) >= count:
                break
    return pairs


def memory_kb(pid: int | str = "self") -> dict[str, int]:
    out = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(("VmHWM:", "VmRSS:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out


# -- worker processes -------------------------------------------------------------------------------


def worker(args: argparse.Namespace) -> int:
    from refscore.scoring.report import ScoreRequest

    pairs = load_pairs(Path(args.data), args.pairs_needed)
    n, k = args.requests, args.index
    mine = pairs[k * n:(k + 1) * n]
    warm = pairs[args.clients * n + k * WARMUP_PER_CLIENT:args.clients * n + (k + 1) * WARMUP_PER_CLIENT]

    def request(pair: tuple[str, str]) -> ScoreRequest:
        return ScoreRequest(pair[0], (pair[1],), "python", metrics=("codebertscore",))

    info: dict = {}
    started = time.perf_counter()
    if args.worker == "inproc":
        from refscore.scoring.scorer import LocalScorer
        from refscore.settings_schema import EncoderChoice

        if args.inproc_threads:
            import torch

            torch.set_num_threads(args.inproc_threads)

        scorer = LocalScorer(EncoderChoice(device=args.device))
        scorer.score(request(warm[0]))  # loads the model
        info["load_s"] = time.perf_counter() - started
    else:
        from refscore.service import DaemonClient

        scorer = DaemonClient(daemon_args=args.daemon_args.split())
        info["daemon_pid"] = scorer.connect()["pid"]
        # sent while the daemon loads its model: they must wait, not fail
        futures = [scorer.submit(request(p)) for p in warm]
        results = [f.result(timeout=600) for f in futures]
        info["warmup_failed"] = sum(1 for r in results if r.codebertscore is None or r.errors)
        info["warmup_s"] = time.perf_counter() - started
    print(json.dumps({"ready": True, **info}), flush=True)
    sys.stdin.readline()  # go
    t0 = time.time()
    f1, failed = [], 0
    for pair in mine:
        report = scorer.score(request(pair))
        if report.codebertscore is None or report.errors:
            failed += 1
            f1.append(None)
        else:
            f1.append(report.codebertscore.f1)
    t1 = time.time()
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"start": t0, "end": t1, "f1": f1, "failed": failed, "cpu_s": usage.ru_utime + usage.ru_stime,
                      **memory_kb()}), flush=True)
    return 0


def run_clients(mode: str, args: argparse.Namespace, env: dict[str, str]) -> list[dict]:
    cmd = [sys.executable, __file__, "--worker", mode, "--data", str(args.data), "--clients", str(args.clients),
           "--requests", str(args.requests), "--pairs-needed", str(args.pairs_needed)]
    if args.device:
        cmd += ["--device", args.device]
    if args.inproc_threads:
        cmd += ["--inproc-threads", str(args.inproc_threads)]
    if args.daemon_args:
        cmd += ["--daemon-args=" + args.daemon_args]
    procs = [subprocess.Popen(cmd + ["--index", str(k)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=env) for k in range(args.clients)]
    ready = [json.loads(p.stdout.readline()) for p in procs]
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    done = [json.loads(p.stdout.readline()) for p in procs]
    for p in procs:
        p.wait(timeout=60)
    return [{**r, **d} for r, d in zip(ready, done)]


def summarize(results: list[dict]) -> dict:
    total = sum(len(r["f1"]) for r in results)
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    return {"requests": total, "wall_s": round(wall, 2), "requests_per_s": round(total / wall, 1),
            "failed": sum(r["failed"] for r in results),
            "peak_rss_mb_each": [round(r["VmHWM"] / 1024) for r in results],
            "peak_rss_mb_sum": round(sum(r["VmHWM"] for r in results) / 1024),
            "cpu_s_each": [round(r["cpu_s"], 1) for r in results]}


def bench_inprocess(args: argparse.Namespace) -> tuple[dict, list]:
    env = {**os.environ, "REFSCORE_NO_DAEMON": "1"}
    results = run_clients("inproc", args, env)
    out = summarize(results)
    out["load_s_each"] = [round(r["load_s"], 1) for r in results]
    return out, [r["f1"] for r in results]


def fresh_daemon_env(root: Path, device: str | None) -> dict[str, str]:
    """The environment of a private daemon (runtime and log folders under ``root``)."""
    env = {**os.environ, "REFSCORE_RUNTIME_DIR": str(root / "run"), "REFSCORE_LOG_DIR": str(root / "log")}
    env.pop("REFSCORE_NO_DAEMON", None)
    if device:
        env["REFSCORE_DEVICE"] = device
    return env


def daemon_status(env: dict[str, str]) -> dict:
    out = subprocess.run([sys.executable, "-m", "refscore", "daemon", "status", "--json"], env=env,
                         capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)


def stop_daemon(env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "refscore", "daemon", "stop"], env=env, capture_output=True, timeout=60)


def bench_daemon(args: argparse.Namespace) -> tuple[dict, list]:
    root = Path(tempfile.mkdtemp(prefix="rsbench-"))
    env = fresh_daemon_env(root, args.device)
    try:
        results = run_clients("client", args, env)
        pids = {r["daemon_pid"] for r in results}
        pid = pids.pop()
        daemon_mem = memory_kb(pid)
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        daemon_cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        status = daemon_status(env)
        out = summarize(results)
        out.update({
            "daemons": 1 + len(pids),
            "daemon_peak_rss_mb": round(daemon_mem["VmHWM"] / 1024),
            "daemon_cpu_s": round(daemon_cpu, 1),
            "daemon_plus_clients_peak_rss_mb": round((daemon_mem["VmHWM"] + sum(r["VmHWM"] for r in results)) / 1024),
            "warmup_requests_sent_while_loading": WARMUP_PER_CLIENT * args.clients,
            "warmup_failed": sum(r["warmup_failed"] for r in results),
            "warmup_s_max": round(max(r["warmup_s"] for r in results), 1),
            "mean_batch_size": status.get("mean_batch_size"),
            "batches": status.get("batches"),
            "batch_seconds": status.get("batch_seconds"),
            "device": status.get("device"),
        })
        return out, [r["f1"] for r in results]
    finally:
        stop_daemon(env)
        shutil.rmtree(root, ignore_errors=True)


def bench_sweep(args: argparse.Namespace, sizes: list[int]) -> list[dict]:
    from refscore.scoring.report import ScoreRequest

    pairs = load_pairs(Path(args.data), args.sweep_requests)
    requests = [ScoreRequest(c, (r,), "python", metrics=("codebertscore",)) for c, r in pairs]
    rows = []
    for size in sizes:
        root = Path(tempfile.mkdtemp(prefix="rsbench-"))
        env = fresh_daemon_env(root, args.device)
        saved = dict(os.environ)
        os.environ.update(env)
        try:
            from refscore.service import DaemonClient

            argv = ["--max-batch", str(size), "--lanes", "1", "--preload", "--idle-timeout", "600"]
            if args.device:
                argv += ["--device", args.device]
            client = DaemonClient(daemon_args=argv, start_timeout=300)
            client.connect()
            client.score(ScoreRequest("x = 1", ("y = 2",), "python", metrics=("codebertscore",)))  # loaded
            start = time.perf_counter()
            reports = client.score_many(requests)
            elapsed = time.perf_counter() - start
            status = client.status()
            failed = sum(1 for r in reports if r.codebertscore is None)
            rows.append({"max_batch": size, "requests": len(requests), "seconds": round(elapsed, 2),
                         "requests_per_s": round(len(requests) / elapsed, 1),
                         "mean_batch_size": status.get("mean_batch_size"), "failed": failed,
                         "device": status.get("device")})
            client.shutdown()
        finally:
            os.environ.clear()
            os.environ.update(saved)
            shutil.rmtree(root, ignore_errors=True)
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--device", default=None)
    parser.add_argument("--rounds", type=int, default=1, help="repeat the pair of runs (order alternates)")
    parser.add_argument("--sweep", default="", help="comma-separated max batch sizes for the batching sweep")
    parser.add_argument("--sweep-requests", type=int, default=512)
    parser.add_argument("--skip-compare", action="store_true", help="only the sweep")
    parser.add_argument("--inproc-threads", type=int, default=0,
                        help="torch threads per in-process scorer (default: torch's own choice, all cores)")
    parser.add_argument("--daemon-args", default="", help="options for the daemon the clients start, e.g. '--lanes 2'")
    parser.add_argument("--only", choices=("inproc", "daemon"), help="run one side only (for quick checks)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--worker", choices=("inproc", "client"), help=argparse.SUPPRESS)
    parser.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--pairs-needed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    args.pairs_needed = args.clients * (args.requests + WARMUP_PER_CLIENT)
    out: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
                 "inproc_threads": args.inproc_threads or "default", "daemon_args": args.daemon_args,
                 "shape": f"{args.clients} clients x {args.requests} CodeBERTScore requests, one at a time"}
    if not args.skip_compare:
        out["rounds"] = []
        for round_no in range(args.rounds):
            order = ("inproc", "daemon") if round_no % 2 == 0 else ("daemon", "inproc")
            row: dict = {}
            scores: dict = {}
            for mode in order:
                if args.only and mode != args.only:
                    continue
                load_before = os.getloadavg()[0]
                row[mode], scores[mode] = bench_inprocess(args) if mode == "inproc" else bench_daemon(args)
                row[mode]["load_average_1min_before_after"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
                print(mode, json.dumps(row[mode]), flush=True)
            if args.only:
                out["rounds"].append(row)
                continue
            diffs = [abs(a - b) for xs, ys in zip(scores["inproc"], scores["daemon"]) for a, b in zip(xs, ys)
                     if a is not None and b is not None]
            row["max_f1_difference"] = max(diffs) if diffs else None
            row["throughput_ratio"] = round(row["daemon"]["requests_per_s"] / row["inproc"]["requests_per_s"], 2)
            row["memory_ratio_daemon_plus_clients"] = round(
                row["daemon"]["daemon_plus_clients_peak_rss_mb"] / row["inproc"]["peak_rss_mb_sum"], 3)
            row["memory_ratio_daemon_only"] = round(row["daemon"]["daemon_peak_rss_mb"] / row["inproc"]["peak_rss_mb_sum"], 3)
            print(json.dumps({k: row[k] for k in ("throughput_ratio", "memory_ratio_daemon_plus_clients",
                                                  "memory_ratio_daemon_only", "max_f1_difference")}), flush=True)
            out["rounds"].append(row)
    if args.sweep:
        out["sweep"] = bench_sweep(args, [int(s) for s in args.sweep.split(",")])
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
