"""The ``refscore`` command line: argument parsing and dispatch only.

Each subcommand lives in ``refscore.commands.<name>`` and exposes ``register(subparsers)``, which
adds its parser and sets ``handler`` to a function taking the parsed arguments and returning an
exit code. Exit codes are documented in README.md (0 ok, 1 threshold not met, 2 usage, 3 input,
4 unknown language, 5 internal error).
"""

from __future__ import annotations

import _thread
import argparse
import errno
import importlib
import sys
import threading
from types import FrameType
from typing import Sequence

from . import __version__
from .errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_USAGE, RefScoreError
from .vocabulary import EXIT_INTERRUPTED

SUBCOMMANDS = ("score", "grade", "serve", "daemon", "eval", "setup")


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` (every subcommand's too: ``add_subparsers`` makes its parsers of the
    same class) that names an unknown option even when a positional is missing: argparse checks
    the positionals first, so ``score --bogus a.py`` said "the following arguments are required:
    CANDIDATE" and the typo went unnamed."""

    _given: Sequence[str] = ()

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def, override]
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str):  # type: ignore[no-untyped-def, override]
        if message.startswith("the following arguments are required"):
            unknown = self._unknown_options()
            if unknown:
                message = f"unrecognized arguments: {' '.join(unknown)}"
        super().error(message)

    def _unknown_options(self) -> list[str]:
        """The words this parser was given that look like options it does not have."""
        unknown = []
        for item in self._given:
            if item == "--":
                break
            if not item.startswith("-") or item == "-" or self._negative_number_matcher.match(item):
                continue
            name = item.split("=", 1)[0] if item.startswith("--") else item[:2]
            if name not in self._option_string_actions:
                unknown.append(item)
        return unknown


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="refscore",
        description="Score code against a reference solution: CodeBLEU and CodeBERTScore.",
    )
    parser.add_argument("--version", action="version", version=f"refscore {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"{__package__}.commands.{name}")
        except ModuleNotFoundError as error:
            if error.name and error.name.endswith(f"commands.{name}"):
                continue  # not built yet
            raise
        module.register(subparsers)
    _no_abbreviations(parser)
    return parser


def _no_abbreviations(parser: argparse.ArgumentParser) -> None:
    """Options must be spelled out: ``grade --out report.csv`` would otherwise mean ``--out-dir``."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _no_abbreviations(child)


def _parser_for(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)subcommand ``args`` chose (``refscore daemon status``), else ``parser``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(args, action.dest, None)
            if chosen in action.choices:
                return _parser_for(action.choices[chosen], args)
    return parser


_IMPORT_MACHINERY = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")
#: How soon an interrupt that arrived during an import is tried again (seconds).
_RETRY_AFTER = 0.05


def _importing(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside an import (its module's code, or the import machinery)."""
    while frame is not None:
        if frame.f_code.co_filename in _IMPORT_MACHINERY:
            return True
        frame = frame.f_back
    return False


class _Interrupt:
    """Whether Ctrl-C was pressed, and raising it only where Python code can take it: inside an
    import a native module may be running Python from C++ (torch's pybind11 init aborts the process
    with "terminate called after throwing KeyboardInterrupt"), or may swallow it (``import torch``
    while its C part imports numpy goes on without numpy); so there the interrupt is retried a
    moment later, once the import is done. The flag still says 130 if a library swallows it."""

    seen = False
    retries: list = []  # the pending retries (threading.Timer), cancelled when the command ends

    @classmethod
    def handler(cls, signum: int, frame: FrameType | None) -> None:
        cls.seen = True
        if _importing(frame):  # threading was imported with this module: never a partial one here
            retry = threading.Timer(_RETRY_AFTER, _thread.interrupt_main, args=(signum,))
            retry.daemon = True
            cls.retries.append(retry)
            retry.start()
            return
        raise KeyboardInterrupt

    @staticmethod
    def quiet_unraisable(default: object) -> object:
        """A ``sys.unraisablehook`` that drops the KeyboardInterrupt the handler raised inside a
        callback Python cannot propagate from (an import lock's weakref callback, a ``__del__``):
        Python would print it as "Exception ignored ... Traceback"; the flag already says 130."""

        def hook(unraisable: object) -> None:
            if isinstance(getattr(unraisable, "exc_value", None), KeyboardInterrupt):
                return
            default(unraisable)  # type: ignore[operator]

        return hook


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code. Ctrl-C at any point (also while the commands' modules are
    still being imported, or swallowed by a library) is one line and 130, never a traceback."""
    import signal

    _Interrupt.seen = False
    previous = signal.getsignal(signal.SIGINT)
    watching = previous is signal.default_int_handler  # not when ignored (nohup, a background job)
    try:
        if watching:
            signal.signal(signal.SIGINT, _Interrupt.handler)
    except ValueError:  # not the main thread: signals are the main thread's business
        watching = False
    unraisable = sys.unraisablehook
    if watching:
        sys.unraisablehook = _Interrupt.quiet_unraisable(unraisable)
    try:
        code = _main(argv)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
        print("refscore: interrupted", file=sys.stderr)
    finally:
        if watching:
            signal.signal(signal.SIGINT, previous)
            sys.unraisablehook = unraisable
            for retry in _Interrupt.retries:
                retry.cancel()
            _Interrupt.retries.clear()
    if _Interrupt.seen and code != EXIT_INTERRUPTED:
        print("refscore: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


#: Options whose value is a comma-separated list of numbers, which may start with a minus sign.
_NUMBER_LIST_OPTIONS = ("--weights",)


def _join_negative_lists(argv: Sequence[str]) -> list[str]:
    """``--weights -1,1,1,1`` as ``--weights=-1,1,1,1``: argparse takes a value that starts with
    ``-`` and is no plain negative number for an option, and answered "expected one argument"
    instead of saying what is wrong with the weights."""
    out: list[str] = []
    items = list(argv)
    index = 0
    while index < len(items):
        item = items[index]
        following = items[index + 1] if index + 1 < len(items) else ""
        if item in _NUMBER_LIST_OPTIONS and "," in following and following[:2] in {f"-{c}" for c in "0123456789."}:
            out.append(f"{item}={following}")
            index += 2
            continue
        out.append(item)
        index += 1
    return out


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(_join_negative_lists(sys.argv[1:] if argv is None else argv))
    if unknown:  # the subcommand's usage, not the top level's, says what it takes
        _parser_for(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.handler(args) or 0)
    except RefScoreError as error:
        from .bidi import printable  # a file name in the message may hold control characters

        print(f"refscore: {printable(str(error))}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("refscore: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except OSError as error:
        if error.errno not in _STORAGE_ERRNOS:
            return _internal_error(error)
        _discard_stdout()
        print(f"refscore: cannot write: {error.strerror}" + (f" ({error.filename})" if error.filename else ""),
              file=sys.stderr)
        return EXIT_INPUT
    except Exception as error:  # noqa: BLE001 - one clear line, never a traceback
        return _internal_error(error)


#: Errors of the disk under an output (full, over quota, too large, failing), not of RefScore.
_STORAGE_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO")
                            if hasattr(errno, name))


def _discard_stdout() -> None:
    """Drop what standard output still holds, so the interpreter's last flush does not fail again
    (an 'Exception ignored' message) on the disk that is full."""
    import os

    try:
        sys.stdout.flush()
    except OSError:
        pass
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _internal_error(error: Exception) -> int:
    """One line for a failure RefScore did not foresee (a traceback with ``REFSCORE_DEBUG=1``)."""
    print(f"refscore: internal error: {type(error).__name__}: {error} "
          "(please report it; set REFSCORE_DEBUG=1 for details)", file=sys.stderr)
    if _debug():
        raise error
    return EXIT_INTERNAL


def _debug() -> bool:
    import os

    return os.environ.get("REFSCORE_DEBUG") == "1"


if __name__ == "__main__":
    sys.exit(main())
