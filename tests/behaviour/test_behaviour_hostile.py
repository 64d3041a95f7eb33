"""Hostile candidates against the behaviour stage, run for real in the bubblewrap sandbox: a fork
bomb, an endless loop, a memory hog, 1 GB printed, writes to $HOME and the class folder, reading
/etc/passwd and the reference, sockets to the loopback, processes left behind, killing the
parent, deleting files, swallowing the harness's timeout, exiting at import, forged harness
records, garbage text and a 5 MB file. Each gives a defined result whose rows say why, in
bounded time; after each, nothing outside the sandbox changed: the class folder and $HOME (with
canary files) are as they were, the loopback servers saw nobody, and no process of the run is
left. Without bubblewrap nothing runs at all.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from refscore.behaviour import BehaviourResult, BehaviourSettings, run_behaviour
from refscore.behaviour import sandbox as sandbox_module
from refscore.behaviour.calls import Call
from refscore.behaviour.runners.python import run_calls
from refscore.behaviour.sandbox import UNSAFE_ENV, SandboxUnavailable, find_sandbox

from tests.support.timing import hang_guard


def _bwrap_works() -> bool:
    try:
        return find_sandbox().kind == "bwrap"
    except SandboxUnavailable:
        return False


pytestmark = [pytest.mark.timeout(120), pytest.mark.xdist_group("behaviour_hostile")]
needs_bwrap = pytest.mark.skipif(not _bwrap_works(), reason="no working bubblewrap sandbox here")

#: In the reference only: a candidate that could read the reference (or its outcomes) would show it.
SECRET = "ANSWER-KEY-" + uuid.uuid4().hex
#: In the command line of the processes hostile candidates try to leave behind.
MARK = "refscore-hostile-" + uuid.uuid4().hex[:12]

REFERENCE = f'''
KEY = "{SECRET}"


def add(a, b):
    """Add two numbers.

    >>> add(1, 2)
    3
    """
    return a + b


def key(n: int) -> str:
    """The answer key of ``n``: no candidate can know it."""
    return KEY + str(n)
'''
PROGRAM_REFERENCE = 'print("hello")\n'

ADD = BehaviourSettings(per_function=6, functions=("add",))
#: For candidates that take a limit's whole time on every input.
FEW = BehaviourSettings(per_function=2, functions=("add",))
BOTH = BehaviourSettings(per_function=6)
#: A hang guard: the machine may be busy. The limits themselves are a few seconds.
BOUND = hang_guard(60)


# --- the world outside the sandbox ------------------------------------------------------------------


class Loopback:
    """A TCP, a UDP and an abstract Unix socket server on this machine, counting who reached them."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_name = MARK + "-unix"
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind("\0" + self.unix_name)
        self.unix.listen()
        self.reached: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def tcp_port(self) -> int:
        return self.tcp.getsockname()[1]

    @property
    def udp_port(self) -> int:
        return self.udp.getsockname()[1]

    def _serve(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.tcp, self.udp, self.unix], [], [], 0.1)
            for server in ready:
                if server is self.udp:
                    self.reached.append(f"udp {server.recvfrom(65536)[1]}")
                else:
                    connection, address = server.accept()
                    self.reached.append(f"connection {address!r}")
                    connection.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for server in (self.tcp, self.udp, self.unix):
            server.close()


def snapshot(*roots: Path) -> dict[str, tuple]:
    """Every path under ``roots`` with its content (files) and mode."""
    state = {}
    for root in roots:
        for path in [root, *root.rglob("*")]:
            info = path.lstat()
            state[str(path)] = (path.read_bytes() if path.is_file() else None, info.st_mode, info.st_mtime_ns)
    return state


def survivors(uids: set[int]) -> list[str]:
    """Live processes of the runs' users, or with the hostile mark in their command line (not
    zombies: bubblewrap's monitor exits before it reaps its namespace's init, so that one waits,
    dead, for this machine's init to reap it)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            status = Path(entry.path, "status").read_text()
            cmdline = Path(entry.path, "cmdline").read_bytes()
        except OSError:
            continue
        uid = re.search(r"^Uid:\s+(\d+)", status, re.MULTILINE)
        if re.search(r"^State:\s+Z", status, re.MULTILINE):
            continue
        if (uid and int(uid.group(1)) in uids) or MARK.encode() in cmdline:
            found.append(f"{entry.name} uid {uid.group(1) if uid else '?'}: {cmdline[:120]!r}")
    return found


class World:
    """A class folder and a $HOME with canaries, the loopback servers, and the users runs got."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folder = tmp_path / "class"
        self.reference_path = self.folder / "reference.py"
        self.home = tmp_path / "home"
        (self.folder / "students").mkdir(parents=True)
        self.reference_path.write_text(REFERENCE)
        (self.folder / "students" / "alice.py").write_text("def add(a, b):\n    return a + b\n")
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".bashrc").write_text("# canary\n")
        (self.home / ".ssh" / "id_rsa").write_text("canary key\n")
        monkeypatch.setenv("HOME", str(self.home))
        self.before = snapshot(self.folder, self.home)
        self.loopback = Loopback()
        self.uids: set[int] = set()
        real = sandbox_module._run_as_uid

        def recording() -> int | None:
            uid = real()
            if uid is not None:
                self.uids.add(uid)
            return uid

        monkeypatch.setattr(sandbox_module, "_run_as_uid", recording)

    def source(self, template: str) -> str:
        """A candidate with the places it attacks filled in."""
        return (template.replace("@CLASS@", str(self.folder)).replace("@REFPATH@", str(self.reference_path))
                .replace("@HOME@", str(self.home)).replace("@PORT@", str(self.loopback.tcp_port))
                .replace("@UDP@", str(self.loopback.udp_port)).replace("@UNIX@", self.loopback.unix_name)
                .replace("@MARK@", MARK).replace("@PID@", str(os.getpid())).replace("@PGID@", str(os.getpgrp())))

    def run(self, template: str, settings: BehaviourSettings = ADD, reference: str = REFERENCE,
            check: bool = True) -> BehaviourResult:
        """``run_behaviour`` on the candidate: a result that ran, in bounded time, nothing outside
        changed (``check``)."""
        started = time.monotonic()
        result = run_behaviour(reference, self.source(template), "python", settings)
        seconds = time.monotonic() - started
        assert result.ran, result.not_run
        assert seconds < BOUND, seconds
        if check:
            self.check()
        return result

    def check(self) -> None:
        """Nothing outside the sandbox changed and nothing of its runs is left."""
        assert snapshot(self.folder, self.home) == self.before
        assert self.loopback.reached == []
        deadline = time.monotonic() + hang_guard(60)
        while survivors(self.uids) and time.monotonic() < deadline:  # killed ones may take a moment
            time.sleep(0.05)
        assert survivors(self.uids) == []


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    the_world = World(tmp_path, monkeypatch)
    yield the_world
    the_world.loopback.close()


def reasons(result: BehaviourResult) -> list[str]:
    return [d.reason for d in result.disagreements]


def assert_failed_for(result: BehaviourResult, *words: str) -> None:
    """The candidate disagreed, every row saying why with one of ``words``."""
    assert result.agreement is not None and result.agreement < 1.0, result
    assert result.disagreements, result
    for row in result.disagreements:
        assert any(w in row.reason or w in row.actual for w in words), row


# --- resources --------------------------------------------------------------------------------------


FORK_BOMBS = {
    "fork until refused": r'''
import os
def add(a, b):
    while True:
        os.fork()
''',
    "fork and spin forever": r'''
import os
def add(a, b):
    while True:
        try:
            os.fork()
        except OSError:
            pass
''',
}


@needs_bwrap
@pytest.mark.parametrize("name", FORK_BOMBS)
def test_a_fork_bomb_is_held_by_the_process_limit(world: World, name: str) -> None:
    result = world.run(FORK_BOMBS[name])
    assert_failed_for(result, "raised", "timeout", "crashed", "killed", "not run")
    started = time.monotonic()
    subprocess.run(["true"], check=True, timeout=30)  # this machine still starts processes
    assert time.monotonic() - started < 10


@needs_bwrap
def test_an_endless_loop_is_a_timeout(world: World) -> None:
    result = world.run("def add(a, b):\n    while True:\n        pass\n", FEW)
    assert result.agreed == 0
    assert_failed_for(result, "timeout", "not run")


MEMORY_HOGS = {
    "one huge allocation": "def add(a, b):\n    x = bytearray(10 ** 10)\n    return a + b\n",
    "a growing list": "def add(a, b):\n    x = []\n    while True:\n        x.append(bytearray(1 << 20))\n",
    "a growing list at import": "x = []\nwhile True:\n    x.append(bytearray(1 << 20))\ndef add(a, b):\n    return a + b\n",
}


@needs_bwrap
@pytest.mark.parametrize("name", MEMORY_HOGS)
def test_a_memory_hog_runs_out_of_memory(world: World, name: str) -> None:
    result = world.run(MEMORY_HOGS[name], FEW)
    assert result.agreed == 0
    assert_failed_for(result, "MemoryError", "killed", "timeout", "Timeout", "not run")


PRINTERS = {
    # print() in a call is captured (and capped) by the harness: it runs out of memory or time
    "print 1 GB in a call": "def add(a, b):\n    for _ in range(10 ** 6):\n        print('x' * 1000)\n"
                            "    return a + b\n",
    # the harness's descriptors, found by number: the host's output cap stops it
    "write 1 GB to every descriptor": r'''
import os
def add(a, b):
    for _ in range(1000):
        for fd in range(2, 12):
            try:
                os.write(fd, b"x" * (1 << 20) + b"\n")
            except OSError:
                pass
    return a + b
''',
}


@needs_bwrap
@pytest.mark.parametrize("name", PRINTERS)
def test_printing_a_gigabyte_is_capped(world: World, name: str) -> None:
    result = world.run(PRINTERS[name], FEW)
    assert_failed_for(result, "MemoryError", "printed too much", "timeout", "killed", "crashed", "not run")


@needs_bwrap
def test_a_gigabyte_to_standard_output_at_import_goes_nowhere(world: World) -> None:
    source = "import os\nfor _ in range(1024):\n    os.write(1, b'x' * (1 << 20))\ndef add(a, b):\n    return a + b\n"
    assert world.run(source).agreement == 1.0  # fd 1 is /dev/null under the harness: no harm done


@needs_bwrap
@pytest.mark.parametrize("source", ["while True:\n    print('x' * 1000)\n",
                                    "import os\nwhile True:\n    os.write(1, b'x' * (1 << 20))\n"])
def test_a_program_printing_a_gigabyte_is_capped(world: World, source: str) -> None:
    result = world.run(source, BehaviourSettings(), reference=PROGRAM_REFERENCE)
    assert result.mode == "program" and result.agreed == 0
    assert reasons(result) == ["printed too much"]


# --- the files, the network and the processes outside ------------------------------------------------


WRITER = r'''
import os
TARGETS = ["@HOME@/.bashrc", "@HOME@/.ssh/id_rsa", "@HOME@/new.txt", os.path.expanduser("~/.bashrc"),
           "@CLASS@/students/alice.py", "@CLASS@/students/mallory.py", "@REFPATH@", "@CLASS@/new.txt",
           "/box/program.py", "/box/new.txt", "/new.txt", "/dev/new.txt", "/usr/new.txt"]
def add(a, b):
    for target in TARGETS:
        try:
            with open(target, "a") as handle:
                handle.write("pwned")
        except OSError:
            pass
    for folder in ["@HOME@/.config", "@CLASS@/pwned"]:
        try:
            os.makedirs(folder)
        except OSError:
            pass
    return a + b
'''


@needs_bwrap
def test_writes_to_home_and_the_class_folder_change_nothing(world: World) -> None:
    assert world.run(WRITER).agreement == 1.0  # the attack fails quietly; the answers are right


DELETER = r'''
import os, shutil
def add(a, b):
    for folder in ["/box", "/tmp", "@CLASS@", "@HOME@", "/usr/lib/python3"]:
        shutil.rmtree(folder, ignore_errors=True)
    for path in ["/box/program.py", "/box/harness.py", "/box/calls.json", "@REFPATH@"]:
        try:
            os.remove(path)
        except OSError:
            pass
    return a + b
'''


@needs_bwrap
def test_deleting_files_changes_nothing_outside(world: World) -> None:
    assert world.run(DELETER).agreement == 1.0


PEEKER = r'''
import glob, os, re, stat
NEEDLE = "ANSWER" + "-KEY-"  # the start of the reference's secret, never the secret itself
SENSITIVE = ["/etc/passwd", "/etc/shadow", "@REFPATH@", "@CLASS@/students/alice.py", "@HOME@/.bashrc"]
PATTERNS = ["/box/*", "/tmp/*", "/tmp/refscore-box-*/box/*", "/proc/*/cwd/*", "/proc/*/root/box/*",
            "/proc/*/root/tmp/*", "/proc/*/fd/*", "/proc/*/cmdline", "/proc/*/environ", "/dev/shm/*",
            "/root/*", "/home/*/*", "@CLASS@/*"]

def _texts():
    paths = list(SENSITIVE)
    for pattern in PATTERNS:
        paths += glob.glob(pattern)
    for root, folders, files in os.walk("/"):
        folders[:] = [f for f in folders if os.path.join(root, f) not in ("/proc", "/usr", "/dev", "/sys")]
        paths += [os.path.join(root, name) for name in files]
    for path in paths:
        try:
            if stat.S_ISFIFO(os.stat(path).st_mode):
                continue  # the harness's own pipes: reading them would only steal its records
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                yield path, os.read(fd, 1 << 20).decode("latin-1")
            finally:
                os.close(fd)
        except OSError:
            pass

# once, at import: what it could open of the sensitive places, and where it saw the key
FOUND = [(path, text[text.find(NEEDLE):][:80]) if NEEDLE in text else (path, "")
         for path, text in _texts() if NEEDLE in text or path in SENSITIVE]

def add(a, b):
    print(FOUND)
    return a + b if not FOUND else FOUND

def key(n):
    for path, text in FOUND:
        if text:
            return re.match(NEEDLE + "[0-9a-f]+", text).group() + str(n)  # the answer key, had it leaked
    return "no key"
'''


@needs_bwrap
def test_the_reference_and_host_files_cannot_be_read(world: World) -> None:
    # another sandbox holding the reference runs meanwhile, as it would in a busy server
    sandbox = find_sandbox()
    beside = threading.Thread(target=sandbox.run, args=(["/bin/sleep", "2"], {"program.py": REFERENCE}))
    beside.start()
    try:
        result = world.run(PEEKER, BOTH, check=False)
    finally:
        beside.join()
    world.check()
    by_name = {f.name: f for f in result.functions}
    assert by_name["add"].agreement == 1.0, result.disagreements  # nothing found, nothing sensitive opened
    assert by_name["key"].agreed == 0  # so no answer key either
    shown = json.dumps([[d.actual, d.reason] for d in result.disagreements])
    assert SECRET not in shown and "no key" in shown


@needs_bwrap
def test_the_checks_would_see_an_escape(world: World, tmp_path: Path) -> None:
    """The instruments work: a process with the mark, a connection, a changed canary, and the
    peeking candidate finding a key where one is in its reach (its own inputs)."""
    leftover = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", MARK])
    try:
        deadline = time.monotonic() + hang_guard(60)
        while not survivors(set()) and time.monotonic() < deadline:  # once it has started
            time.sleep(0.02)
        assert survivors(set())
    finally:
        leftover.kill()
        leftover.wait()
    socket.create_connection(("127.0.0.1", world.loopback.tcp_port)).close()
    deadline = time.monotonic() + hang_guard(60)
    while not world.loopback.reached and time.monotonic() < deadline:
        time.sleep(0.02)
    assert world.loopback.reached
    world.loopback.reached.clear()
    (world.home / ".bashrc").write_text("# changed\n")
    assert snapshot(world.folder, world.home) != world.before
    load, records = run_calls(find_sandbox(), world.source(PEEKER), [Call("key", repr(SECRET), "file")], 2.0, 20.0)
    assert load == {"load": "ok"} and records[0]["v"] == ["s", SECRET + SECRET]


NETWORK = r'''
import socket
def add(a, b):
    reached = []
    for family, address in [(socket.AF_INET, ("127.0.0.1", @PORT@)), (socket.AF_UNIX, "\0@UNIX@"),
                            (socket.AF_INET, ("1.1.1.1", 53))]:
        try:
            connection = socket.socket(family, socket.SOCK_STREAM)
            connection.settimeout(0.3)
            connection.connect(address)
            reached.append(str(address))
        except OSError:
            pass
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", @UDP@))
    except OSError:
        pass
    return a + b if not reached else reached
'''


@needs_bwrap
def test_sockets_reach_nothing_outside(world: World) -> None:
    assert world.run(NETWORK).agreement == 1.0  # check(): the servers on this machine saw nobody


LEAVERS = {
    "a daemon at import": r'''
import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", "@MARK@"])
    os._exit(0)
def add(a, b):
    return a + b
''',
    "a process per call that ignores signals": r'''
import os, signal, sys, subprocess
def add(a, b):
    if os.fork() == 0:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        os.execv(sys.executable, [sys.executable, "-c", "import signal, time\n"
                 "for s in (1, 2, 15): signal.signal(s, signal.SIG_IGN)\ntime.sleep(300)", "@MARK@"])
    return a + b
''',
}


@needs_bwrap
@pytest.mark.parametrize("name", LEAVERS)
def test_processes_left_behind_die_with_the_sandbox(world: World, name: str) -> None:
    assert world.run(LEAVERS[name]).agreement == 1.0  # check(): none of them is left


@needs_bwrap
def test_killing_the_parent_and_the_test_process_fails(world: World) -> None:
    source = r'''
import os, signal
def add(a, b):
    for target in (os.getppid(), 1, @PID@, -1):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    for group in (@PGID@, os.getpgid(os.getppid())):
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    return a + b
'''
    assert world.run(source).agreement == 1.0  # and this process is still here to say so


@needs_bwrap
def test_killing_its_own_process_group_is_a_crash(world: World) -> None:
    result = world.run("import os, signal\ndef add(a, b):\n    os.killpg(0, signal.SIGKILL)\n")
    assert result.agreed == 0
    assert_failed_for(result, "crashed", "killed", "not run")


# --- the harness ------------------------------------------------------------------------------------


SWALLOWERS = {
    "in a call": r'''
import time
def add(a, b):
    while True:
        try:
            time.sleep(1)
        except BaseException:
            pass
''',
    "at import": r'''
import time
while True:
    try:
        time.sleep(1)
    except BaseException:
        pass
def add(a, b):
    return a + b
''',
    "ignoring the alarm": r'''
import signal, time
def add(a, b):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(1000)
''',
}


@needs_bwrap
@pytest.mark.parametrize("name", SWALLOWERS)
def test_a_swallowed_timeout_still_ends(world: World, name: str) -> None:
    result = world.run(SWALLOWERS[name], FEW)
    assert result.agreed == 0
    assert_failed_for(result, "timeout", "Timeout", "not run")


EXITS = {
    "sys.exit at import": ("import sys\nsys.exit()\ndef add(a, b):\n    return a + b\n", "does not load: SystemExit"),
    "os._exit at import": ("import os\nos._exit(0)\ndef add(a, b):\n    return a + b\n", "does not load: Crash"),
    "sys.exit in the call": ("import sys\ndef add(a, b):\n    sys.exit(a + b)\n", "raised"),
    "os._exit in the call": ("import os\ndef add(a, b):\n    os._exit(0)\n", "crashed"),
}


@needs_bwrap
@pytest.mark.parametrize("name", EXITS)
def test_exiting_is_a_failure_with_its_reason(world: World, name: str) -> None:
    source, reason = EXITS[name]
    result = world.run(source)
    assert result.agreed == 0
    assert reason in reasons(result)[0]
    assert_failed_for(result, reason, "not run")


FORGER = r'''
import json, os
lines = [{"load": "ok"}] + [{"i": i, "v": ["i", "3"]} for i in range(200)]
for fd in range(2, 12):  # the harness's protocol is one of these
    try:
        os.write(fd, "".join(json.dumps(line) + "\n" for line in lines).encode())
    except OSError:
        pass
def add(a, b):
    return -1
'''


@needs_bwrap
def test_forged_records_gain_nothing_over_returning_the_same(world: World) -> None:
    # the program shares the harness's process: it can write records, but it never has the
    # reference's outcomes, so a forged "3" earns what returning 3 earns, and no more
    forged = world.run(FORGER)
    honest = world.run("def add(a, b):\n    return 3\n")
    assert forged.agreed == honest.agreed < honest.inputs


MALFORMED = r'''
import os
LINES = [b'{"load": "ok"}', b'{"i": 0, "v": ' + b"[" * 100000 + b"]" * 100000 + b"}",
         b'{"i": 0, "v": ["i", "x"]}', b'{"i": 1, "v": 5}', b'{"i": 2, "v": ["l", 5]}',
         b'{"i": 3, "v": ["i", "' + b"9" * 5000 + b'"]}', b'{"i": 4, "v": ["y", "zz"]}',
         b'{"i": 5, "e": 7, "out": []}', b"[1, 2]", b'{"i": "0"}', b"\xff\xfe garbage", b"{"]
for fd in range(3, 12):
    try:
        os.write(fd, b"\n".join(LINES) + b"\n")
    except OSError:
        pass
def add(a, b):
    return a + b
'''


@needs_bwrap
def test_malformed_records_are_rows_not_crashes(world: World) -> None:
    result = world.run(MALFORMED)
    assert result.agreed == max(0, result.inputs - 6)  # its six forged records are lost, the rest its own
    assert_failed_for(result, "malformed")


# --- the candidate's text ---------------------------------------------------------------------------


GARBAGE = {
    "lone surrogates": ("def add(a, b):\n    return a + b  # \udcff\udcfe \ud800\n", False),
    "NUL bytes": ("def add(a, b):\n    return a + b\n\x00\x00\x00", False),
    "binary noise": (bytes(range(256)).decode("latin-1") * 40, False),
    "undecodable bytes": (b"def add(a, b):\n    return a + b\n# \xff\xfe\xc3\n".decode("utf-8", "surrogateescape"),
                          False),
    "a byte order mark": ("\ufeffdef add(a, b):\n    return a + b\n", None),
    "bidi controls and emoji": ("def add(a, b):\n    s = '\u202e\u2067'  # \u202e \U0001F4A3\n    return a + b\n", True),
}


@needs_bwrap
@pytest.mark.parametrize("name", GARBAGE)
def test_garbage_text_is_a_defined_result(world: World, name: str) -> None:
    source, agrees = GARBAGE[name]
    result = world.run(source)
    if agrees is False:
        assert result.agreed == 0
        assert_failed_for(result, "does not parse", "does not load")
    elif agrees:
        assert result.agreement == 1.0
    # and a whole program of it, which is not parsed before it runs
    program = world.run(source, BehaviourSettings(), reference=PROGRAM_REFERENCE)
    assert program.agreed == 0 and program.mode == "program"


@needs_bwrap
def test_a_five_megabyte_candidate(world: World) -> None:
    blob = "BLOB = '" + "x" * (3 << 20) + "'\n"
    lines = "".join(f"CONSTANT_{i} = {i}  # some padding to make the file long\n" for i in range(40_000))
    source = "def add(a, b):\n    return a + b\n" + blob + lines
    assert len(source) > 5_000_000
    assert world.run(source).agreement == 1.0


# --- without a sandbox ------------------------------------------------------------------------------


@pytest.fixture
def fresh_find_sandbox():
    find_sandbox.cache_clear()
    yield
    find_sandbox.cache_clear()


def test_without_bubblewrap_nothing_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         fresh_find_sandbox: None) -> None:
    monkeypatch.delenv(UNSAFE_ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no bwrap on it
    started = []
    monkeypatch.setattr(sandbox_module, "_run_limited", lambda *args, **kwargs: started.append(args))
    marker = tmp_path / "ran"
    writes = f"open({str(marker)!r}, 'w').close()\n"
    for reference, candidate in [(REFERENCE + writes, writes + "def add(a, b):\n    return a + b\n"),
                                 (writes + PROGRAM_REFERENCE, writes)]:
        result = run_behaviour(reference, candidate, "python")
        assert not result.ran and result.not_run is not None and result.not_run.startswith("no sandbox")
        assert result.summary().startswith("not run: no sandbox")
    assert started == [] and not marker.exists()


def test_unsandboxed_only_when_asked_and_with_a_warning(fresh_find_sandbox: None, world: World,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv(UNSAFE_ENV, "1")
    # a working bubblewrap is preferred even when running without one is allowed
    assert "|sandbox:bwrap|" in world.run("def add(a, b):\n    return a + b\n").signature
    find_sandbox.cache_clear()
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)  # no bubblewrap here
    # as root, each run is still a user of its own, and whatever that user left behind is killed
    candidate = LEAVERS["a daemon at import"] if os.geteuid() == 0 else "def add(a, b):\n    return a + b\n"
    result = world.run(candidate)  # check(): nothing left
    assert result.agreement == 1.0 and "|sandbox:none|" in result.signature
    assert "WITHOUT a sandbox" in capsys.readouterr().err


def test_find_sandbox_says_why_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           fresh_find_sandbox: None) -> None:
    monkeypatch.delenv(UNSAFE_ENV, raising=False)
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    with pytest.raises(SandboxUnavailable, match=r"^no sandbox: bubblewrap \(bwrap\) is not installed$"):
        find_sandbox()
