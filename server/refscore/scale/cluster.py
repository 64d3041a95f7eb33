"""Connecting to a Ray cluster (or starting a private one on this machine), in one place.

Ray is optional (``pip install 'refscore[ray]'``); without it, or when the cluster cannot be
reached, the caller gets a ``RayUnavailable`` with one line to show.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import socket
import sys
import tempfile
from dataclasses import dataclass
from typing import Iterator

from ..errors import RefScoreError

#: Environment every worker gets: models come from local files only.
WORKER_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
#: Settings of this process that change numbers, passed on to the workers.
FORWARDED_ENV = ("REFSCORE_ENCODER_BACKEND", "REFSCORE_DEVICE", "HF_HOME", "HF_HUB_CACHE")
#: Ray's setting for its workers' niceness (read by the raylet from its environment).
WORKER_NICENESS = "RAY_worker_niceness"
#: The only address a private cluster (no ``--ray-address``) listens on.
LOOPBACK = "127.0.0.1"
_CLUSTER_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


class RayUnavailable(RefScoreError):
    """Ray is not installed or the cluster cannot be reached (exit 5)."""


@dataclass(frozen=True)
class Cluster:
    """What the connected cluster offers."""

    cpus: float
    gpus: float
    nodes: int
    address: str


def connect(address: str | None = None) -> Cluster:
    """Connect this process to the cluster at ``address`` (``auto``: the one started on this
    machine with ``ray start``; None: ``$RAY_ADDRESS``, else a private cluster of this machine).

    A private cluster is new and this process's own: Ray's record of the machine's last cluster
    (``ray_current_cluster``) is never read, its files live in a folder of its own, and it stops
    (its own processes only) when this process exits."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable("the ray engine needs Ray: pip install 'refscore[ray]'") from None
    for name, value in WORKER_ENV.items():
        os.environ.setdefault(name, value)
    # the driver's core worker logs notes on stderr (e.g. that restartable actors have arguments in
    # the object store, which Ray Data always does); errors still reach us as exceptions
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    target = address or os.environ.get("RAY_ADDRESS") or None
    if target:
        _probe(_recorded(target) if target == "auto" else target)
    started = ""  # the private cluster's folder, when this call starts one
    if not ray.is_initialized():
        env = {**WORKER_ENV, **{k: v for k, v in os.environ.items() if k in FORWARDED_ENV}}
        options: dict = {"address": target, "logging_level": logging.ERROR, "log_to_driver": False,
                         "runtime_env": {"env_vars": env}}
        if target is None:  # a new private cluster of this machine: loopback only, no dashboard
            options.update(_private_options())
            started = options["_temp_dir"]
        try:
            with _quiet_stderr():  # the core worker's start-up line (it names the log level set above)
                ray.init(**options)
        except Exception as error:  # noqa: BLE001 - ConnectionError, RuntimeError, ValueError...
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise RayUnavailable(f"cannot connect to the Ray cluster at {target or 'a new local cluster'}: "
                                 f"{type(error).__name__}: {first}") from None
    quiet_ray_data()
    resources = ray.cluster_resources()
    nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
    where = target or _gcs_address(ray) or "local"
    if started:
        print(f"refscore: started a private Ray cluster on this machine at {where} (loopback only, "
              f"no dashboard, files in {started}); it stops when this run ends", file=sys.stderr, flush=True)
    return Cluster(float(resources.get("CPU", 0)), float(resources.get("GPU", 0)), nodes, where)


def _private_options() -> dict:
    """``ray.init`` options for a new private cluster. ``address="local"``: always a new cluster
    (``None`` would join the one in Ray's record of the machine's last cluster, or hang on a stale
    record); a temporary folder of its own (short: Ray's socket paths must fit 107 bytes), removed
    with the cluster when this process exits."""
    _loopback_only()
    # Ray starts its workers at niceness 15 so that its own daemons stay responsive; here the
    # workers are the job, and at 15 they get next to no CPU beside any other busy process (a
    # grade run beside a build, or stress-ng, stalled for minutes). Ray's job manager does the same.
    os.environ.setdefault(WORKER_NICENESS, "0")
    folder = tempfile.mkdtemp(prefix="refscore-ray-", dir="/tmp" if os.path.isdir("/tmp") else None)
    atexit.register(_stop_private, folder)  # runs before Ray's own exit hook (registered later runs first)
    return {"address": "local", "_temp_dir": folder, "include_dashboard": False, "_node_ip_address": LOOPBACK}


def _stop_private(folder: str) -> None:
    """Stop the private cluster this process started (its processes only) and remove its folder."""
    try:
        import ray

        ray.shutdown()
    except Exception:  # noqa: BLE001 - at exit: the folder goes whatever happened
        pass
    shutil.rmtree(folder, ignore_errors=True)


def _recorded(address: str) -> str:
    """The HOST:PORT Ray would use for ``auto`` (``$RAY_ADDRESS``, else its record of the machine's
    last ``ray start``), so a stale record fails in seconds; ``auto`` when none is found (Ray says so)."""
    try:
        from ray._private.services import get_ray_address_from_environment

        return get_ray_address_from_environment(address, None) or address
    except Exception:  # noqa: BLE001 - none found, or another Ray layout: left to ray.init
        return address


def _loopback_only() -> None:
    """Make the private cluster's servers (GCS, raylet, workers) bind 127.0.0.1 only.

    Ray 2.60 rewrites ``_node_ip_address="127.0.0.1"`` to the machine's address unless it treats
    this as a machine without clusters (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read once at
    import into ``ray_constants.ENABLE_RAY_CLUSTER``); with it, every server binds loopback."""
    os.environ[_CLUSTER_ENV] = "0"  # the processes Ray starts read it at their import
    try:
        from ray._private import ray_constants
    except ImportError:  # pragma: no cover - another Ray layout: the _node_ip_address still asks
        return
    if hasattr(ray_constants, "ENABLE_RAY_CLUSTER"):
        ray_constants.ENABLE_RAY_CLUSTER = False


def _gcs_address(ray: object) -> str | None:
    """HOST:PORT of the connected cluster's GCS (None where this Ray does not say)."""
    try:
        return str(ray.get_runtime_context().gcs_address)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - informational only
        return None


#: An HTTP/2 client's opening (the preface and an empty SETTINGS frame): a Ray head's GCS, a
#: gRPC server, answers with a SETTINGS frame of its own at once.
_HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def _probe(address: str, timeout: float = 5.0) -> None:
    """A ``HOST:PORT`` address must answer within ``timeout``, as a gRPC server (Ray itself would
    wait minutes on a closed port, and without end on a port where something else listens).
    With ``RAY_USE_TLS`` only the connection is checked (the GCS then speaks TLS first)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return  # "auto" with no record, "ray://...": left to Ray
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as conn:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("0", "false", ""):
                conn.sendall(_HTTP2_HELLO)
                reply = conn.recv(9)
                if len(reply) < 9 or reply[3] != 0x04:
                    raise RayUnavailable(f"cannot connect to the Ray cluster at {address}: something answers on "
                                         "that port, but not a Ray head (no gRPC reply); check the address")
    except socket.timeout:
        raise RayUnavailable(f"cannot connect to the Ray cluster at {address}: no answer within {timeout:g} s "
                             "(is it running? ray start --head ...)") from None
    except OSError as error:
        raise RayUnavailable(f"cannot connect to the Ray cluster at {address}: "
                             f"{error.strerror or error} (is it running? ray start --head ...)") from None


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 points at /dev/null for the duration (C++ code writes there directly)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def quiet_ray_data() -> None:
    """No progress bars or per-operator logs from Ray Data on our stderr."""
    try:
        from ray.data import DataContext
    except ImportError:  # pragma: no cover - ray without the data extra
        return
    context = DataContext.get_current()
    context.enable_progress_bars = False
    for name in ("enable_operator_progress_bars", "print_on_execution_start", "verbose_stats_logs"):
        if hasattr(context, name):
            setattr(context, name, False)
    logging.getLogger("ray.data").setLevel(logging.ERROR)
