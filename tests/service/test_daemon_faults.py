"""Faults of the scoring daemon (issue 16), with real daemon processes in private directories.

* A daemon stopped with SIGSTOP (or hung) must not stall its clients: every wait is bounded and
  ends with "not responding (pid N)", never a silent fallback or a wrong "not running".
* A large request must not starve small ones, abandoned or superseded large work stops, and
  ``daemon stop`` works while the daemon is busy.
* An unsafe (symlinked) runtime directory is refused with its own exit code; a text over the
  CodeBERTScore limit is one line in the log, not a traceback each time.

Every stopped daemon is resumed (SIGCONT) in a ``finally``; the ``place`` fixture kills whatever
is left. Bounds on time are generous: the tests check what happens, not how fast.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

from refscore.errors import EXIT_UNSAFE_RUNTIME_DIR
from refscore.scoring.report import ScoreRequest
from refscore.service import DaemonClient, DaemonNotResponding, RequestCancelled
from refscore.service.paths import FileLock
from tests.support.daemons import alive, daemon_pids_in, refscore, stop_daemon_in, wait_until, worker_pids_in
from tests.service.test_daemon import CANDIDATE, EXAMPLES, REFERENCE, Place, big_python, codebleu_request
from tests.support.timing import hang_guard

REFERENCE_PATH = str(EXAMPLES / "python/reference.py")
CANDIDATE_PATH = str(EXAMPLES / "python/candidate_close.py")


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch):
    spot = Place(Path(tempfile.mkdtemp(prefix="rsf-")), monkeypatch)
    yield spot
    for pid in daemon_pids_in(spot.run):
        _resume(pid)
    stop_daemon_in(spot.run)
    for pid in worker_pids_in(spot.run):
        os.kill(pid, signal.SIGKILL)
    import shutil

    shutil.rmtree(spot.root, ignore_errors=True)


def _resume(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass


@contextmanager
def stopped(pid: int):
    """The daemon stopped with SIGSTOP for the block, resumed after it whatever happens."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        _resume(pid)


def start_daemon(place: Place, *options: str) -> int:
    started = refscore("daemon", "start", "--no-preload", "--idle-timeout", "600", *options, env=place.env)
    assert started.returncode == 0, started.stderr
    return place.info()["pid"]


def large_request(seed: int = 1) -> ScoreRequest:
    """CodeBLEU of about 1 MB of Python: many seconds of work, in the large lane."""
    return codebleu_request(big_python(6000, seed), big_python(6000, seed + 1))


# -- 6: a stopped or hung daemon ---------------------------------------------------------------------


def test_status_says_not_responding_for_a_stopped_daemon(place: Place) -> None:
    pid = start_daemon(place)
    with stopped(pid):
        text = refscore("daemon", "status", env=place.env, timeout=120)
        as_json = refscore("daemon", "status", "--json", env=place.env, timeout=120)
    assert text.returncode == 1, text.stderr
    assert f"not responding (pid {pid})" in text.stdout and "not running" not in text.stdout
    assert f"kill -CONT {pid}" in text.stdout
    data = json.loads(as_json.stdout)
    assert data["running"] is True and data["responding"] is False and data["pid"] == pid
    again = refscore("daemon", "status", env=place.env)  # resumed, it answers again
    assert again.returncode == 0 and str(pid) in again.stdout


def test_a_hung_daemon_is_reported_after_the_deadline(place: Place) -> None:
    """A daemon that holds the lock and accepts connections but never answers (not stopped, so
    only the deadline can tell): the client says so, and neither waits long nor starts another."""
    place.run.mkdir(mode=0o700, parents=True)
    lock = FileLock(place.run / "daemon.lock")
    assert lock.acquire(0)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(place.socket))
    silent.listen(8)
    (place.run / "daemon.json").write_text(json.dumps({"pid": os.getpid(), "transport": "unix",
                                                        "address": str(place.socket), "protocol": 1}))
    try:
        client = DaemonClient(autostart=True, deadline=2)
        with pytest.raises(DaemonNotResponding) as error:
            client.connect()
        assert error.value.pid == os.getpid()
        assert f"not responding (pid {os.getpid()})" in str(error.value) and "within 2 s" in str(error.value)
        assert daemon_pids_in(place.run) == []  # no second daemon was started beside it
    finally:
        (place.run / "daemon.json").unlink()  # it names this process: the fixture must not stop it
        silent.close()
        lock.release()


def test_a_request_in_flight_fails_when_the_daemon_stops(place: Place) -> None:
    pid = start_daemon(place)
    with DaemonClient(autostart=False) as client:
        slow = client.submit(large_request())
        assert wait_until(lambda: client.status()["queue"]["in_flight"] == 1)
        with stopped(pid):
            with pytest.raises(DaemonNotResponding) as error:
                slow.result(timeout=120)
    assert f"not responding (pid {pid})" in str(error.value)


def test_score_falls_back_with_a_note_when_the_daemon_is_stopped(place: Place) -> None:
    pid = start_daemon(place)
    with stopped(pid):
        result = refscore("score", REFERENCE_PATH, CANDIDATE_PATH, "--metrics", "codebleu", "--json",
                          env=place.env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"not responding (pid {pid})" in result.stderr and "in this process" in result.stderr
    assert json.loads(result.stdout)["codebleu_native"]["codebleu_native"] > 0


def test_stop_ends_a_stopped_daemon(place: Place) -> None:
    pid = start_daemon(place)
    with stopped(pid):
        result = refscore("daemon", "stop", env=place.env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"stopped (pid {pid}" in result.stdout and "not responding" in result.stdout
    assert wait_until(lambda: not alive(pid))
    assert refscore("daemon", "status", env=place.env).stdout.strip() == "refscore daemon: not running"


# -- 7: large requests, abandoned work, stop while busy ------------------------------------------------


def test_a_small_request_does_not_wait_for_a_large_one(place: Place) -> None:
    start_daemon(place, "--workers", "1")  # one CodeBLEU thread: before lanes, the large one held it
    with DaemonClient(autostart=False) as client:
        large = client.submit(large_request())
        assert wait_until(lambda: client.status()["queue"]["in_flight"] == 1)
        small = client.score(codebleu_request())
        assert small.codebleu is not None and not small.errors
        assert not large.done()  # the small pair was answered while the large one still ran
        assert large.result(timeout=600).codebleu is not None


def test_two_large_requests_run_at_once_and_stop_apart(place: Place) -> None:
    start_daemon(place, "--large-workers", "2")
    with DaemonClient(autostart=False) as client:
        first = client.submit(large_request(1), document="file:///one.py")
        second = client.submit(large_request(3), document="file:///two.py")
        assert wait_until(lambda: client.status()["queue"]["large_running"] == 2)
        assert wait_until(lambda: len(worker_pids_in(place.run)) == 2)
        assert client.status()["large_workers"] == 2
        before = set(worker_pids_in(place.run))
        newer = client.submit(codebleu_request(CANDIDATE + "\n# edited\n"), document="file:///one.py")
        with pytest.raises(RequestCancelled):
            first.result(timeout=60)
        assert newer.result(timeout=60).codebleu is not None
        assert wait_until(lambda: len(set(worker_pids_in(place.run)) & before) == 1)  # only its process ended
        assert second.result(timeout=600).codebleu is not None
        status = client.status()
    assert status["requests"]["stopped"] == 1 and status["queue"]["large_running"] == 0


def test_large_workers_must_be_at_least_one(place: Place) -> None:
    done = refscore("daemon", "start", "--large-workers", "0", env=place.env)
    assert done.returncode == 2 and "--large-workers 0: must be at least 1" in done.stderr


def test_abandoned_large_work_stops(place: Place) -> None:
    start_daemon(place)
    code = ("import sys\nsys.path.insert(0, sys.argv[1])\n"
            "from tests.service.test_daemon_faults import large_request\n"
            "from refscore.service import DaemonClient\n"
            "DaemonClient(autostart=False).score(large_request())\n")
    abandoner = subprocess.Popen([sys.executable, "-c", code, str(Path(__file__).resolve().parents[2])],
                                 env=place.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with DaemonClient(autostart=False) as watcher:
            assert wait_until(lambda: watcher.status()["queue"]["large_running"] == 1)
            assert wait_until(lambda: len(worker_pids_in(place.run)) == 1)
            workers = worker_pids_in(place.run)
            abandoner.kill()  # its caller gave up: the daemon must stop the work, not finish it
            abandoner.wait(30)
            assert wait_until(lambda: watcher.status()["queue"]["in_flight"] == 0)
            assert wait_until(lambda: not alive(workers[0]))  # the process doing it was ended
            status = watcher.status()
            assert watcher.score(codebleu_request()).codebleu is not None
    finally:
        abandoner.kill()
        abandoner.wait(30)
    assert status["requests"]["stopped"] == 1 and status["requests"]["served"] == 0
    assert "stopped a large CodeBLEU request" in place.log_text()


def test_superseded_large_work_stops(place: Place) -> None:
    start_daemon(place)
    with DaemonClient(autostart=False) as client:
        old = client.submit(large_request(), document="file:///big.py")
        assert wait_until(lambda: client.status()["queue"]["large_running"] == 1)
        new = client.submit(codebleu_request(CANDIDATE + "\n# edited\n"), document="file:///big.py")
        with pytest.raises(RequestCancelled):
            old.result(timeout=60)
        assert new.result(timeout=60).codebleu is not None
        assert wait_until(lambda: client.status()["queue"]["in_flight"] == 0)
        status = client.status()
    assert status["requests"]["superseded"] == 1 and status["requests"]["stopped"] == 1


def test_stop_works_while_busy(place: Place) -> None:
    pid = start_daemon(place)
    with DaemonClient(autostart=False) as client:
        # more work than the large lane can finish while `daemon stop` starts, even on a machine
        # whose load slows that start as much as the work (two requests: one finished first there)
        busy = [client.submit(large_request(seed)) for seed in (1, 3, 5, 7, 9, 11)]
        assert wait_until(lambda: client.status()["queue"]["in_flight"] == len(busy))
        assert wait_until(lambda: worker_pids_in(place.run) != [])
        result = refscore("daemon", "stop", env=place.env, timeout=120)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"refscore daemon: stopped (pid {pid})"
        ended = []  # every request ends: a report if it was done before the stop, else an error
        for future in busy:
            try:
                ended.append(future.result(timeout=hang_guard()).codebleu is not None)
            except Exception:  # noqa: BLE001 - cut off by the stop: any error is the right answer
                ended.append(False)
        assert not all(ended), "the stop came after all the work: nothing was busy"
    assert not alive(pid)
    assert wait_until(lambda: worker_pids_in(place.run) == [])  # its worker went with it


# -- 14: unsafe runtime directory, texts over the CodeBERTScore limit -----------------------------------


def test_a_symlinked_runtime_dir_is_refused_with_its_own_exit_code(place: Place) -> None:
    real = place.root / "elsewhere"
    real.mkdir(mode=0o700)
    place.run.symlink_to(real)
    for args in (("daemon", "start", "--no-preload"), ("daemon", "status"), ("daemon", "stop")):
        result = refscore(*args, env=place.env)
        assert result.returncode == EXIT_UNSAFE_RUNTIME_DIR, (args, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "symbolic link" in lines[0] and "internal error" not in lines[0], lines
    assert list(real.iterdir()) == []  # nothing was created behind the link
    scored = refscore("score", REFERENCE_PATH, CANDIDATE_PATH, "--metrics", "codebleu", "--json", env=place.env)
    assert scored.returncode == 0, scored.stderr  # scoring goes on in the process, and says why
    assert "symbolic link" in scored.stderr and json.loads(scored.stdout)["codebleu_native"]["codebleu_native"] > 0


def test_a_text_over_the_codebertscore_limit_is_one_log_line(place: Place) -> None:
    pytest.importorskip("torch")
    huge = "x = 1\n" * 40_000  # 240,000 characters
    with DaemonClient() as client:
        reports = [client.score(ScoreRequest(huge + f"# {i}\n", (REFERENCE,), "python")) for i in range(2)]
    for report in reports:
        assert report.codebleu is not None and report.codebertscore is None
        assert len(report.errors) == 1 and "CodeBERTScore limit" in report.errors[0], report.errors
        assert "max_chars" not in report.errors[0]
    log = place.log_text() + "".join(p.read_text(errors="replace") for p in place.log.glob("daemon.stderr"))
    assert "Traceback" not in log
    assert log.count("CodeBERTScore limit") >= 2  # said, once per request, on one line
