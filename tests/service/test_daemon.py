"""The scoring daemon, tested with real processes and real sockets.

Each test gets its own runtime and log directory (short paths: a Unix socket path must fit in
~100 bytes) and stops whatever daemon it started there. Clients are either this test process
(``DaemonClient``, with the environment patched) or fresh interpreters.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from refscore.scoring.headline import headline_model
from refscore.scoring.pipeline import corpus_statistics, prepare
from refscore.scoring.report import ScoreRequest
from refscore.scoring.scorer import LocalScorer
from refscore.service import DaemonClient, DaemonConnectionLost, DaemonUnavailable, RemoteError, RequestCancelled
from refscore.service import wire
from tests.support.daemons import alive, daemon_pids_in, python, refscore, stop_daemon_in, wait_until
from tests.support.timing import hang_guard

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
REFERENCE = (EXAMPLES / "python/reference.py").read_text()
CANDIDATE = (EXAMPLES / "python/candidate_close.py").read_text()
CONNECT_AND_PRINT_PID = (
    "from refscore.service import DaemonClient\n"
    "c = DaemonClient()\n"
    "print(c.connect()['pid'])\n"
)


def big_python(n: int, seed: int) -> str:
    """A Python file whose CodeBLEU takes about a second per 500 functions."""
    return "\n".join(f"def f{seed}_{i}(a, b):\n    x = a + b * {i}\n    if x > {i}:\n        return x - a\n    return b\n"
                     for i in range(n))


class Place:
    """A private runtime + log directory and the environment that points at it."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.run = root / "run"
        self.log = root / "log"
        monkeypatch.setenv("REFSCORE_RUNTIME_DIR", str(self.run))
        monkeypatch.setenv("REFSCORE_LOG_DIR", str(self.log))
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        for name in ("REFSCORE_DAEMON_IDLE", "REFSCORE_DAEMON_TRANSPORT", "REFSCORE_NO_DAEMON"):
            monkeypatch.delenv(name, raising=False)
        self.env = dict(os.environ)

    @property
    def socket(self) -> Path:
        return self.run / "daemon.sock"

    def info(self) -> dict:
        return json.loads((self.run / "daemon.json").read_text())

    def log_text(self) -> str:
        return "".join(p.read_text(errors="replace") for p in sorted(self.log.glob("daemon.log*")))


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch):
    root = Path(tempfile.mkdtemp(prefix="rsd-"))
    spot = Place(root, monkeypatch)
    yield spot
    stop_daemon_in(spot.run)
    shutil.rmtree(root, ignore_errors=True)


def codebleu_request(candidate: str = CANDIDATE, reference: str = REFERENCE, language: str = "python") -> ScoreRequest:
    return ScoreRequest(candidate, (reference,), language, metrics=("codebleu",))


def raw_connect(place: Place) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(place.socket))
    return sock


def read_reply(sock: socket.socket) -> dict | None:
    stream = sock.makefile("rb")
    return wire.read_message(stream)


# -- start, reuse, stop ----------------------------------------------------------------------------


def test_auto_start_then_reuse_by_a_second_client(place: Place) -> None:
    assert not place.socket.exists()
    first = python(CONNECT_AND_PRINT_PID, place.env)
    assert first.returncode == 0, first.stderr
    pid = int(first.stdout)
    assert alive(pid)
    second = python(CONNECT_AND_PRINT_PID, place.env)
    assert second.returncode == 0, second.stderr
    assert int(second.stdout) == pid  # reused, not a second daemon
    assert daemon_pids_in(place.run) == [pid]
    # the CLI uses the running daemon (CodeBLEU only: it would not start one for that)
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(EXAMPLES / "python/candidate_close.py"),
                      "--metrics", "codebleu", "--json", env=place.env)
    assert result.returncode == 0, result.stderr
    with DaemonClient(autostart=False) as client:
        assert client.status()["requests"]["served"] == 1


def test_socket_and_files_are_private(place: Place) -> None:
    with DaemonClient() as client:
        client.connect()
    assert stat.S_IMODE(place.run.stat().st_mode) == 0o700
    assert stat.S_ISSOCK(place.socket.stat().st_mode)
    assert stat.S_IMODE(place.socket.stat().st_mode) == 0o600
    assert stat.S_IMODE((place.run / "daemon.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((place.run / "daemon.lock").stat().st_mode) == 0o600


def test_a_too_open_runtime_dir_is_tightened(place: Place) -> None:
    place.run.mkdir(mode=0o755, parents=True)
    os.chmod(place.run, 0o755)
    with DaemonClient() as client:
        client.connect()
    assert stat.S_IMODE(place.run.stat().st_mode) == 0o700


def test_tcp_transport_needs_the_token(place: Place, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFSCORE_DAEMON_TRANSPORT", "tcp")
    with DaemonClient() as client:
        info = client.connect()
        assert info["transport"] == "tcp"
        assert client.score(codebleu_request()).codebleu is not None
    assert not place.socket.exists()
    data = place.info()
    assert stat.S_IMODE((place.run / "daemon.json").stat().st_mode) == 0o600
    host, port = data["address"].rsplit(":", 1)
    assert host == "127.0.0.1" and len(data["token"]) >= 32
    for params in ({"version": "9"}, {"version": "9", "token": "wrong"}):
        sock = socket.create_connection((host, int(port)), timeout=10)
        stream = sock.makefile("rb")
        sock.sendall(wire.encode(wire.request(1, "status", {})))  # before initialize: refused
        assert wire.read_message(stream)["error"]["code"] == wire.UNAUTHORIZED
        sock.sendall(wire.encode(wire.request(2, "initialize", params)))
        assert wire.read_message(stream)["error"]["code"] == wire.UNAUTHORIZED
        stream.close()
        sock.close()


def test_idle_exit(place: Place, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFSCORE_DAEMON_IDLE", "1")
    with DaemonClient() as client:
        pid = client.connect()["pid"]
        client.score(codebleu_request())
        status = client.status()
        assert status["idle_timeout_s"] == 1
    assert wait_until(lambda: not alive(pid), timeout=hang_guard())
    assert not place.socket.exists()
    assert not (place.run / "daemon.json").exists()
    assert "idle for" in place.log_text()


def test_a_client_outlives_an_idle_exit(place: Place, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFSCORE_DAEMON_IDLE", "1")
    client = DaemonClient()
    pid = client.connect()["pid"]
    assert wait_until(lambda: not alive(pid), timeout=hang_guard())
    assert client.score(codebleu_request()).codebleu is not None  # reconnects to a fresh daemon
    assert client.daemon_pid not in (None, pid)
    client.close()


def test_stop_and_status_commands(place: Place) -> None:
    assert refscore("daemon", "status", env=place.env).returncode == 1
    started = refscore("daemon", "start", "--no-preload", "--idle-timeout", "120", env=place.env)
    assert started.returncode == 0, started.stderr
    assert "started" in started.stdout
    again = refscore("daemon", "start", "--no-preload", env=place.env)
    assert "already running" in again.stdout
    pid = place.info()["pid"]
    status = refscore("daemon", "status", env=place.env)
    assert status.returncode == 0, status.stderr
    for label in ("pid", "uptime", "device", "models", "caches", "queue", "requests", "mean batch size", "log"):
        assert label in status.stdout
    assert str(pid) in status.stdout and "exits after 2m 0s idle" in status.stdout
    data = json.loads(refscore("daemon", "status", "--json", env=place.env).stdout)
    assert data["running"] and data["pid"] == pid and data["idle_timeout_s"] == 120
    for key in ("uptime_s", "device", "models", "caches", "queue", "requests", "mean_batch_size"):
        assert key in data
    stopped = refscore("daemon", "stop", env=place.env)
    assert stopped.returncode == 0 and f"stopped (pid {pid})" in stopped.stdout
    assert not alive(pid) and not place.socket.exists()
    assert "not running" in refscore("daemon", "stop", env=place.env).stdout
    assert (place.log / "daemon.log").exists()


# -- races and recovery ----------------------------------------------------------------------------


def test_concurrent_start_race_ends_with_one_daemon(place: Place) -> None:
    clients = [subprocess.Popen([sys.executable, "-c", CONNECT_AND_PRINT_PID], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=place.env) for _ in range(8)]
    outputs = [c.communicate(timeout=120) for c in clients]
    assert all(c.returncode == 0 for c in clients), [err for _, err in outputs]
    pids = {int(out) for out, _ in outputs}
    assert len(pids) == 1
    assert daemon_pids_in(place.run) == sorted(pids)


def test_daemons_racing_for_the_lock_leave_one(place: Place) -> None:
    """Without the clients' start lock: daemons started at once agree through daemon.lock."""
    procs = [subprocess.Popen([sys.executable, "-m", "refscore", "daemon", "run"], env=place.env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(5)]
    assert wait_until(lambda: sum(p.poll() is not None for p in procs) == 4)
    losers = [p.returncode for p in procs if p.poll() is not None]
    assert losers == [wire.EXIT_ALREADY_RUNNING] * 4
    winner = next(p for p in procs if p.poll() is None)
    assert wait_until(lambda: place.socket.exists())
    with DaemonClient(autostart=False) as client:
        assert client.connect()["pid"] == winner.pid
        client.shutdown()
    assert winner.wait(timeout=hang_guard()) == 0


def test_stale_socket_is_replaced(place: Place) -> None:
    place.run.mkdir(mode=0o700, parents=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(place.socket))  # a socket file nobody listens on, as a dead daemon leaves
    stale.close()
    assert place.socket.exists()
    with pytest.raises(DaemonUnavailable):
        DaemonClient(autostart=False).connect()
    with DaemonClient() as client:
        pid = client.connect()["pid"]
        assert client.score(codebleu_request()).codebleu is not None
    assert place.info()["pid"] == pid
    assert "stale socket" in place.log_text()


def test_kill_9_mid_request_then_transparent_restart(place: Place) -> None:
    client = DaemonClient()
    first_pid = client.connect()["pid"]
    slow = client.submit(codebleu_request(big_python(1500, 1), big_python(1500, 2)))
    assert wait_until(lambda: client.status()["queue"]["in_flight"] == 1, timeout=hang_guard())
    os.kill(first_pid, signal.SIGKILL)
    with pytest.raises(DaemonConnectionLost):
        slow.result(timeout=30)
    assert wait_until(lambda: not alive(first_pid), timeout=hang_guard())
    assert place.socket.exists()  # left behind by the killed daemon
    report = client.score(codebleu_request())  # the next request restarts the daemon
    assert report.codebleu is not None and not report.errors
    assert client.daemon_pid not in (None, first_pid)
    client.close()


def test_an_older_daemon_is_replaced(place: Place) -> None:
    old = subprocess.Popen([sys.executable, "-m", "refscore", "daemon", "run", "--advertise-version", "0.0.1"],
                           env=place.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_until(lambda: place.socket.exists() and (place.run / "daemon.json").exists())
    old_pid = place.info()["pid"]
    assert old_pid == old.pid and place.info()["version"] == "0.0.1"
    with DaemonClient(autostart=False) as client:  # replacing an older daemon starts the new one
        info = client.connect()
    from refscore import __version__

    assert info["version"] == __version__ and info["pid"] != old_pid
    assert old.wait(timeout=hang_guard()) == 0  # it shut down cleanly when asked
    assert "replaced by a client of version" in place.log_text()


# -- work --------------------------------------------------------------------------------------------


def test_superseded_request_is_cancelled_before_it_runs(place: Place) -> None:
    # one worker and no large lane: the blocker holds the only thread the others need
    started = refscore("daemon", "start", "--no-preload", "--workers", "1", "--large-chars", "100000000", env=place.env)
    assert started.returncode == 0, started.stderr
    with DaemonClient(autostart=False) as client:
        blocker = client.submit(codebleu_request(big_python(600, 3), big_python(600, 4)), document="file:///a.py")
        older = client.submit(codebleu_request(CANDIDATE + "\n# v1\n"), document="file:///b.py")
        newer = client.submit(codebleu_request(CANDIDATE + "\n# v2\n"), document="file:///b.py")
        with pytest.raises(RequestCancelled) as cancelled:
            older.result(timeout=60)
        assert "superseded" in str(cancelled.value)
        assert newer.result(timeout=60).codebleu is not None
        assert blocker.result(timeout=60).codebleu is not None
        status = client.status()
    assert status["requests"]["superseded"] == 1
    assert status["requests"]["stages_skipped"] == 1  # the older request's work never ran
    assert status["requests"]["served"] == 2


def test_other_clients_requests_do_not_supersede(place: Place) -> None:
    with DaemonClient() as one, DaemonClient() as two:
        a = one.submit(codebleu_request(CANDIDATE + "\n# one\n"), document="file:///same.py")
        b = two.submit(codebleu_request(CANDIDATE + "\n# two\n"), document="file:///same.py")
        assert a.result(timeout=60).codebleu is not None
        assert b.result(timeout=60).codebleu is not None


def test_results_equal_in_process_scoring(place: Place) -> None:
    requests = [codebleu_request(),
                codebleu_request((EXAMPLES / "java/CandidateLoop.java").read_text(),
                                 (EXAMPLES / "java/Reference.java").read_text(), "java"),
                codebleu_request("", REFERENCE),
                replace(codebleu_request(), metrics=("codebleu", "chrf", "tsed")),  # the daemon's CPU stage
                replace(codebleu_request(), codebleu_rule="compat")]
    crystal = [replace(codebleu_request(c, r), metrics=("codebleu", "crystalbleu"))
               for c, r in ((CANDIDATE, REFERENCE), (REFERENCE, CANDIDATE), (big_python(3, 1), big_python(4, 2)))]
    statistics = corpus_statistics([prepare(r) for r in crystal])  # the corpus stage runs in the client
    with DaemonClient() as client:
        remote = client.score_many(requests)
        remote_crystal = client.score_many(crystal, statistics)
        with pytest.raises(RemoteError) as error:  # an unknown rule is the client's error, said so
            client.score(replace(codebleu_request(), codebleu_rule="paper"))
        assert error.value.code == wire.INVALID_PARAMS and "codebleu_rule" in str(error.value)
    local = LocalScorer().score_many(requests)
    assert [r.to_dict(explain=True) for r in remote] == [r.to_dict(explain=True) for r in local]
    assert remote[3].chrf is not None and remote[3].chrf == local[3].chrf
    local_crystal = LocalScorer().score_many(crystal, statistics)
    assert [r.to_dict(explain=True) for r in remote_crystal] == [r.to_dict(explain=True) for r in local_crystal]
    assert all(r.crystalbleu is not None or r.errors for r in remote_crystal)
    assert remote[-1].codebleu.rule == "compat" and remote[0].codebleu.rule == "native"


def test_a_failing_request_errors_for_its_client_only(place: Place) -> None:
    with DaemonClient() as good, DaemonClient() as bad:
        good.connect()
        results: dict[str, object] = {}

        def run_good() -> None:
            results["good"] = good.score_many([codebleu_request(CANDIDATE + f"\n# {i}\n") for i in range(20)])

        worker = threading.Thread(target=run_good)
        worker.start()
        with pytest.raises(RemoteError) as error:
            bad.score(ScoreRequest("x", ("y",), "klingon", metrics=("codebleu",)))
        assert error.value.code == wire.INVALID_PARAMS and "klingon" in str(error.value)
        with pytest.raises(RemoteError):
            bad.score(ScoreRequest("x", ("y",), "python", metrics=("codebleu",), weights=(1.0, 2.0)))  # type: ignore[arg-type]
        worker.join(60)
        assert len(results["good"]) == 20 and all(r.codebleu is not None for r in results["good"])
        assert bad.score(codebleu_request()).codebleu is not None  # the bad client goes on too
        assert good.status()["requests"]["failed"] == 2


def test_malformed_clients_do_not_take_the_daemon_down(place: Place) -> None:
    started = refscore("daemon", "start", "--no-preload", "--max-message-mb", "1", env=place.env)
    assert started.returncode == 0, started.stderr
    pid = place.info()["pid"]

    # garbage without framing, then the connection closes
    sock = raw_connect(place)
    sock.sendall(os.urandom(4096) + b"\x00\xff garbage \r\n")
    sock.close()
    # garbage that looks like a header block
    sock = raw_connect(place)
    sock.sendall(b"Hello: world\r\n\r\n")
    assert read_reply(sock)["error"]["code"] == wire.PARSE_ERROR
    sock.close()
    # a header that never ends (over the header limit)
    sock = raw_connect(place)
    sock.sendall(b"X" * (wire.MAX_HEADER_BYTES * 2))
    assert read_reply(sock)["error"]["code"] == wire.PARSE_ERROR
    sock.close()
    # an oversized message: refused before its body is read, connection closed
    sock = raw_connect(place)
    sock.sendall(b"Content-Length: %d\r\n\r\n" % (50 * 1024 * 1024) + b"{" * 65536)
    reply = read_reply(sock)
    assert reply["error"]["code"] == wire.MESSAGE_TOO_LARGE
    sock.close()
    # framed, but not JSON / not an object / not JSON-RPC / unknown method / bad params: answered,
    # and the same connection keeps working
    sock = raw_connect(place)
    stream = sock.makefile("rb")
    sock.sendall(wire.encode(wire.request(0, "initialize", {})))
    assert wire.read_message(stream)["result"]["pid"] == pid
    for body, code in ((b"{not json", wire.PARSE_ERROR), (b"\xff\xfe", wire.PARSE_ERROR),
                       (b"[1, 2]", wire.INVALID_REQUEST), (b'{"id": 1, "method": "x"}', wire.INVALID_REQUEST),
                       (b'{"jsonrpc": "2.0", "id": 2, "method": "nope"}', wire.METHOD_NOT_FOUND),
                       (b'{"jsonrpc": "2.0", "id": 3, "method": "score", "params": []}', wire.INVALID_PARAMS),
                       (b'{"jsonrpc": "2.0", "id": 4, "method": "score", "params": {"request": 5}}', wire.INVALID_PARAMS)):
        sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert wire.read_message(stream)["error"]["code"] == code, body
    sock.sendall(wire.encode(wire.request(5, "status", {})))
    assert wire.read_message(stream)["result"]["pid"] == pid
    stream.close()
    sock.close()
    # a client that disconnects in the middle of a message
    sock = raw_connect(place)
    sock.sendall(b"Content-Length: 1000\r\n\r\n{\"jsonrpc\"")
    sock.close()
    # a client that sends a request and leaves before the answer
    sock = raw_connect(place)
    sock.sendall(wire.encode(wire.request(1, "score", {"request": {
        "candidate": big_python(200, 7), "references": [big_python(200, 8)], "language": "python",
        "metrics": ["codebleu"]}})))
    sock.close()

    assert alive(pid)
    with DaemonClient(autostart=False) as client:
        assert client.connect()["pid"] == pid
        assert client.score(codebleu_request()).codebleu is not None
        assert wait_until(lambda: client.status()["connections"] == 1)  # the others were all let go
    assert "closing it" in place.log_text()


# -- CodeBERTScore: batching, model loading, failures ------------------------------------------------


def bert_request(i: int) -> ScoreRequest:
    return ScoreRequest(CANDIDATE + f"\n# variant {i}\n", (REFERENCE,), "python", metrics=("codebertscore",))


def test_codebertscore_batches_across_clients_and_waits_for_the_model(place: Place) -> None:
    """Requests sent while the model loads wait (none fails); concurrent clients share batches;
    results equal in-process scoring."""
    pytest.importorskip("torch")
    clients = [DaemonClient() for _ in range(4)]
    clients[0].connect()
    futures = [clients[i % 4].submit(bert_request(i)) for i in range(24)]  # the model is not loaded yet
    reports = [f.result(timeout=300) for f in futures]
    assert all(r.codebertscore is not None and not r.errors for r in reports), [r.errors for r in reports]
    status = clients[0].status()
    assert status["batches"] < 24 and status["mean_batch_size"] > 1
    assert status["models"] and status["models"][0]["model"] == "all-MiniLM-L6-v2"
    assert status["device"] == "cpu" or status["device"].startswith("cuda")
    local = LocalScorer().score_many([bert_request(i) for i in range(3)])
    for remote, mine in zip(reports[:3], local):
        assert remote.codebertscore.f1 == pytest.approx(mine.codebertscore.f1, abs=1e-5)
        assert remote.to_dict()["codebertscore"]["model"] == mine.to_dict()["codebertscore"]["model"]
    # the CLI reuses the warm daemon and prints what --no-daemon prints
    args = ("score", str(EXAMPLES / "python/reference.py"), str(EXAMPLES / "python/candidate_close.py"), "--json")
    via_daemon = refscore(*args, env=place.env)
    in_process = refscore(*args, "--no-daemon", env=place.env)
    assert via_daemon.returncode == 0 and in_process.returncode == 0, via_daemon.stderr + in_process.stderr
    a, b = json.loads(via_daemon.stdout), json.loads(in_process.stdout)
    assert a["codebleu_native"] == b["codebleu_native"]
    assert a["codebertscore"]["f1"] == pytest.approx(b["codebertscore"]["f1"], abs=1e-5)
    assert ("refscore" in a) == ("refscore" in b) == (headline_model() is not None)  # the combined number too
    if "refscore" in a:
        assert a["refscore"]["score"] == pytest.approx(b["refscore"]["score"], abs=1e-4)
        assert a["refscore"]["signature"] == b["refscore"]["signature"]
    assert clients[0].status()["requests"]["served"] == 25
    for client in clients:
        client.close()


def test_a_model_that_fails_to_load_is_reported_once_and_codebleu_goes_on(place: Place) -> None:
    pytest.importorskip("torch")
    broken = place.root / "broken-model"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 2,
                                                    "num_attention_heads": 2, "intermediate_size": 64,
                                                    "vocab_size": 100}))
    (broken / "model.safetensors").write_bytes(b"this is not a safetensors file" * 100)
    (broken / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\na\n")
    started = refscore("daemon", "start", "--no-preload", "--model", str(broken), env=place.env)
    assert started.returncode == 0, started.stderr
    with DaemonClient(autostart=False) as client:
        both = ScoreRequest(CANDIDATE, (REFERENCE,), "python")
        first, second = client.score(both), client.score(both)
        for report in (first, second):
            assert report.codebleu is not None and report.codebertscore is None
            assert len(report.errors) == 1
            assert "could not be loaded" in report.errors[0] and "CodeBLEU still works" in report.errors[0]
            assert "refscore daemon stop" in report.errors[0]
        status = client.status()
        # a request may name its own model; one that is not on disk is refused without a download
        named = client.score(ScoreRequest(CANDIDATE, (REFERENCE,), "python", model=str(place.root / "nowhere")))
        assert named.codebleu is not None and "never downloads" in named.errors[0]
    assert len(status["model_errors"]) == 1
    log = place.log_text()
    assert log.count("could not be loaded") == 1  # logged once, not retried
    assert log.count("never downloads") == 1
    missing = place.root / "missing"
    stop = refscore("daemon", "stop", env=place.env)
    assert stop.returncode == 0
    assert refscore("daemon", "start", "--no-preload", "--model", str(missing), env=place.env).returncode == 0
    with DaemonClient(autostart=False) as client:
        report = client.score(both)
    assert report.codebleu is not None and "never downloads" in report.errors[0]


def test_a_request_whose_send_fails_is_resent(place: Place) -> None:
    """The idle-exit race: the daemon went before the client's reader saw it, so the send fails
    (a broken pipe). That request reached no daemon: it is resent on a new connection, and the
    caller gets its report, not ``DaemonConnectionLost``."""
    client = DaemonClient()
    client.connect()
    connection = client._connection()
    real_send = connection.send
    failures = []

    def broken_once(data: bytes) -> None:
        if not failures:
            failures.append(data)
            raise BrokenPipeError(32, "Broken pipe")
        real_send(data)

    connection.send = broken_once
    report = client.score(codebleu_request())
    assert failures and report.codebleu is not None
    assert client._connection() is not connection  # a new connection carried it
    client.close()
