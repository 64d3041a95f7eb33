"""``refscore daemon start|stop|status|run``: the per-user scoring daemon."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from typing import Any

from ..settings_schema import BACKENDS, EncoderChoice
from ..vocabulary import EXIT_INTERRUPTED

#: ``daemon status``: no daemon runs, or one runs but does not answer ("not responding").
EXIT_NOT_RUNNING = 1


def _add_settings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--idle-timeout", type=float, metavar="SECONDS",
                        help="exit after this long without requests (default 900, or $REFSCORE_DAEMON_IDLE; 0: never)")
    parser.add_argument("--workers", type=int, metavar="N", help="CodeBLEU worker threads (default 2)")
    parser.add_argument("--max-batch", type=int, metavar="N", help="most CodeBERTScore requests per model batch (default 64)")
    parser.add_argument("--batch-wait", type=float, metavar="MS",
                        help="how long the batcher waits for more requests before a batch "
                             "(default 0 on a CPU, 2 ms on a GPU)")
    parser.add_argument("--lanes", type=int, metavar="N",
                        help="CodeBERTScore batches run at once (default: min(4, cores) on a CPU, 1 on a GPU)")
    parser.add_argument("--model", help="CodeBERTScore model (local folder or cached Hugging Face id)")
    parser.add_argument("--layer", type=int, help="hidden layer of the model")
    parser.add_argument("--device", help="cpu, cuda, cuda:1, ... (default: cuda when present, else cpu)")
    parser.add_argument("--backend", choices=BACKENDS,
                        help="CodeBERTScore encoder engine (default auto: ONNX Runtime on a CPU, torch on a GPU; "
                             "or $REFSCORE_ENCODER_BACKEND)")
    parser.add_argument("--transport", choices=("auto", "unix", "tcp"),
                        help="unix socket (default where available) or loopback TCP with a token")
    parser.add_argument("--max-message-mb", type=float, metavar="MB",
                        help="largest message a client may send (default 64)")
    parser.add_argument("--large-chars", type=int, metavar="N",
                        help="requests with more characters than this (all texts) run in the large lanes, "
                             "CodeBLEU in a worker process that is killed when the work is abandoned (default 100000)")
    parser.add_argument("--large-workers", type=int, metavar="N",
                        help="large CodeBLEU requests run at once, each in a worker process (default: half the "
                             "cores, 1 to 4)")
    parser.add_argument("--advertise-version", help=argparse.SUPPRESS)  # tests: pose as another version


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "daemon", help="start, stop or inspect the background scoring daemon",
        description="The scoring daemon holds the CodeBERTScore model for every client of this user "
                    "(editors, `refscore score`, `refscore grade`). Clients start it on demand; it exits "
                    "after an idle time.")
    actions = parser.add_subparsers(dest="daemon_action", metavar="ACTION")
    start = actions.add_parser("start", help="start the daemon in the background (if none runs)")
    _add_settings(start)
    start.add_argument("--no-preload", dest="preload", action="store_false",
                       help="load the model at the first CodeBERTScore request instead of now")
    start.set_defaults(handler=run_start)
    stop = actions.add_parser("stop", help="stop the running daemon")
    stop.set_defaults(handler=run_stop)
    status = actions.add_parser("status", help="show pid, uptime, device, models, caches, queue and counters")
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    status.set_defaults(handler=run_status)
    foreground = actions.add_parser("run", help="run the daemon in the foreground (what `start` launches)")
    _add_settings(foreground)
    foreground.add_argument("--preload", action="store_true", help="load the default model at start")
    foreground.set_defaults(handler=run_foreground)
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])


def check_settings(args: argparse.Namespace) -> None:
    """Settings that cannot work are usage errors (exit 2) at ``start``/``run``, as for ``score``:
    ``--max-batch 0`` made every CodeBERTScore request wait forever, ``--idle-timeout nan`` broke
    ``daemon status``, ``--device potato`` and ``--layer 99`` failed only on the first request. A
    ``--model`` that is not here is not refused: each CodeBERTScore result says so (docs/daemon.md)."""
    import math

    from ..errors import InputFileError
    from . import options

    for name in ("workers", "max_batch", "lanes", "large_chars", "large_workers"):
        value = getattr(args, name, None)
        if value is not None and value < 1:
            raise options.UsageError(f"--{name.replace('_', '-')} {value}: must be at least 1")
    for name, low, what in (("idle_timeout", 0.0, "0 or more seconds (0: never)"),
                            ("batch_wait", 0.0, "0 or more milliseconds"), ("max_message_mb", 1e-9, "more than 0")):
        value = getattr(args, name, None)
        if value is not None and not (math.isfinite(value) and value >= low):
            raise options.UsageError(f"--{name.replace('_', '-')} {value:g}: must be {what}")
    idle = os.environ.get("REFSCORE_DAEMON_IDLE")
    if idle and args.idle_timeout is None:
        try:
            seconds = float(idle)
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds >= 0):
            raise options.UsageError(f"$REFSCORE_DAEMON_IDLE {idle!r}: must be 0 or more seconds (0: never)")
    options.make_model_portable(args)
    options.check_device(args.device, ("codebertscore",))
    if args.layer is not None:
        try:
            options.check_encoder(EncoderChoice(args.model, args.layer), ("python",), ("codebertscore",))
        except InputFileError:
            pass  # a model that is not here: the daemon reports it in each CodeBERTScore result


def _settings_argv(args: argparse.Namespace) -> list[str]:
    """The options of ``start`` to pass on to ``run``."""
    argv: list[str] = []
    for name in ("idle_timeout", "workers", "max_batch", "batch_wait", "lanes", "model", "layer", "device", "backend",
                 "transport", "max_message_mb", "large_chars", "large_workers", "advertise_version"):
        value = getattr(args, name, None)
        if value is not None:
            argv += ["--" + name.replace("_", "-"), str(value)]
    if getattr(args, "preload", False):
        argv.append("--preload")
    return argv


def run_foreground(args: argparse.Namespace) -> int:
    from ..service import paths
    from ..service.daemon import EXIT_ALREADY_RUNNING, DaemonConfig, run_daemon

    check_settings(args)
    overrides: dict[str, Any] = {
        "idle_timeout": args.idle_timeout, "workers": args.workers, "max_batch": args.max_batch, "lanes": args.lanes,
        "batch_wait": None if args.batch_wait is None else args.batch_wait / 1000.0,
        "encoder": EncoderChoice(args.model, args.layer, args.device), "transport": args.transport,
        "max_message_bytes": None if args.max_message_mb is None else int(args.max_message_mb * 1024 * 1024),
        "preload": args.preload or None, "advertise_version": args.advertise_version,
        "large_chars": args.large_chars, "large_workers": args.large_workers,
    }
    if args.backend:  # read by the encoder when the model loads
        os.environ["REFSCORE_ENCODER_BACKEND"] = args.backend
    code = run_daemon(DaemonConfig.from_env(**overrides))
    if code == EXIT_INTERRUPTED:  # Ctrl-C: stopped as by `daemon stop`, socket and files removed
        print(f"refscore daemon: interrupted; stopped (pid {os.getpid()})", file=sys.stderr)
    elif code == EXIT_ALREADY_RUNNING:  # (a start that lost a race: a line in daemon.stderr)
        pid = (paths.read_info() or {}).get("pid", "unknown")
        print(f"refscore daemon: already running (pid {pid}); `refscore daemon stop` first to run one here",
              file=sys.stderr)
    # Socket removed and lock released: exit now. Worker threads still finishing abandoned work
    # would otherwise hold the process (and `refscore daemon stop`) until they are done.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_start(args: argparse.Namespace) -> int:
    from ..service import DaemonClient

    check_settings(args)
    argv = _settings_argv(args)
    client = DaemonClient(autostart=True, daemon_args=argv)
    try:
        info = client.connect()
        verb = "started" if client.started_daemon else "already running"
        print(f"refscore daemon {info.get('version')}: {verb} (pid {info.get('pid')}, {info.get('transport')})")
        if not client.started_daemon and any(a != "--preload" for a in argv):
            print("note: the running daemon keeps its settings; `refscore daemon stop` first to change them")
    except KeyboardInterrupt:
        return _cancel_start(client)
    finally:
        client.close()
    return 0


def _cancel_start(client: Any) -> int:
    """Ctrl-C during ``daemon start``: the start is called off, so the daemon it spawned (still
    starting, or just started) is stopped too, as ``daemon stop`` would (SIGTERM, then SIGKILL)."""
    from ..service.processes import terminate

    process = client.spawned
    if process is None or process.poll() is not None:
        raise KeyboardInterrupt  # nothing of its own runs: the usual one line and 130
    if terminate(process.pid):
        print(f"refscore daemon: interrupted; the daemon it was starting (pid {process.pid}) was stopped",
              file=sys.stderr)
    else:
        print(f"refscore daemon: interrupted; the daemon it was starting (pid {process.pid}) did not stop; "
              "`refscore daemon stop` ends it", file=sys.stderr)
    process.poll()  # reaped: no zombie
    return EXIT_INTERRUPTED


#: Seconds ``daemon stop`` waits for an orderly exit before it ends the process.
STOP_GRACE = 10.0


def run_stop(args: argparse.Namespace) -> int:
    """Ask the daemon to exit; one that does not answer, or does not exit, has its process ended."""
    from ..service import DaemonClient, DaemonDidNotExit, DaemonNotResponding, DaemonUnavailable

    client = DaemonClient(autostart=False)
    try:
        pid = client.shutdown(wait=True, timeout=STOP_GRACE)
    except DaemonNotResponding as error:
        return _end_unresponsive(error.pid, f"{error}")
    except DaemonUnavailable:
        print("refscore daemon: not running")
        return 0
    except DaemonDidNotExit as error:  # it answered, but has not exited after the grace period
        return _end_unresponsive(error.pid, str(error))
    print(f"refscore daemon: stopped (pid {pid})")
    return 0


def _end_unresponsive(pid: Any, why: str) -> int:
    """``daemon stop`` on a daemon that does not answer or does not exit: end its process."""
    from ..errors import EXIT_INTERNAL
    from ..service.processes import is_daemon_process, terminate

    if not isinstance(pid, int) or not is_daemon_process(pid):
        print(f"refscore: {why}; its process cannot be identified, so it was left alone", file=sys.stderr)
        return EXIT_INTERNAL
    if not terminate(pid):
        print(f"refscore: {why}; it did not end even after SIGKILL (pid {pid})", file=sys.stderr)
        return EXIT_INTERNAL
    print(f"refscore daemon: stopped (pid {pid}; it was not responding, so its process was ended)")
    return 0


def run_status(args: argparse.Namespace) -> int:
    from ..errors import RefScoreError
    from ..service import DaemonClient, DaemonNotResponding, DaemonUnavailable

    client = DaemonClient(autostart=False)
    try:
        status = client.status()
    except DaemonNotResponding as error:
        text = str(error).replace("the scoring daemon is ", "", 1)
        print(json.dumps({"running": True, "responding": False, "pid": error.pid, "error": str(error)})
              if args.json else f"refscore daemon: {text}")
        return EXIT_NOT_RUNNING
    except DaemonUnavailable:
        print(json.dumps({"running": False}) if args.json else "refscore daemon: not running")
        return EXIT_NOT_RUNNING
    except RefScoreError as error:  # an unsafe runtime directory: whether one runs is not known
        if args.json:  # a script reading stdout gets an object too; the one line follows on stderr
            print(json.dumps({"running": None, "error": str(error), "exit_code": error.exit_code}))
        raise
    finally:
        client.close()
    if args.json:
        print(json.dumps({"running": True, "responding": True, **status}, indent=1))
    else:
        print(render_status(status))
    return 0


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return (f"{hours}h {minutes}m {secs}s" if hours else f"{minutes}m {secs}s" if minutes else f"{secs}s")


def _mb(nbytes: Any) -> str:
    return f"{(nbytes or 0) / (1024 * 1024):.1f} MB"


def render_status(s: dict[str, Any]) -> str:
    """The human-readable status."""
    idle = s.get("idle_timeout_s") or 0
    models = s.get("models") or []
    model_text = "; ".join(
        f"{m.get('model')} layer {m.get('layer')} on {m.get('device')} ({m.get('dtype', '?')})" for m in models
    ) or "none loaded"
    caches = s.get("caches", {})
    cache_parts = [f"{name.replace('_', ' ')} {c['entries']}/{c['max_entries']}" for name, c in caches.items()]
    cache_parts += [f"embeddings of {m.get('model')} {m.get('embeddings_cached', 0)} ({_mb(m.get('embedding_cache_bytes'))})"
                    for m in models if "embeddings_cached" in m]
    req = s.get("requests", {})
    queue = s.get("queue", {})
    mean = s.get("mean_batch_size")
    rows = [
        ("pid", str(s.get("pid"))),
        ("uptime", f"{_duration(s.get('uptime_s', 0))} (idle {_duration(s.get('idle_for_s', 0))}; "
                   + (f"exits after {_duration(idle)} idle)" if idle else "no idle exit)")),
        ("transport", f"{s.get('transport')} {s.get('address')}"),
        ("device", str(s.get("device"))),
        ("models", model_text),
        ("caches", ", ".join(cache_parts) or "empty"),
        ("queue", f"codebleu {queue.get('codebleu', 0)}, codebertscore {queue.get('codebertscore', 0)}, "
                  f"in flight {queue.get('in_flight', 0)}"),
        ("large lanes", f"over {s.get('large_chars', 0):,} characters: codebleu {queue.get('codebleu_large', 0)} "
                        f"queued, {queue.get('large_running', 0)} of {s.get('large_workers', 1)} worker processes "
                        "busy; "
                        f"codebertscore {queue.get('codebertscore_large', 0)} queued"),
        ("requests", f"{req.get('served', 0)} served, {req.get('cancelled', 0)} cancelled "
                     f"({req.get('superseded', 0)} superseded, {req.get('stopped', 0)} stopped while running), "
                     f"{req.get('failed', 0)} failed, {req.get('received', 0)} received"),
        ("batches", f"{s.get('batches', 0)}, mean batch size {mean if mean is not None else 'n/a'}, "
                    f"{s.get('lanes', 1)} lane(s)"
                    + (f" of {s['torch_threads']} torch thread(s)" if s.get("torch_threads") else "")),
        ("connections", str(s.get("connections"))),
        ("log", str(s.get("log"))),
    ]
    for problem in s.get("model_errors") or []:
        rows.append(("model error", problem))
    lines = [f"refscore daemon {s.get('version')}: running"]
    lines += [f"  {name:<13}{value}" for name, value in rows]
    return "\n".join(lines)

