"""``--engine ray`` without ``--ray-address`` starts a private Ray cluster whose servers listen on
127.0.0.1 only, with no dashboard, and says where it is (issue 25, item 16); it is new whatever
Ray's record of the machine's last cluster says, and stops (its own processes, its folder) when
the run ends (issue 46, item 2). Real Ray, in a child process of its own (``ray.init`` once per
process); skipped where Ray is not installed."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.ray_namespace import loopback
from tests.support.timing import hang_guard

pytest.importorskip("ray")
pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parents[2]

# Runs in the child: connect, then every TCP socket listening in this process and its descendants
# (GCS, raylet, workers), read from /proc.
CHILD = r'''
import json, os, sys
from refscore.scale.cluster import connect

cluster = connect(None)


def descendants(root):
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, todo = {root}, [root]
    while todo:
        pid = todo.pop()
        for child, parent in parents.items():
            if parent == pid and child not in out:
                out.add(child)
                todo.append(child)
    return out


inodes = set()
for pid in descendants(os.getpid()):
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    except OSError:
        continue
listening = []
for table in ("tcp", "tcp6"):
    for line in open(f"/proc/net/{table}").read().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
            listening.append(fields[1])
import ray
folder = ray._private.worker.global_worker.node.get_temp_dir_path()
worker_nice = ray.get(ray.remote(lambda: os.nice(0)).remote())
print(json.dumps({"address": cluster.address, "listening": listening, "folder": folder, "worker_nice": worker_nice,
                  "pids": sorted(descendants(os.getpid()) - {os.getpid()})}))
# no ray.shutdown() here: the cluster must stop when this process exits
'''


def _alive(pid: int) -> bool:
    """``pid`` runs (not a zombie) and is a Ray process (a reused pid would be something else)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return state != "Z" and (b"ray" in cmdline.lower() or b"raylet" in cmdline or b"gcs_server" in cmdline)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_private_cluster_listens_on_loopback_only_and_says_where(tmp_path: Path) -> None:
    """Also: a stale record of the machine's last cluster (``ray_current_cluster`` naming a port
    nothing listens on) is never read (``ray.init(address=None)`` would wait on it for minutes:
    the run would time out), and when the run ends every process of the private cluster is gone
    with its folder."""
    tmp = tempfile.mkdtemp(prefix="rp", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "RAY_TMPDIR": tmp, "RAY_USAGE_STATS_ENABLED": "0",
           "HF_HUB_OFFLINE": "1"}
    env.pop("RAY_ADDRESS", None)
    (Path(tmp) / "ray").mkdir()
    (Path(tmp) / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{_closed_port()}")
    try:
        run = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=hang_guard(900),
                             stdin=subprocess.DEVNULL)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert not result["folder"].startswith(tmp), result["folder"]  # a folder of its own
    assert not Path(result["folder"]).exists(), "the private cluster's folder is removed"
    assert result["pids"] and not [p for p in result["pids"] if _alive(p)], "its processes stop with the run"
    assert result["listening"], result  # the GCS and the raylet at least
    assert all(loopback(a) for a in result["listening"]), result["listening"]
    assert result["address"].startswith("127.0.0.1:"), result
    assert result["worker_nice"] == 0, "the workers are the job: not at Ray's niceness 15"
    assert f"started a private Ray cluster on this machine at {result['address']}" in run.stderr
    assert "no dashboard" in run.stderr
    assert not any(a.endswith(":2049") for a in result["listening"])  # 8265, the dashboard's port


def test_auto_with_a_stale_record_is_one_line_in_seconds(tmp_path: Path, monkeypatch) -> None:
    """``--ray-address auto`` reads Ray's record of the last cluster: a stale one (nothing listens
    on its port) is refused by the probe, not waited on by ``ray.init`` for minutes."""
    from refscore.scale.cluster import RayUnavailable, connect

    (tmp_path / "ray").mkdir()
    address = f"127.0.0.1:{_closed_port()}"
    (tmp_path / "ray" / "ray_current_cluster").write_text(address)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with pytest.raises(RayUnavailable) as caught:
        connect("auto")
    message = str(caught.value)
    assert "cannot connect to the Ray cluster at" in message and "\n" not in message
    assert address.rsplit(":", 1)[1] in message


def _holding(folder: str) -> list[int]:
    """Pids of live processes whose command line names ``folder`` (Ray's servers and workers do)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if folder.encode() in (entry / "cmdline").read_bytes() and _alive(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_grade_on_a_private_cluster_ignores_a_stale_record_and_leaves_nothing(tmp_path: Path) -> None:
    """``refscore grade --engine ray`` without an address, end to end: the run is scored on a new
    private cluster (Ray's stale record of a last cluster beside it), says where its files are,
    and when the command exits no process of that cluster is left, nor its folder."""
    import re

    tmp = tempfile.mkdtemp(prefix="rg", dir="/tmp")
    (Path(tmp) / "ray").mkdir()
    (Path(tmp) / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{_closed_port()}")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "RAY_TMPDIR": tmp, "RAY_USAGE_STATS_ENABLED": "0",
           "HF_HUB_OFFLINE": "1"}
    env.pop("RAY_ADDRESS", None)
    rows = [{"id": f"p{i}", "candidate": f"def f(x):\n    return x + {i}\n", "reference": "def f(a):\n    return a + 1\n",
             "language": "python"} for i in range(6)]
    source = tmp_path / "pairs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    try:
        run = subprocess.run([sys.executable, "-m", "refscore", "grade", "--engine", "ray", "--jsonl", str(source),
                              "--metrics", "codebleu", "-o", str(tmp_path / "out"), "-q", "--no-cache"],
                             env=env, capture_output=True, text=True, timeout=hang_guard(900), stdin=subprocess.DEVNULL)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-3000:]
    graded = [json.loads(line) for line in (tmp_path / "out" / "grade.jsonl").read_text().splitlines()]
    assert [r["id"] for r in graded] == [r["id"] for r in rows] and all(r["codebleu_native"] is not None for r in graded)
    found = re.search(r"started a private Ray cluster on this machine at 127\.0\.0\.1:\d+ \(loopback only, "
                      r"no dashboard, files in (/\S+)\)", run.stderr)
    assert found, run.stderr
    folder = found.group(1)
    assert not folder.startswith(tmp) and not Path(folder).exists()
    assert _holding(folder) == []


@pytest.mark.parametrize("reply", [b"", b"HTTP/1.1 400 Bad Request\r\n\r\n"])
def test_an_address_where_something_else_listens_is_one_line_in_seconds(reply: bytes) -> None:
    """A port that accepts connections but is no Ray head (silent, or another protocol): Ray's own
    connect waited there for minutes without a word; the probe says so within its 5 seconds."""
    import threading

    from refscore.scale.cluster import RayUnavailable, connect

    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def answer() -> None:
        conn, _ = server.accept()
        held.append(conn)
        if reply:
            conn.sendall(reply)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    address = f"127.0.0.1:{server.getsockname()[1]}"
    try:
        with pytest.raises(RayUnavailable) as caught:
            connect(address)
    finally:
        server.close()
        for conn in held:
            conn.close()
    message = str(caught.value)
    assert message.startswith(f"cannot connect to the Ray cluster at {address}: ") and "\n" not in message
    assert ("no answer within 5 s" if not reply else "not a Ray head") in message


def test_a_killed_driver_takes_its_private_cluster_with_it() -> None:
    """SIGKILL leaves no exit hook to run: Ray ties the private cluster's processes to the driver,
    so they stop too (the folder stays; docs/scale.md says so)."""
    import re
    import signal
    import time

    env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "RAY_USAGE_STATS_ENABLED": "0", "HF_HUB_OFFLINE": "1"}
    env.pop("RAY_ADDRESS", None)
    child = subprocess.Popen([sys.executable, "-c", "from refscore.scale.cluster import connect; connect(None); "
                              "import time; time.sleep(600)"], env=env, stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL)
    try:
        line = child.stderr.readline() if child.stderr else ""
        found = re.search(r"files in (/\S+)\)", line)
        assert found, line
        folder = found.group(1)
        assert _holding(folder), "the cluster runs"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    deadline = time.monotonic() + 120  # a guard only: the processes go as soon as they see the driver gone
    while _holding(folder):
        assert time.monotonic() < deadline, _holding(folder)
        time.sleep(0.2)
    shutil.rmtree(folder, ignore_errors=True)
