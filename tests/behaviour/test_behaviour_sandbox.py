"""The sandbox itself (``behaviour.sandbox``), run for real, and how the host reads a harness's
records back (``behaviour.runners.records``): what a run can write, see and reach, each limit,
the wall clock even when standard input is never read, nothing left running afterwards, and
records from a program under test that are never trusted."""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path

import pytest

from refscore.behaviour import sandbox as sandbox_module
from refscore.behaviour.calls import Call
from refscore.behaviour.runners.python import interpreter, run_calls
from refscore.behaviour.runners.records import LOST, MALFORMED, MAX_DEPTH, read_records, run_resuming, well_formed
from refscore.behaviour.sandbox import SHM_BYTES, Completed, Limits, Sandbox, SandboxUnavailable, find_sandbox

from tests.support.timing import hang_guard

pytestmark = [pytest.mark.timeout(120), pytest.mark.xdist_group("behaviour_sandbox")]
ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    try:
        found = find_sandbox()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    if found.kind != "bwrap":
        pytest.skip("running unsandboxed")
    return found


def python(sandbox: Sandbox, code: str, files: dict | None = None, limits: Limits = Limits(),
           stdin: bytes = b"") -> Completed:
    """``code`` run by Python in the sandbox."""
    path, binds = interpreter(ROOT)
    return sandbox.run([path, "-I", "-S", "-c", code], files or {}, stdin=stdin, limits=limits, binds=binds)


def lines(completed: Completed) -> list[str]:
    assert completed.returncode == 0, completed.stderr.decode(errors="replace")
    return completed.stdout.decode().splitlines()


# --- what a run sees -----------------------------------------------------------------------------------


def test_only_tmp_and_dev_shm_are_writable(sandbox: Sandbox) -> None:
    code = """
for folder in ["/", "/dev", "/box", "/usr", "/tmp", "/dev/shm", "/proc"]:
    try:
        with open(folder.rstrip("/") + "/probe", "w") as handle:
            handle.write("x")
        print(folder, "written")
    except OSError as error:
        print(folder, type(error).__name__)
"""
    written = [line.split()[0] for line in lines(python(sandbox, code, {"given.txt": "hi"})) if line.endswith("written")]
    assert written == ["/tmp", "/dev/shm"]


def test_tmp_and_dev_shm_are_bounded(sandbox: Sandbox) -> None:
    code = """
import errno
for folder in ["/tmp", "/dev/shm"]:
    total = 0
    try:
        for n in range(64):
            with open(f"{folder}/f{n}", "wb") as handle:
                handle.write(b"x" * (1 << 20))
            total += 1
    except OSError as error:
        print(folder, total, errno.errorcode[error.errno])
"""
    limits = Limits(tmp_bytes=4 << 20)
    assert min(limits.tmp_bytes, SHM_BYTES) == 4 << 20
    for line in lines(python(sandbox, code, limits=limits)):
        _, megabytes, error = line.split()
        assert int(megabytes) <= 4 and error == "ENOSPC", line


def test_the_given_files_are_read_only_under_box(sandbox: Sandbox) -> None:
    code = "import os\nprint(open('/box/a.txt').read())\nprint(os.access('/box/a.txt', os.W_OK))"
    assert lines(python(sandbox, code, {"a.txt": "hello"})) == ["hello", "False"]


def test_no_etc_no_home_and_a_scrubbed_environment(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFSCORE_TEST_SECRET", "do-not-pass-on")
    code = "import os\nprint(sorted(os.listdir('/')))\nprint(sorted(os.environ))\nprint(os.environ['HOME'])"
    folders, names, home = lines(python(sandbox, code))
    assert not {"etc", "home", "root", "sys", "run", "var"} & set(eval(folders))
    assert "REFSCORE_TEST_SECRET" not in names and home == "/tmp"


def test_no_network(sandbox: Sandbox) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    try:
        code = (f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {server.getsockname()[1]}), 1)\n"
                "    print('connected')\nexcept OSError as error:\n    print(type(error).__name__)\n"
                "print(socket.if_nameindex())")
        result, interfaces = lines(python(sandbox, code))
        assert result == "ConnectionRefusedError" and "eth" not in interfaces
        with pytest.raises(socket.timeout):
            server.accept()
    finally:
        server.close()


@pytest.mark.skipif(not ROOT, reason="runs get users of their own only when this process is root")
def test_each_run_is_a_user_of_its_own(sandbox: Sandbox) -> None:
    first, second = (int(lines(python(sandbox, "import os; print(os.getuid())"))[0]) for _ in range(2))
    assert first != second and min(first, second) >= sandbox_module._UID_BASE


def test_no_further_user_namespaces(sandbox: Sandbox) -> None:
    if not sandbox.no_user_namespaces:
        pytest.skip("this bubblewrap cannot forbid them")
    code = "import ctypes\nprint(ctypes.CDLL(None, use_errno=True).unshare(0x10000000), ctypes.get_errno())"
    assert lines(python(sandbox, code)) == ["-1 28"]  # ENOSPC: max_user_namespaces is 0 inside


def test_files_keep_their_bytes(sandbox: Sandbox) -> None:
    text = "a\udcffb\ud800c"  # an undecodable byte (surrogate escape) and a lone surrogate
    completed = sandbox.run(["/bin/cat", "/box/f"], {"f": text, "g": b"\x00\xff"})
    assert completed.stdout == b"a\xffb?c"


# --- the limits -----------------------------------------------------------------------------------------


def test_the_wall_clock(sandbox: Sandbox) -> None:
    completed = python(sandbox, "import time; time.sleep(100)", limits=Limits(wall_seconds=1))
    assert completed.timed_out and completed.seconds < 20


def test_the_wall_clock_holds_when_standard_input_is_never_read(sandbox: Sandbox) -> None:
    # more than a pipe holds: writing it used to block before the clock started
    completed = python(sandbox, "import time; time.sleep(100)", stdin=b"x" * (4 << 20), limits=Limits(wall_seconds=1))
    assert completed.timed_out and completed.seconds < 20


def test_standard_input_arrives_whole(sandbox: Sandbox) -> None:
    data = b"y" * (3 << 20)
    assert lines(python(sandbox, "import sys; print(len(sys.stdin.buffer.read()))", stdin=data)) == [str(len(data))]


def test_output_is_capped(sandbox: Sandbox) -> None:
    completed = python(sandbox, "import os\nwhile True:\n    os.write(1, b'x' * 65536)", limits=Limits(output_bytes=1 << 20))
    assert completed.output_capped and len(completed.stdout) == 1 << 20 and completed.seconds < 20


def test_standard_error_is_capped(sandbox: Sandbox) -> None:
    completed = python(sandbox, "import os\nwhile True:\n    os.write(2, b'x' * 65536)")
    assert completed.output_capped and len(completed.stderr) <= 64 << 10


def test_file_size(sandbox: Sandbox) -> None:
    code = ("import errno\ntry:\n    open('/tmp/big', 'wb').write(b'x' * (2 << 20))\n"
            "except OSError as error:\n    print(errno.errorcode[error.errno])")
    assert lines(python(sandbox, code, limits=Limits(file_bytes=1 << 20))) == ["EFBIG"]


def test_memory(sandbox: Sandbox) -> None:
    code = "try:\n    x = bytearray(1 << 30)\nexcept MemoryError:\n    print('MemoryError')"
    assert lines(python(sandbox, code, limits=Limits(memory_bytes=512 << 20))) == ["MemoryError"]


def test_processes(sandbox: Sandbox) -> None:
    code = """
import os, time
started = 0
for _ in range(100):
    try:
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        started += 1
    except OSError:
        break
print(started)
"""
    started = int(lines(python(sandbox, code, limits=Limits(processes=8)))[0])
    assert 0 < started < 8


def live_processes_of(uids: set[int]) -> list[str]:
    found = []
    for entry in os.scandir("/proc"):
        try:
            status = Path(entry.path, "status").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        uid = re.search(r"^Uid:\s+(\d+)", status, re.MULTILINE)
        if uid and int(uid.group(1)) in uids and not re.search(r"^State:\s+Z", status, re.MULTILINE):
            found.append(entry.name)
    return found


@pytest.mark.skipif(not ROOT, reason="runs get users of their own only when this process is root")
@pytest.mark.parametrize("kind", ["bwrap", "none"])
def test_nothing_a_run_starts_outlives_it(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    uids: set[int] = set()
    real = sandbox_module._run_as_uid

    def recording() -> int | None:
        uid = real()
        uids.add(uid)
        return uid

    monkeypatch.setattr(sandbox_module, "_run_as_uid", recording)
    code = """
import os, signal, time
if os.fork() == 0:
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if os.fork() == 0:
        os.closerange(0, 3)
        time.sleep(300)
    os._exit(0)
print("left")
"""
    chosen = sandbox if kind == "bwrap" else Sandbox("none")
    wall = hang_guard(60)
    started = time.monotonic()
    assert lines(python(chosen, code, limits=Limits(wall_seconds=wall))) == ["left"]
    assert time.monotonic() - started < wall / 2  # it ended with its program, not at the wall limit
    deadline = time.monotonic() + hang_guard(60)
    while live_processes_of(uids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_processes_of(uids) == []


def test_a_command_that_cannot_start_is_a_result() -> None:
    completed = Sandbox("none").run(["/nonexistent/program"], {})
    assert completed.returncode == 127 and b"cannot start" in completed.stderr


# --- the harness under a program that swallows its timeout ----------------------------------------------


def test_a_swallowed_timeout_ends_the_harness_not_the_wall_clock(sandbox: Sandbox) -> None:
    program = ("import time\ndef f(x):\n    while True:\n        try:\n            time.sleep(1)\n"
               "        except BaseException:\n            pass\n")
    wall = hang_guard(60)
    started = time.monotonic()
    load, records = run_calls(sandbox, program, [Call("f", "1"), Call("f", "2"), Call("f", "3")], 0.2, wall)
    assert load == {"load": "ok"}
    assert [r.get("timeout") for r in records] == [True, True, True]
    assert time.monotonic() - started < wall / 2  # three runs of about a second each, not one of the wall's


# --- records from the program under test -----------------------------------------------------------------


@pytest.mark.parametrize("value", [["n"], ["b", True], ["i", "-12"], ["f", 1.5], ["f", "nan"], ["s", "x"],
                                   ["y", "00ff"], ["c", ["f", 1.0], ["f", 2.0]], ["l", [["i", "1"], ["t", []]]],
                                   ["d", [[["s", "k"], ["n"]]]], ["S", []], ["g", []], ["h", "abc"],
                                   ["o", "Point", "Point(1, 2)"], ["u"], ["js", {"any": [1, 2]}]])
def test_well_formed_values(value: list) -> None:
    assert well_formed(value)


@pytest.mark.parametrize("value", [5, [], [1], ["i", "x"], ["i", 5], ["i", "9" * 5000], ["b", 1], ["f", "big"],
                                   ["y", "zz"], ["l", 5], ["l", [5]], ["d", [["s", "k"]]], ["o", "T"],
                                   ["c", ["f", 1.0]], ["n", 1], ["s", None]])
def test_malformed_values(value: object) -> None:
    assert not well_formed(value)


def test_values_too_deep_or_too_big_are_malformed() -> None:
    deep: list = ["n"]
    for _ in range(MAX_DEPTH + 10):
        deep = ["l", [deep]]
    assert not well_formed(deep)
    assert not well_formed(["l", [["n"]] * 300_000])


def test_read_records_trusts_no_line() -> None:
    output = b"\n".join([
        b'{"load": "ok"}', b"[" * 100_000 + b"]" * 100_000, b"not json", b"[1, 2]", b'{"i": "0", "v": ["n"]}',
        b'{"i": true, "v": ["n"]}', b'{"i": 0, "v": ["i", "x"]}', b'{"i": 0, "v": ["i", "1"]}',
        b'{"i": 1, "e": 5}', b'{"i": 2, "out": ["x"], "v": ["n"]}', b'{"i": 3, "timeout": "yes"}',
        b'{"i": 4, "v": ["s", "fine"], "s": 0.1, "out": "printed"}', b'{"i": 99, "v": ["n"]}', b"\xff\xfe"])
    load, records = read_records(output, 5)
    assert load == {"load": "ok"}
    assert [records[i].get("lost") for i in range(4)] == [MALFORMED] * 4  # the first record of an index counts
    assert records[4] == {"i": 4, "v": ["s", "fine"], "s": 0.1, "out": "printed"}


@pytest.mark.parametrize("line", [b'{"load": 1}', b'{"load": "error", "line": "3"}', b'{"load": "error", "e": []}'])
def test_a_malformed_load_line_is_a_load_error(line: bytes) -> None:
    load, _ = read_records(line + b"\n", 1)
    assert load is not None and load["load"] == "error" and load["e"] == "Crash"


def _completed(*records: dict, timed_out: bool = False, returncode: int = 0) -> Completed:
    return Completed("".join(json.dumps(r) + "\n" for r in records).encode(), b"", returncode, timed_out)


def test_a_run_goes_on_after_the_input_that_stopped_it() -> None:
    runs = {0: _completed({"load": "ok"}, {"i": 0, "v": ["n"]}, timed_out=True),
            2: _completed({"load": "ok"}, {"i": 0, "v": ["n"]})}
    load, results = run_resuming(lambda start: runs[start], 3)
    assert load == {"load": "ok"}
    assert results == [{"i": 0, "v": ["n"]}, {"timeout": True}, {"i": 0, "v": ["n"]}]


def test_a_halted_run_goes_on_with_the_next_input() -> None:
    # the harness wrote the timeout of input 1 itself and ended: input 2 was never run, so it runs next
    runs = {0: _completed({"load": "ok"}, {"i": 0, "v": ["n"]}, {"i": 1, "timeout": True, "halt": True}, returncode=3),
            2: _completed({"load": "ok"}, {"i": 0, "v": ["n"]})}
    _, results = run_resuming(lambda start: runs[start], 3)
    assert [r.get("timeout", False) for r in results] == [False, True, False] and "lost" not in results[2]


def test_restarts_are_bounded() -> None:
    calls = []

    def crashing(start: int) -> Completed:
        calls.append(start)
        return _completed({"load": "ok"}, returncode=1)

    _, results = run_resuming(crashing, 10)
    assert calls == [0, 1, 2]
    assert results[3:] == [LOST] * 7 and all("crashed" in r["lost"] for r in results[:3])
