"""Grading at scale: items/s of the local engine and of Ray with 1 and 2 worker nodes (CodeBLEU and
CodeBERTScore), and the peak memory of the local engine on a very large JSONL.

Usage: .venv/bin/python benchmarks/bench_scale.py [--items 3000] [--bert-items 300]
       [--data ../shared/data/humaneval/python.jsonl.gz] [--million 1000000 [--distinct 1000]]

Inputs are HumanEval-Python completions in the grade JSONL format with distinct ids. Every run is
the real command in a fresh process (``refscore grade ... --no-cache -q``), so the wall time
includes start-up and model loading; items/s is items / wall time. The Ray runs use a real local
cluster started with ``ray start`` (each node ``--num-cpus 1``): first a head alone, then the head
and a second worker node, in a private network and PID namespace with the drivers
(``tests/support/ray_namespace.py``: loopback is its only interface, and closing it stops the
cluster's processes and no others; never a machine-wide ``ray stop``). ``--million N`` writes N
lines (``--distinct`` rows repeated) and grades them with the local engine and ``--metrics
codebleu`` (it streams past 20,000 lines), reporting the command's peak RSS (``ru_maxrss`` of the
child).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.support.ray_namespace import RayNamespace, unavailable  # noqa: E402
DEFAULT_DATA = REPO.parent / "shared" / "data" / "humaneval" / "python.jsonl.gz"
RAY = Path(sys.executable).with_name("ray")


def write_items(source: Path, target: Path, count: int, distinct: int | None = None) -> int:
    """``count`` grade lines from the first ``distinct`` completions (repeated, distinct ids)."""
    rows = []
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        for line in fh:
            rows.append(json.loads(line))
            if len(rows) >= (distinct or count):
                break
    with open(target, "w", encoding="utf-8") as out:
        for n in range(count):
            row = rows[n % len(rows)]
            out.write(json.dumps({"id": f"he-{row['task_id']}-{row['completion_idx']}-{n}", "candidate": row["hyp"],
                                  "reference": row["ref"], "context": row["nl"], "language": "python"}) + "\n")
    return count


def grade(jsonl: Path, metrics: str, env: dict[str, str], *extra: str,
          inside: "RayNamespace | None" = None) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB of the command's process) of one ``refscore grade`` run;
    ``inside``: run it in that namespace (the RSS is then nsenter's, not reported)."""
    out = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    command = [sys.executable, "-m", "refscore", "grade", "--jsonl", str(jsonl), "--metrics", metrics,
               "-o", str(out), "--no-cache", "-q", *extra]
    if inside is not None:
        command = inside.command(command)
    with open(out / "stderr.txt", "w+", encoding="utf-8") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)  # this child's own rusage
        wall = time.perf_counter() - start
        err.seek(0)
        message = err.read().strip()
    shutil.rmtree(out, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"grade failed: {message}")
    return wall, usage.ru_maxrss / 1024


class Cluster:
    """A local Ray cluster of ``ray start`` nodes, one CPU each, in a namespace of its own; stopped
    (with the namespace, its processes only) on exit."""

    def __init__(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="rb", dir="/tmp")
        self.env = {**os.environ, "RAY_TMPDIR": self.tmp, "RAY_AUTH_MODE": "token",
                    "RAY_AUTH_TOKEN": secrets.token_hex(32), "HF_HUB_OFFLINE": "1"}
        self.env.pop("RAY_ADDRESS", None)
        self.address = "127.0.0.1:6379"  # the namespace's own loopback: the port is free there
        self.common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--object-store-memory",
                       "200000000", "--disable-usage-stats"]
        self.ns = RayNamespace()

    def __enter__(self) -> "Cluster":
        reason = unavailable()
        if reason:
            raise SystemExit(f"{reason} (or run with --skip-ray)")
        self.ns.__enter__()
        port = self.address.rsplit(":", 1)[1]
        subprocess.run(self.ns.command([str(RAY), "start", "--head", "--port", port, "--include-dashboard=false",
                                        *self.common]), env=self.env, check=True, capture_output=True)
        return self

    def add_worker(self) -> None:
        subprocess.run(self.ns.command([str(RAY), "start", "--address", self.address, *self.common]),
                       env=self.env, check=True, capture_output=True)
        time.sleep(3)  # the node registers

    def __exit__(self, *exc: object) -> None:
        self.ns.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=3000, help="CodeBLEU items (default 3000)")
    parser.add_argument("--bert-items", type=int, default=300, help="CodeBERTScore items (default 300)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--million", type=int, default=0, help="also grade this many lines locally (peak RSS)")
    parser.add_argument("--distinct", type=int, default=1000, help="distinct rows in the --million file")
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--only-million", action="store_true", help="skip the throughput table")
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    work = Path(tempfile.mkdtemp(prefix="bench-scale-in-"))
    try:
        runs = {"codebleu": (write_items(args.data, work / "cb.jsonl", args.items), work / "cb.jsonl"),
                "codebleu,codebertscore": (write_items(args.data, work / "bert.jsonl", args.bert_items),
                                           work / "bert.jsonl")}
        rows = []
        for metrics, (count, path) in ({} if args.only_million else runs).items():
            wall, rss = grade(path, metrics, env)
            rows.append(("local (in-memory)", metrics, count, wall, rss))
            wall, rss = grade(path, metrics, env, "--block-lines", "256")
            rows.append(("local (streaming)", metrics, count, wall, rss))
        if not (args.skip_ray or args.only_million):
            with Cluster() as cluster:
                for nodes in (1, 2):
                    if nodes == 2:
                        cluster.add_worker()
                    for metrics, (count, path) in runs.items():
                        wall, _ = grade(path, metrics, cluster.env, "--engine", "ray", "--ray-address",
                                        cluster.address, "--block-lines", "128", inside=cluster.ns)
                        rows.append((f"ray, {nodes} worker node(s)", metrics, count, wall, float("nan")))
        print("| engine | metrics | items | wall s | items/s | peak RSS MiB |")
        print("|---|---|---:|---:|---:|---:|")
        for engine, metrics, count, wall, rss in rows:
            print(f"| {engine} | {metrics} | {count} | {wall:.1f} | {count / wall:.1f} | "
                  + ("-" if rss != rss else f"{rss:.0f}") + " |", flush=True)
        if args.million:
            big = work / "million.jsonl"
            write_items(args.data, big, args.million, args.distinct)
            size = big.stat().st_size / 2**20
            wall, rss = grade(big, "codebleu", env)
            print(f"\n{args.million:,} lines ({size:,.0f} MiB, {args.distinct} distinct rows), local engine, "
                  f"--metrics codebleu: {wall:.0f} s, {args.million / wall:.0f} items/s, peak RSS {rss:.0f} MiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
