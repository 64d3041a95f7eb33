"""A private network, PID and mount namespace for the local Ray clusters of the tests and benchmarks.

Ray turns ``--node-ip-address 127.0.0.1`` into the machine's outward address, so a ``ray start``
cluster on the host listens beyond loopback, and ``ray stop --force`` stops every Ray process of
the machine. Inside ``unshare --net --pid --fork --mount-proc`` (loopback up) the only interface is
``lo``: Ray binds 127.0.0.1, and ``ray stop`` or a scan of ``/proc`` sees only the namespace's
processes. Every process of the namespace dies with it (its PID 1 is a child of ``unshare
--kill-child``, itself killed when the process that opened it dies).

``RayNamespace.command(argv)`` wraps a command to run inside (``nsenter``); ``listeners()`` reads the
listening TCP sockets of the namespace from its own ``/proc/net/tcp{,6}``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def unavailable() -> str | None:
    """Why no namespace can be made here (a reason for ``pytest.skip``), or None."""
    for tool in ("unshare", "nsenter", "ip"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed: the Ray cluster tests run only in a private network namespace"
    try:
        with RayNamespace():
            return None
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        return f"no private network namespace here ({error}): the Ray cluster tests run only in one"


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


class RayNamespace:
    """The namespace, held by a sleeping PID 1; closed (every process in it killed) on exit."""

    def __init__(self) -> None:
        self.user = os.geteuid() != 0  # without root, a user namespace maps us to root inside
        self.holder: subprocess.Popen | None = None
        self.pid = 0  # the host PID of the namespace's PID 1

    def __enter__(self) -> "RayNamespace":
        command = ["unshare", *(["--user", "--map-root-user"] if self.user else []), "--net", "--pid", "--fork",
                   "--mount-proc", "--kill-child", "--", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"]
        self.holder = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                       stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        line = self.holder.stdout.readline() if self.holder.stdout else ""
        if line.strip() != "up":
            self.close()
            raise RuntimeError(f"unshare failed: {(self.holder.stderr.read() if self.holder.stderr else '').strip()}")
        while not self.pid:  # unshare forked PID 1 before it printed; /proc may lag a moment
            children = _children(self.holder.pid)
            self.pid = children[0] if children else 0
            time.sleep(0 if self.pid else 0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill the namespace's PID 1, which takes every process of the namespace with it."""
        if self.holder is not None and self.holder.poll() is None:
            self.holder.kill()
            self.holder.wait()
        while self.pid and Path(f"/proc/{self.pid}").exists() and _state(self.pid) not in ("Z", ""):
            time.sleep(0.05)  # PID 1 gets SIGKILL from --kill-child; wait until it is gone

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the namespace (its network, PIDs and /proc)."""
        enter = ["nsenter", "-t", str(self.pid), *(["-U", "--preserve-credentials"] if self.user else []),
                 "-n", "-p", "-m", "--"]
        return [*enter, *argv]

    def inner_pids(self, process: subprocess.Popen) -> list[int]:
        """Host PIDs of what ``process`` (an ``nsenter`` of ``command``) runs inside the namespace."""
        return _children(process.pid)

    def interfaces(self) -> list[str]:
        """The namespace's network interfaces (from its /proc/net/dev)."""
        lines = self._read("/proc/net/dev").splitlines()[2:]
        return sorted(line.split(":", 1)[0].strip() for line in lines if ":" in line)

    def listeners(self) -> list[str]:
        """Every listening TCP address of the namespace, as /proc/net/tcp{,6} write it (hex)."""
        out = []
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in self._read(table).splitlines()[1:]:
                fields = line.split()
                if len(fields) > 3 and fields[3] == "0A":  # 0A: LISTEN
                    out.append(fields[1])
        return out

    def _read(self, path: str) -> str:
        return subprocess.run(self.command(["cat", path]), capture_output=True, text=True, check=True,
                              timeout=60).stdout


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def loopback(hex_address: str) -> bool:
    """An address of /proc/net/tcp{,6} (32-bit words in little-endian hex) on the loopback interface."""
    host = hex_address.split(":")[0].upper()
    if len(host) == 8:
        return host.endswith("7F")  # 127.x.y.z
    return host in ("00000000000000000000000001000000",  # ::1
                    "0000000000000000FFFF00000100007F")  # ::ffff:127.0.0.1
