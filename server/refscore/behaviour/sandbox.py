"""The one place that starts untrusted processes: a bubblewrap sandbox per run.

What a sandboxed run sees: a read-only ``/usr`` (and the interpreter's own folder when it lives
elsewhere), a private ``/tmp`` and ``/dev/shm`` of bounded size as the only writable places (the
root and ``/dev`` are read-only, else they would be unbounded memory), the files it is given
(read-only, under ``/box``), no network (its own empty namespace), its own process namespace, no
``/etc``, no home, no class folder, a scrubbed environment, no further user namespaces (where
bubblewrap can forbid them). Limits: CPU seconds, address space, file size, open files and
processes (as an unprivileged user of its own when this process is root, so the process limit
counts), a wall-clock limit after which the whole sandbox dies, and a cap on what it may print.
When this process is root, every process still running as the run's user afterwards is killed,
so nothing a run starts outlives it, even unsandboxed. Nothing here knows what is being run:
``behaviour.runners`` say that.
"""

from __future__ import annotations

import itertools
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

#: Where the given files appear inside the sandbox.
BOX = "/box"
#: The environment variable that allows running without a sandbox (with a warning each time).
UNSAFE_ENV = "REFSCORE_BEHAVIOUR_UNSANDBOXED"
#: First of the user ids a root process runs sandboxes as (one per run, so each run's process
#: limit counts its own processes only).
_UID_BASE = 1_200_000
#: Runs of one process take user ids ``_UID_BASE + pid slot * _UIDS_PER_PROCESS + n``: the process id is
#: read at each run, so workers forked from one parent never share a user (nor its process limit)
_UIDS_PER_PROCESS = 4096
_uid_counter = itertools.count()
_uid_lock = threading.Lock()
#: The bounded ``/dev/shm`` (POSIX semaphores and shared memory) of a sandboxed run, at most.
SHM_BYTES = 16 << 20


@dataclass(frozen=True)
class Limits:
    """What one sandboxed run may use."""

    wall_seconds: float = 10.0
    cpu_seconds: int = 10
    memory_bytes: int = 1 << 30
    file_bytes: int = 16 << 20
    open_files: int = 64
    processes: int = 16
    output_bytes: int = 4 << 20
    tmp_bytes: int = 64 << 20


@dataclass(frozen=True)
class Completed:
    """How a sandboxed run ended: what it printed (capped), its status and why it was stopped."""

    stdout: bytes
    stderr: bytes
    returncode: int | None
    timed_out: bool = False
    output_capped: bool = False
    seconds: float = 0.0


class SandboxUnavailable(RuntimeError):
    """No sandbox on this machine (the message says why, in one line)."""


@dataclass(frozen=True)
class Sandbox:
    """A way to run a command apart: ``bwrap`` (bubblewrap) or, only when asked for explicitly,
    ``none`` (the process limits without any isolation)."""

    kind: str
    executable: str | None = None
    extra_binds: tuple[str, ...] = field(default=())
    #: Whether the sandbox forbids further user namespaces (``--disable-userns``, bubblewrap 0.8+):
    #: inside one, a program would hold every capability and reach much more of the kernel.
    no_user_namespaces: bool = False

    def run(self, argv: Sequence[str], files: Mapping[str, bytes | str], stdin: bytes = b"",
            limits: Limits = Limits(), binds: Sequence[str] = ()) -> Completed:
        """Run ``argv`` with ``files`` (name -> content) under ``/box`` and ``stdin``; ``binds``
        are extra host folders shown read-only (an interpreter outside ``/usr``)."""
        with tempfile.TemporaryDirectory(prefix="refscore-box-") as folder:
            uid = _run_as_uid()
            box = Path(folder) / "box"
            box.mkdir()
            for name, content in files.items():
                path = box / name
                path.write_bytes(_encoded(content))
                path.chmod(0o444)
            if uid is not None:
                os.chown(folder, uid, uid)
                os.chmod(folder, 0o500)
                os.chown(box, uid, uid)
                box.chmod(0o500)
                for name in files:
                    os.chown(box / name, uid, uid)
            if self.kind == "none":
                command = [_unsandboxed_path(a, box) for a in argv]
                cwd = str(box)
            else:
                command = [*self._bwrap_prefix(box, [*self.extra_binds, *binds], limits), *argv]
                cwd = "/"
            return _run_limited(command, stdin, limits, uid, cwd, sweep=self.kind == "none")

    def _bwrap_prefix(self, box: Path, binds: Sequence[str], limits: Limits) -> list[str]:
        prefix = [self.executable or "bwrap", "--unshare-all",
                  *(["--unshare-user", "--disable-userns"] if self.no_user_namespaces else []),
                  "--die-with-parent", "--new-session", "--clearenv",
                  "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp",
                  "--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONHASHSEED", "0",
                  "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
                  "--ro-bind", "/usr", "/usr"]
        for link in ("bin", "lib", "lib32", "lib64", "sbin"):
            target = Path("/") / link
            if target.is_symlink():
                prefix += ["--symlink", os.readlink(target), f"/{link}"]
            elif target.is_dir():
                prefix += ["--ro-bind", str(target), f"/{link}"]
        for folder in dict.fromkeys(binds):
            if not str(folder).startswith("/usr/"):
                prefix += ["--ro-bind", str(folder), str(folder)]
        prefix += ["--size", str(limits.tmp_bytes), "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
                   "--size", str(min(limits.tmp_bytes, SHM_BYTES)), "--tmpfs", "/dev/shm",
                   "--ro-bind", str(box), BOX,
                   # bubblewrap's root and /dev are tmpfs as big as half the memory: read-only, last
                   "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"]
        return prefix


def _encoded(content: bytes | str) -> bytes:
    """A file's bytes: text as UTF-8, its undecodable bytes (surrogate escapes) as they were, any
    other lone surrogate as ``?``."""
    if isinstance(content, bytes):
        return content
    try:
        return content.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # rare: only then look at each character
        return "".join("?" if "\ud800" <= c <= "\udfff" and not "\udc80" <= c <= "\udcff" else c
                       for c in content).encode("utf-8", "surrogateescape")


def _unsandboxed_path(arg: str, box: Path) -> str:
    return str(box) + arg[len(BOX):] if arg.startswith(BOX + "/") else arg


def _run_as_uid() -> int | None:
    """A fresh unprivileged user id when this process is root (None otherwise)."""
    if os.geteuid() != 0:
        return None
    with _uid_lock:
        slot = os.getpid() % (800_000_000 // _UIDS_PER_PROCESS)
        return _UID_BASE + slot * _UIDS_PER_PROCESS + next(_uid_counter) % _UIDS_PER_PROCESS


def _own_process_count() -> int:
    """How many tasks (processes and their threads) this user runs now: the process limit counts
    threads too, so a caller with a thread pool would otherwise leave a sandbox no room to start."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += max(1, len(os.listdir(f"/proc/{entry.name}/task")))
            except OSError:
                pass
    return count


def _run_limited(command: list[str], stdin: bytes, limits: Limits, uid: int | None, cwd: str,
                 sweep: bool = True) -> Completed:
    """``command`` under ``limits`` as ``uid`` (None: this user); ``sweep``: kill whatever that
    user left running afterwards (a bubblewrap run needs none: its process namespace ends with it)."""
    processes = limits.processes if uid is not None else _own_process_count() + limits.processes

    def drop() -> None:  # in the child, before exec: a session of its own, the limits, the user
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))

    started = time.monotonic()
    try:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   preexec_fn=drop, cwd=cwd, close_fds=True,
                                   env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"})
    except (OSError, subprocess.SubprocessError) as error:  # no such program, or a limit refused
        return Completed(b"", f"cannot start {command[0]}: {getattr(error, 'strerror', None) or error}".encode(), 127)
    outputs: dict[str, bytearray] = {"out": bytearray(), "err": bytearray()}
    capped = threading.Event()

    def read(stream: object, key: str, cap: int) -> None:
        buffer = outputs[key]
        while True:
            chunk = stream.read1(65536)  # type: ignore[attr-defined]
            if not chunk:
                return
            room = cap - len(buffer)
            buffer += chunk[:max(room, 0)]
            if len(chunk) > room:
                capped.set()
                _kill_group(process)

    def write() -> None:  # in a thread: a program that never reads its input must not stop the clock
        try:
            process.stdin.write(stdin)  # type: ignore[union-attr]
        except OSError:
            pass
        finally:
            try:
                process.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass

    threads = [threading.Thread(target=read, args=(process.stdout, "out", limits.output_bytes), daemon=True),
               threading.Thread(target=read, args=(process.stderr, "err", 64 << 10), daemon=True),
               threading.Thread(target=write, daemon=True)]
    for thread in threads:
        thread.start()
    timed_out = False
    # the run's output closes when it ends: waiting on the reader is a blocking wait, where
    # ``Popen.wait(timeout)`` polls with sleeps (several milliseconds of each short run)
    deadline = started + limits.wall_seconds
    for reader in threads[:2]:
        reader.join(timeout=max(0.0, deadline - time.monotonic()))
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(process)
        process.wait()
    if uid is not None and sweep:
        _kill_user(uid)
    for thread in threads:
        thread.join(timeout=5)
    return Completed(bytes(outputs["out"]), bytes(outputs["err"]), process.returncode, timed_out,
                     capped.is_set() and not timed_out, time.monotonic() - started)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            process.kill()
        except ProcessLookupError:
            pass


def _kill_user(uid: int) -> None:
    """SIGKILL to every process still running as ``uid``, a run's own user (as that user,
    ``kill(-1)``: one step, which a process forking meanwhile cannot outrun). In a sandbox its
    process namespace already ends them all; unsandboxed, this is what does."""

    def kill_all() -> None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        os.kill(-1, signal.SIGKILL)  # every process of this user but the caller itself

    try:
        subprocess.run([_TRUE], preexec_fn=kill_all, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, close_fds=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        pass


_TRUE = shutil.which("true", path="/usr/bin:/bin") or "/bin/true"


@lru_cache(maxsize=None)
def find_sandbox(allow_unsandboxed: bool = False) -> Sandbox:
    """The sandbox this machine offers; ``SandboxUnavailable`` says in one line why there is
    none. Where there is none, ``allow_unsandboxed`` (or ``$REFSCORE_BEHAVIOUR_UNSANDBOXED=1``)
    runs with the process limits only, with a warning; a working bubblewrap is always preferred."""
    try:
        return _bubblewrap()
    except SandboxUnavailable as error:
        if not (allow_unsandboxed or os.environ.get(UNSAFE_ENV) == "1"):
            raise
        print(f"refscore: warning: behaviour runs candidates WITHOUT a sandbox (only process limits): {error}",
              file=sys.stderr)
        return Sandbox("none")


def _bubblewrap() -> Sandbox:
    """bubblewrap, checked by starting it (SandboxUnavailable says why it cannot be had)."""
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"no sandbox on {sys.platform} (bubblewrap is Linux only)")
    executable = shutil.which("bwrap")
    if executable is None:
        raise SandboxUnavailable("no sandbox: bubblewrap (bwrap) is not installed")
    for sandbox in (Sandbox("bwrap", executable, no_user_namespaces=True), Sandbox("bwrap", executable)):
        probe = sandbox.run(["/bin/true"], {}, limits=Limits(wall_seconds=20))
        if probe.returncode == 0:
            return sandbox  # the first that starts: without further user namespaces when it can
    reason = probe.stderr.decode("utf-8", "replace").strip().splitlines()
    raise SandboxUnavailable("no sandbox: bubblewrap cannot start here"
                             + (f" ({reason[-1][:120]})" if reason else ""))
