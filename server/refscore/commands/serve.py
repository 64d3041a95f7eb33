"""``refscore serve``: the language server on stdin/stdout (live scores in any LSP client)."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from ..errors import UsageError

#: What the language server imports from the ``lsp`` extra (pyproject.toml).
_LSP_EXTRA = ("pygls", "lsprotocol")


def _lacking(package: str) -> str:
    """``pygls is not installed``, or ``pygls 1.3.1 is installed, an older one`` (pygls 1 has
    other modules: the extra asks for pygls>=2)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{package} {version(package)} is installed, an older one"
    except PackageNotFoundError:
        return f"{package} is not installed"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the language server (LSP over stdio)",
        description="Run the RefScore language server over stdin/stdout. See docs/editor.md.")
    parser.add_argument("--stdio", action="store_true", help="accepted for clients that pass it (stdio is the default)")
    parser.add_argument("--no-daemon", action="store_true",
                        help="never start or use the scoring daemon (CodeBLEU only)")
    parser.add_argument("--log-file", help="write the server's log here (default: stderr, warnings only)")
    parser.add_argument("--verbose", action="store_true", help="log debug messages")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the editor never waits on the network
    level = logging.DEBUG if args.verbose else logging.WARNING
    if args.log_file:
        try:
            handler = logging.FileHandler(args.log_file, encoding="utf-8")
        except OSError as error:  # a folder that does not exist, a folder, no permission
            raise UsageError(f"serve: cannot write the log file {args.log_file}: "
                             f"{error.strerror or error}") from None
        logging.basicConfig(handlers=[handler], level=level, format="%(asctime)s %(name)s %(message)s")
    else:
        logging.basicConfig(stream=sys.stderr, level=level, format="refscore serve: %(name)s: %(message)s")
    try:
        from ..lsp.protocol import one_line_errors
        from ..lsp.app import build_server
    except ImportError as error:
        package = (error.name or "").split(".")[0]
        if package not in _LSP_EXTRA:
            raise
        raise UsageError(f"the language server needs the lsp extra ({_lacking(package)}): "
                         "pip install 'refscore[lsp]'") from None

    one_line_errors()  # a failed request is one log line, never a traceback (REFSCORE_DEBUG=1: tracebacks)

    server = build_server(allow_daemon=not args.no_daemon)
    server.start_io()
    # LSP: exit code 0 after a ``shutdown`` request, 1 when ``exit`` (or the client's end) came without one
    code = 0 if getattr(server.protocol, "_shutdown", False) else 1
    # ``exit`` (or the client gone): end now. Work still in flight (a daemon call, a large
    # CodeBLEU) runs in worker threads the interpreter would join first, for up to minutes.
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # pygls closed stdout on exit
            pass
    os._exit(code)
