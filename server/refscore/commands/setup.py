"""``refscore setup``: install the CodeBERTScore runtime (torch, transformers, the embedded model)
into an environment of its own, with a plan first, progress, a log and one clear failure.

``--plan`` prints what would be downloaded (from where, how big) and stops; ``--json`` makes every
output machine-readable: the plan as one object, the install as JSON lines (one event a line:
``plan``, ``step``, ``progress``, ``done``, ``failed``). The VS Code extension runs exactly this.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Any

from ..provision.install import Cancel, Cancelled, Event, run_setup
from ..provision.plan import (
    DEFAULT_TORCH,
    Plan,
    SetupOptions,
    default_env,
    default_source,
    make_plan,
    size,
)
from ..safe_read import user_path
from ..vocabulary import EXIT_INTERRUPTED

#: The set-up could not start or a step failed (the message and the log say why).
EXIT_SETUP_FAILED = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "setup", help="install the CodeBERTScore runtime (torch, transformers, the model) into its own environment",
        description="Creates a Python environment with torch (the CPU build on Linux without an NVIDIA GPU), "
                    "refscore[bert] and the embedded all-MiniLM-L6-v2 model. --plan shows what is downloaded "
                    "first; --json prints the plan as JSON, the install as JSON lines.")
    parser.add_argument("--env", type=Path, help=f"the environment's folder (default {default_env()})")
    parser.add_argument("--python", dest="base_python", default=sys.executable,
                        help="the Python 3.10+ the environment is made from (default: this one)")
    parser.add_argument("--from", dest="source",
                        help="what provides refscore: a wheel, a source folder or a requirement "
                             f"(default {default_source()})")
    parser.add_argument("--torch", default=DEFAULT_TORCH, help=f"the torch requirement (default {DEFAULT_TORCH})")
    parser.add_argument("--torch-index-url", default="",
                        help="index for torch (default: the CPU index on Linux without an NVIDIA GPU)")
    parser.add_argument("--find-links", default="", metavar="DIR",
                        help="a folder of wheels looked in first (offline sites: add --pip-arg=--no-index)")
    parser.add_argument("--pip-arg", dest="pip_args", action="append", default=[], metavar="ARG",
                        help="one more pip install argument (repeat it), e.g. --pip-arg=--no-index")
    parser.add_argument("--plan", action="store_true", help="print the plan (downloads, sizes, steps) and stop")
    parser.add_argument("--json", action="store_true", help="the plan as JSON; the install as JSON lines")
    parser.add_argument("--force", action="store_true", help="make the environment again although it is ready")
    parser.set_defaults(handler=run)


def options_from(args: argparse.Namespace) -> SetupOptions:
    return SetupOptions(env=user_path(args.env) if args.env else default_env(), base_python=args.base_python,
                        source=args.source or default_source(), torch=args.torch.strip() or DEFAULT_TORCH,
                        torch_index_url=args.torch_index_url, find_links=args.find_links,
                        pip_args=tuple(args.pip_args))


def _print_plan(plan: Plan) -> None:
    print(plan.question)
    for line in plan.details:
        print(f"  {line}")
    for problem in plan.problems:
        print(f"refscore setup: cannot start: {problem}", file=sys.stderr)


class _Printer:
    """Events as JSON lines, or as lines for a person."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def __call__(self, event: Event) -> None:
        if self.as_json:
            print(json.dumps(event), flush=True)
            return
        kind = event["event"]
        if kind == "step":
            print(f"[{event['step']}/{event['steps']}] {event['title']}", flush=True)
        elif kind == "progress":
            print(f"      {event['message']}", flush=True)
        elif kind == "done":
            what = "already set up" if event.get("already") else f"set up in {event['seconds']} s"
            print(f"CodeBERTScore is {what}: {event['python']}", flush=True)
        elif kind == "failed":
            log = f" (log: {event['log']})" if event.get("log") else ""
            print(f"refscore setup: {event['reason']}{log}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    plan = make_plan(options_from(args))
    if args.plan:
        if args.json:
            print(json.dumps(plan.to_json(), indent=2))
        else:
            _print_plan(plan)
        return EXIT_SETUP_FAILED if plan.problems else 0
    emit = _Printer(args.json)
    if args.json:
        emit({"event": "plan", **plan.to_json()})
    else:
        print(f"Setting up CodeBERTScore in {plan.env}: about {size(plan.download_mb)} to download, about "
              f"{size(plan.disk_mb)} on disk (log: {plan.log})", flush=True)
    cancel = Cancel()
    previous: dict[int, Any] = {}
    for signum in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C, the editor's Cancel: stop the step, clean up
        try:
            previous[signum] = signal.signal(signum, cancel.request)
        except ValueError:  # not the main thread
            break
    try:
        return 0 if run_setup(plan, emit, force=args.force, cancel=cancel) else EXIT_SETUP_FAILED
    except Cancelled:
        emit({"event": "failed", "reason": "cancelled", "log": plan.log})
        return EXIT_INTERRUPTED
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
