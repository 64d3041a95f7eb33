"""``refscore grade --engine ray`` on a real local Ray cluster (a head and a second worker node
started with ``ray start``): item-by-item equality with the local engine, JSONL.gz and Parquet
inputs, a worker killed mid-job, and a rerun after the driver was killed.

The cluster and every driver run in a private network, PID and mount namespace
(``tests/support/ray_namespace.py``): its only interface is loopback, so no Ray process of these
tests listens beyond it (a test reads the namespace's listening sockets), and stopping the cluster
stops only its own processes (the namespace is closed; never a machine-wide ``ray stop``)."""

from __future__ import annotations

import gzip
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import NamedTuple

import pytest

pytest.importorskip("ray")
pytest.importorskip("pyarrow")

from refscore.cli import main  # noqa: E402
from tests.support.ray_namespace import RayNamespace, loopback, unavailable  # noqa: E402
from tests.support.timing import hang_guard  # noqa: E402

#: How long a grade run on the test cluster, or the cluster's start, may take before it is a hang:
#: a minute or two on an idle machine, far longer beside stress-ng (scaled like every guard)
RUN_GUARD = hang_guard(900)
START_GUARD = hang_guard(600)

ROOT = Path(__file__).resolve().parents[2]
RAY = Path(sys.executable).with_name("ray")
TOLERANCE = 1e-6
pytestmark = pytest.mark.timeout(420)  # a shared 2-core machine under load: cluster start + CodeBERTScore


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RayCluster(NamedTuple):
    """A local cluster in its namespace: its address, the drivers' environment, the namespace."""

    address: str
    env: dict[str, str]
    ns: RayNamespace


@pytest.fixture(scope="module")
def cluster():
    """A head and one more worker node, one CPU and ~200 MB of object store each, in a private
    network and PID namespace (so the head's usual port is free in it)."""
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    tmp = tempfile.mkdtemp(prefix="rt", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = {**os.environ, "RAY_TMPDIR": tmp, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           "HF_HUB_OFFLINE": "1", "RAY_USAGE_STATS_ENABLED": "0",
           # the suite runs on two busy cores (pytest -n 2, a VS Code e2e beside): give a node a
           # minute of missed health checks before the head marks it dead (default 5 x 3 s)
           "RAY_health_check_failure_threshold": "20",
           # Ray's workers run at niceness 15 unless told: beside stress-ng they got next to no CPU
           # (a worker's start took over 5 minutes); the private cluster does the same
           "RAY_worker_niceness": "0"}
    env.pop("RAY_ADDRESS", None)
    port = 6379
    common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--object-store-memory", "200000000",
              "--disable-usage-stats"]
    try:
        with RayNamespace() as ns:
            subprocess.run(ns.command([str(RAY), "start", "--head", "--port", str(port), "--include-dashboard=false",
                                       *common]), env=env, check=True, capture_output=True, timeout=START_GUARD)
            subprocess.run(ns.command([str(RAY), "start", "--address", f"127.0.0.1:{port}", *common]),
                           env=env, check=True, capture_output=True, timeout=START_GUARD)
            yield RayCluster(f"127.0.0.1:{port}", env, ns)
    finally:  # closing the namespace stopped every process of the cluster, and only those
        shutil.rmtree(tmp, ignore_errors=True)


def _pairs() -> list[dict]:
    """Real pairs from the parity data (Go, Ruby), some with a task description."""
    rows = []
    for language in ("go", "ruby"):
        lines = (ROOT / "tests" / "data" / "parity" / f"{language}.jsonl").read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            pair = json.loads(line)
            row = {"id": pair["id"], "candidate": pair["candidate"], "reference": pair["reference"],
                   "language": language}
            if number % 3 == 0:
                row["context"] = f"Write {pair['id'].split('-', 2)[-1].replace('_', ' ')}."
            rows.append(row)
    rows[5]["id"] = rows[6]["id"] = rows[7]["id"]  # repeated ids get #2, #3
    del rows[9]["id"]  # no id: FILE:LINE
    return rows


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The JSONL (with bad lines), its gzip copy and a Parquet file of the valid rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = tmp_path_factory.mktemp("ray-inputs")
    rows = _pairs()
    lines = [json.dumps(r) for r in rows]
    lines[20:20] = ["not json", "", json.dumps({"id": "cobol", "candidate": "x", "reference": "y",
                                                "language": "cobol"}),
                    json.dumps({"id": "empty", "candidate": " ", "reference": "y", "language": "go"})]
    jsonl = root / "pairs.jsonl"
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    gz = root / "pairs.jsonl.gz"
    gz.write_bytes(gzip.compress(jsonl.read_bytes()))
    parquet = root / "more.parquet"
    table = pa.Table.from_pylist([{"id": f"pq-{i}", "candidate": r["candidate"], "reference": r["reference"],
                                   "context": r.get("context"), "language": r["language"]}
                                  for i, r in enumerate(rows[:40])])
    pq.write_table(table, parquet, row_group_size=16)
    return {"jsonl": jsonl, "gz": gz, "parquet": parquet, "items": len(lines) - 1}


@pytest.fixture(scope="module")
def local_both(inputs, tmp_path_factory):
    """The local engine's rows for the JSONL with both metrics (in this process, in memory)."""
    out = tmp_path_factory.mktemp("local-both")
    assert main(["grade", "--jsonl", str(inputs["jsonl"]), "-o", str(out), "-q", "--no-cache"]) == 0
    return json.loads((out / "grade.json").read_text(encoding="utf-8"))["submissions"]


def _cluster_logs(cluster) -> str:
    """The tails of the cluster's own logs (GCS, raylets): why a node died, for a failure message."""
    logs = Path(cluster[1]["RAY_TMPDIR"]) / "session_latest" / "logs"
    tails = []
    for path in sorted(logs.glob("gcs_server.*")) + sorted(logs.glob("raylet*.err")) + sorted(logs.glob("raylet*.out")):
        lines = [line for line in path.read_text(errors="replace").splitlines()
                 if path.suffix == ".err" or " E " in line or " W " in line or "Check failed" in line]
        if lines:
            tails.append(f"--- {path.name}\n" + "\n".join(lines[-12:]))
    return "\n".join(tails)


def _failed(cluster, done) -> str:
    """A failed run's message: its stderr, the tail of its stdout and the cluster's log tails."""
    return f"{done.stderr}{done.stdout[-2000:]}\n{_cluster_logs(cluster)}"


def _ray_grade(cluster, out: Path, *extra: str, wait: bool = True) -> subprocess.Popen | subprocess.CompletedProcess:
    address, env, ns = cluster
    command = ns.command([sys.executable, "-m", "refscore", "grade", "--engine", "ray", "--ray-address", address,
                          "-o", str(out), "-q", "--parquet", *extra])
    if wait:
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=RUN_GUARD)
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _same(expected: list[dict], got: list[dict], ignore: tuple[str, ...] = ("cached",)) -> float:
    """Every field of every item equal (floats to TOLERANCE), in the same order; the worst float gap."""
    assert [r["id"] for r in got] == [r["id"] for r in expected]
    assert len({r["id"] for r in got}) == len(got), "no duplicate items"
    worst = 0.0
    for want, have in zip(expected, got):
        assert set(have) == set(want)
        for key, value in want.items():
            if key in ignore:
                continue
            if isinstance(value, float) or isinstance(have[key], float):
                assert isinstance(value, float) and isinstance(have[key], float), (want["id"], key)
                worst = max(worst, abs(value - have[key]))
                assert abs(value - have[key]) <= TOLERANCE, (want["id"], key, value, have[key])
            else:
                assert have[key] == value, (want["id"], key)
    return worst


def test_ray_engine_gives_the_local_numbers_item_by_item(cluster, inputs, local_both, tmp_path):
    done = _ray_grade(cluster, tmp_path, "--jsonl", str(inputs["jsonl"]), "--block-lines", "16")
    assert done.returncode == 0, _failed(cluster, done)
    assert "Traceback" not in done.stderr
    rows = _rows(tmp_path / "grade.jsonl")
    assert len(rows) == inputs["items"]
    _same(local_both, rows)
    assert any(r["id"].endswith("#3") for r in rows) and any(r["errors"] for r in rows)
    report = json.loads((tmp_path / "grade.json").read_text(encoding="utf-8"))
    assert report["settings"]["engine"] == "ray" and report["settings"]["scored_now"] == len(rows)
    _same(local_both, report["submissions"])
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "grade.parquet")
    assert table.column("id").to_pylist() == [r["id"] for r in rows]
    assert table.column("codebleu_native").to_pylist() == [r["codebleu_native"] for r in rows]
    html = (tmp_path / "grade.html").read_text(encoding="utf-8")  # a small run: every submission's detail
    assert 'id="results"' in html and html.count("<details") == len(rows) and "<svg" in html
    csv_lines = (tmp_path / "grade.csv").read_text(encoding="utf-8").splitlines()
    assert len(csv_lines) == len(rows) + 1


def test_gzip_and_parquet_inputs_match_the_local_engine(cluster, inputs, tmp_path):
    args = ["--jsonl", str(inputs["gz"]), "--jsonl", str(inputs["parquet"]), "--metrics", "codebleu"]
    assert main(["grade", *args, "-o", str(tmp_path / "local"), "-q", "--no-cache"]) == 0
    expected = json.loads((tmp_path / "local" / "grade.json").read_text(encoding="utf-8"))["submissions"]
    done = _ray_grade(cluster, tmp_path / "ray", *args, "--block-lines", "10")
    assert done.returncode == 0, _failed(cluster, done)
    got = _rows(tmp_path / "ray" / "grade.jsonl")
    _same(expected, got)
    assert any(r["source"] == "more.parquet:40" for r in got) and any(r["source"].startswith("pairs.jsonl.gz:")
                                                                      for r in got)


def _parts(out: Path) -> list[Path]:
    folder = out / "grade.parts" / "parts"
    return sorted(folder.glob("b*.jsonl")) if folder.is_dir() else []


def _wait_for_parts(process: subprocess.Popen, out: Path, count: int, timeout: float = RUN_GUARD) -> None:
    deadline = time.monotonic() + timeout
    while len(_parts(out)) < count:
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "no part written in time"
        time.sleep(0.1)


def _model_actors() -> list[int]:
    """Pids of the processes running the CodeBERTScore actors (Ray names them after the class)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"JobBertStage" in cmdline:
                found.append(int(entry.name))
    return found


def test_a_worker_killed_mid_job_loses_and_doubles_nothing(cluster, inputs, local_both, tmp_path):
    process = _ray_grade(cluster, tmp_path, "--jsonl", str(inputs["jsonl"]), "--block-lines", "6", wait=False)
    try:
        _wait_for_parts(process, tmp_path, 2)
        victims = _model_actors()
        assert victims, "the model's actors run while parts are written"
        assert len(_parts(tmp_path)) < -(-inputs["items"] // 6), "killed mid-job"
        os.kill(victims[0], signal.SIGKILL)
        _, err = process.communicate(timeout=RUN_GUARD)
    finally:
        process.kill()
    assert process.returncode == 0, err
    _same(local_both, _rows(tmp_path / "grade.jsonl"))


def test_a_rerun_after_the_driver_was_killed_scores_only_the_missing_items(cluster, inputs, local_both, tmp_path):
    process = _ray_grade(cluster, tmp_path, "--jsonl", str(inputs["jsonl"]), "--block-lines", "6", wait=False)
    try:
        _wait_for_parts(process, tmp_path, 3)
        for pid in cluster.ns.inner_pids(process):  # the driver, inside the namespace
            os.kill(pid, signal.SIGKILL)
        process.communicate(timeout=60)
    finally:
        process.kill()
    assert not (tmp_path / "grade.jsonl").exists()
    scored_before = sum(int(p.stem.rsplit("-", 1)[1]) for p in _parts(tmp_path))
    assert 0 < scored_before < inputs["items"]
    done = _ray_grade(cluster, tmp_path, "--jsonl", str(inputs["jsonl"]), "--block-lines", "6")
    assert done.returncode == 0, _failed(cluster, done)
    settings = json.loads((tmp_path / "grade.json").read_text(encoding="utf-8"))["settings"]
    assert settings["from_cache"] >= scored_before
    assert settings["scored_now"] == inputs["items"] - settings["from_cache"]
    rows = _rows(tmp_path / "grade.jsonl")
    _same(local_both, rows)
    assert any(r["cached"] for r in rows) and not all(r["cached"] for r in rows)


def test_ray_writes_the_one_block_reports_with_every_feature(cluster, tmp_path):
    """Per-function scores, CrystalBLEU (its corpus from pass one) and the threshold on Ray: the
    same report files as the in-process run of one block."""
    from tests.grade.test_grade_one_path import humaneval_rows, write_jsonl

    source = write_jsonl(tmp_path / "he.jsonl", humaneval_rows(60))
    args = ["--jsonl", str(source), "--metrics", "codebleu,chrf,crystalbleu", "--per-function", "--fail-under", "0"]
    # one of the 60 does not parse, so it never passes the threshold: exit 1 on both engines
    assert main(["grade", *args, "-o", str(tmp_path / "local"), "-q", "--no-cache", "--parquet"]) == 1
    done = _ray_grade(cluster, tmp_path / "ray", *args, "--block-lines", "25")
    assert done.returncode == 1, _failed(cluster, done)
    assert sorted(p.name for p in (tmp_path / "ray").iterdir() if p.is_file()) == \
        sorted(p.name for p in (tmp_path / "local").iterdir())
    expected = _rows(tmp_path / "local" / "grade.jsonl")
    got = _rows(tmp_path / "ray" / "grade.jsonl")
    _same(expected, got)
    assert all(r["functions"] and isinstance(r["crystalbleu"], float) for r in got)
    assert "does not parse" in done.stdout + done.stderr


def _moodle_class(root: Path) -> list[str]:
    """A Moodle zip of four students (two hand in the same code), two problems in a mapping, a
    roster naming one more student and a rubric: the arguments that grade it."""
    (root / "refs").mkdir()
    (root / "refs" / "add.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "refs" / "mean.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    work = {"Ada Lovelace": ("def add(x, y):\n    return x + y\n", "def mean(v):\n    return sum(v) / len(v)\n"),
            "Alan Turing": ("def add(a, b):\n    s = a\n    s += b\n    return s\n",
                            "def mean(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t / len(xs)\n"),
            "Grace Hopper": ("def add(p, q):\n    return p + q\n", "def mean(values):\n    return sum(values)\n"),
            "Edsger Dijkstra": ("def add(x, y):\n    return x + y\n",
                                "def mean(v):\n    return sum(v) / len(v)\n")}
    with zipfile.ZipFile(root / "week1.zip", "w") as archive:
        for number, (name, (add, mean)) in enumerate(work.items()):
            archive.writestr(f"{name}_{1000 + number}_assignsubmission_file_/add.py", add)
            archive.writestr(f"{name}_{1000 + number}_assignsubmission_file_/mean.py", mean)
    (root / "roster.csv").write_text("name\n" + "".join(f"{n}\n" for n in [*work, "Barbara Liskov"]))
    (root / "rubric.toml").write_text('fallback = "codebleu"\npoints = 10\nbands = { ">= 0.5" = 10, "> 0.0" = 4 }\n')
    (root / "week1.toml").write_text("".join(f'[[problem]]\nname = "{p}"\nreference = "refs/{p}.py"\n'
                                             f'submissions = ["week1.zip"]\npattern = "{p}.py"\n\n'
                                             for p in ("add", "mean")))
    return ["--mapping", str(root / "week1.toml"), "--metrics", "codebleu", "--roster", str(root / "roster.csv"),
            "--rubric", str(root / "rubric.toml"), "--similarity", "--feedback", str(root / "{out}" / "feedback"),
            "--points", str(root / "{out}" / "points.csv")]


def test_a_class_with_every_classroom_output_on_ray_is_the_local_run(cluster, tmp_path):
    """Classes, a mapping, a roster, rubric points, feedback pages and the similarity report on
    Ray: every file the same as the in-process run's (only the scoring step is the engine's)."""
    args = _moodle_class(tmp_path)
    local = [a.replace("{out}", "local") for a in args]
    assert main(["grade", *local, "-o", str(tmp_path / "local"), "-q", "--no-cache", "--parquet"]) == 0
    done = _ray_grade(cluster, tmp_path / "ray", *[a.replace("{out}", "ray") for a in args], "--block-lines", "3")
    assert done.returncode == 0, _failed(cluster, done)
    assert "Traceback" not in done.stderr
    files = sorted(p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "ray") for p in (tmp_path / "ray").rglob("*")
                           if p.is_file() and "grade.parts" not in p.parts)
    _same(_rows(tmp_path / "local" / "grade.jsonl"), _rows(tmp_path / "ray" / "grade.jsonl"))
    assert len([f for f in files if f.parts[0] == "feedback"]) >= 8  # HTML and Markdown per student
    for same in ("points.csv", "similarity.json", "similarity.csv", *(str(f) for f in files if f.parts[0] == "feedback")):
        assert (tmp_path / "ray" / same).read_bytes() == (tmp_path / "local" / same).read_bytes(), same
    report = json.loads((tmp_path / "ray" / "grade.json").read_text(encoding="utf-8"))
    assert report["settings"]["engine"] == "ray" and report["settings"]["classes"][0]["missing_students"]
    assert report["settings"]["similarity"]["flagged_pairs"] >= 1
    page = (tmp_path / "ray" / "grade.html").read_text(encoding="utf-8")
    assert 'class="students"' in page and "Barbara Liskov" in page


def test_standard_input_on_ray_is_the_local_run(cluster, inputs, tmp_path):
    """``--jsonl -``: the stream is kept in the parts folder's ``input/``, where the workers read."""
    stream = inputs["jsonl"].read_bytes()
    args = ["--jsonl", "-", "--metrics", "codebleu", "-q", "--parquet"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    local = subprocess.run([sys.executable, "-m", "refscore", "grade", *args, "-o", str(tmp_path / "local"),
                            "--no-cache"], input=stream, env=env, capture_output=True, timeout=RUN_GUARD)
    assert local.returncode == 0, local.stderr
    address, ray_env, ns = cluster
    done = subprocess.run(ns.command([sys.executable, "-m", "refscore", "grade", "--engine", "ray", "--ray-address",
                                      address, *args, "-o", str(tmp_path / "ray"), "--block-lines", "16"]),
                          input=stream, env=ray_env, capture_output=True, timeout=RUN_GUARD)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    _same(_rows(tmp_path / "local" / "grade.jsonl"), _rows(tmp_path / "ray" / "grade.jsonl"))
    spooled = tmp_path / "ray" / "grade.parts" / "input"
    assert spooled.is_dir() and not list(spooled.glob("refscore-stdin-*"))  # kept there for the run, then removed


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
def test_behaviour_on_ray_gives_the_local_engines_numbers(cluster, tmp_path):
    """The behaviour stage in Ray's CPU tasks: the same behaviour columns as the in-process run of
    the same class from files (tests/grade/test_grade_behaviour.py grades it on every other engine), and
    the counter-examples on the HTML page."""
    from tests.support.behaviour_class import behaviour_by_name, write_files, write_jsonl

    reference, subs = write_files(tmp_path / "class")
    metrics = ["--metrics", "codebleu,behaviour"]
    assert main(["grade", "-r", str(reference), str(subs), *metrics, "-o", str(tmp_path / "local"), "-q",
                 "--no-cache"]) == 0
    expected = behaviour_by_name(json.loads((tmp_path / "local" / "grade.json").read_text(encoding="utf-8"))
                                 ["submissions"])
    done = _ray_grade(cluster, tmp_path / "ray", "--jsonl", str(write_jsonl(tmp_path / "class.jsonl")), *metrics,
                      "--block-lines", "2")
    assert done.returncode == 0, _failed(cluster, done)
    got = _rows(tmp_path / "ray" / "grade.jsonl")
    assert behaviour_by_name(got) == expected
    assert 1.0 == expected["correct"][0] > expected["partial"][0] > expected["wrong"][0]
    html = (tmp_path / "ray" / "grade.html").read_text(encoding="utf-8")
    assert 'class="behaviour counter-examples"' in html


def test_an_unreachable_cluster_is_one_line(tmp_path, inputs, capsys):
    code = main(["grade", "--engine", "ray", "--ray-address", f"127.0.0.1:{_free_port()}",
                 "--jsonl", str(inputs["jsonl"]), "-o", str(tmp_path), "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 5 and len(err) == 1 and "cannot connect to the Ray cluster" in err[0]


def test_grade_dataset_from_python(cluster, inputs, tmp_path):
    address, env, ns = cluster
    script = ("import sys, json; from refscore.grade.dataset import grade_dataset; "
              "done = grade_dataset([sys.argv[1]], sys.argv[2], metrics=('codebleu',), address=sys.argv[3], "
              "block_lines=8); print(json.dumps(done.stats.summary()))")
    done = subprocess.run(ns.command([sys.executable, "-c", script, str(inputs["parquet"]), str(tmp_path), address]),
                          env=env, capture_output=True, text=True, timeout=RUN_GUARD)
    assert done.returncode == 0, _failed(cluster, done)
    assert json.loads(done.stdout.strip().splitlines()[-1])["submissions"] == 40
    assert main(["grade", "--jsonl", str(inputs["parquet"]), "--metrics", "codebleu", "-o", str(tmp_path / "local"),
                 "-q", "--no-cache"]) == 0
    expected = json.loads((tmp_path / "local" / "grade.json").read_text(encoding="utf-8"))["submissions"]
    _same(expected, _rows(tmp_path / "grade.jsonl"))
    assert (tmp_path / "grade.parquet").exists() and (tmp_path / "grade.html").exists()


def test_eval_on_ray_gives_the_local_tables(cluster, tmp_path):
    from refscore.eval.data import default_data_dir

    data = Path(os.environ.get("REFSCORE_EVAL_DATA", default_data_dir()))
    if not (data / "humaneval").is_dir():
        pytest.skip("no ../shared/data")
    args = ["eval", "--data", str(data), "--languages", "python,js", "--sample", "2",
            "--metrics", "codebleu,chrf,cbs", "--cbs-languages", "js", "--layers", "6", "--contexts", "none"]
    assert main([*args, "--out", str(tmp_path / "local.json")]) == 0
    address, env, ns = cluster
    done = subprocess.run(ns.command([sys.executable, "-m", "refscore", *args, "--engine", "ray", "--ray-address",
                                      address, "--out", str(tmp_path / "ray.json")]), env=env, capture_output=True, text=True, timeout=RUN_GUARD)
    assert done.returncode == 0, _failed(cluster, done)
    local, ray = (json.loads((tmp_path / f"{n}.json").read_text(encoding="utf-8")) for n in ("local", "ray"))
    assert ray["settings"]["engine"] == "ray" and ray["counts"] == local["counts"]
    for dataset, metrics in local["agreement"].items():
        for metric, stats in metrics.items():
            for key, value in stats.items():
                got = ray["agreement"][dataset][metric][key]
                assert got == pytest.approx(value, abs=1e-6), (dataset, metric, key)


def test_no_ray_process_of_the_suite_listens_beyond_loopback(cluster, inputs, tmp_path):
    """Every socket the cluster listens on, while a job runs (the drivers' and workers' too), is on
    loopback, in a namespace whose only interface is loopback."""
    process = _ray_grade(cluster, tmp_path, "--jsonl", str(inputs["jsonl"]), "--block-lines", "6", wait=False)
    try:
        _wait_for_parts(process, tmp_path, 1)
        listening = cluster.ns.listeners()
        interfaces = cluster.ns.interfaces()
        _, err = process.communicate(timeout=RUN_GUARD)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert interfaces == ["lo"]
    assert len(listening) >= 4, listening  # two GCS/raylet pairs at least
    assert [a for a in listening if not loopback(a)] == []
