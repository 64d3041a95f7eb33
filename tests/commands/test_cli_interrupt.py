"""Ctrl-C is `refscore: interrupted` and exit 130 whenever it comes: while the subcommands'
modules are imported (it was a Python traceback and death by SIGINT), and when a library
swallows the KeyboardInterrupt (``import torch`` does, if it lands in its C part's numpy import:
the command then ran to the end and exited 0)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from refscore import cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "python"


def catches_sigint(pid: int) -> bool:
    """Whether process ``pid`` has a handler of its own for SIGINT now (``SigCgt`` in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    caught = re.search(r"^SigCgt:\s*([0-9a-fA-F]+)$", status, re.MULTILINE)
    return caught is not None and bool(int(caught.group(1), 16) >> (signal.SIGINT - 1) & 1)


def interpreter_starting(err: str) -> bool:
    """Whether ``err`` is the interpreter's own report of a Ctrl-C during its start-up, before the
    first line of ``refscore/__main__.py`` ran (importing ``runpy`` or ``encodings``: "Could not
    import runpy module" and a KeyboardInterrupt traceback of frozen and standard-library frames;
    or runpy importing the package itself, whose ``__init__`` imports nothing and must not take
    SIGINT from a library user). Like a Ctrl-C before the interpreter has its handler, no code of
    RefScore's can answer it (on a busy machine that start-up takes long enough for a 0.15 s
    Ctrl-C to land in it)."""
    frames = re.findall(r'^\s*File "([^"]+)"', err, re.MULTILINE)
    ours = str(REPO / "server" / "refscore")
    package = str(REPO / "server" / "refscore" / "__init__.py")
    return ("Traceback" in err and err.rstrip().endswith("KeyboardInterrupt")
            and not any(frame.startswith(ours) and frame != package for frame in frames))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("delay", [0.15, 0.3, 0.5, 0.8, 1.2])
def test_ctrl_c_at_any_moment_is_one_line_and_130(delay: float) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH")) if p)}
    command = [sys.executable, "-m", "refscore", "score", str(EXAMPLES / "reference.py"),
               *[str(EXAMPLES / "candidate_close.py")] * 50, "--no-daemon"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                               stdin=subprocess.DEVNULL)
    time.sleep(delay)
    caught = catches_sigint(process.pid)  # the interpreter had its handler (not a clock: a busy machine starts slowly)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=240)
    if interpreter_starting(err):  # no code of ours ran yet: Python's own start-up had the signal
        assert caught and process.returncode in (1, -signal.SIGINT), (process.returncode, err)
        return
    assert "Traceback" not in err, err
    # a shell reads death by SIGINT as status 130 too (before the interpreter has its handler,
    # or at the very end): either way at most the one line, and never a finished run (exit 0)
    assert process.returncode in (130, -signal.SIGINT), (process.returncode, err)
    assert err.strip().splitlines() in ([], ["refscore: interrupted"]), err
    if not err.strip():
        assert process.returncode == -signal.SIGINT and not caught, "a silent death after the handler was set"


def test_an_interrupt_a_library_swallows_still_exits_130(monkeypatch, capsys) -> None:
    """A stand-in for the library: it catches the KeyboardInterrupt and the command goes on."""
    def swallowing_handler(args) -> int:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)  # the handler runs here
        except BaseException:  # noqa: BLE001 - what torch's C init does with it
            pass
        return 0

    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with_handler(parser(), swallowing_handler))
    before = signal.getsignal(signal.SIGINT)
    assert cli.main(["score", "a.py", "b.py"]) == 130
    assert capsys.readouterr().err.strip() == "refscore: interrupted"
    assert signal.getsignal(signal.SIGINT) is before  # restored for whoever called main()


def _with_handler(parser, handler):
    for action in parser._actions:
        if hasattr(action, "choices") and isinstance(action.choices, dict) and "score" in action.choices:
            action.choices["score"].set_defaults(handler=handler)
    return parser


def test_only_the_interpreters_own_start_up_report_is_excused() -> None:
    """The exception above covers Python's start-up and nothing of ours."""
    startup = ('Could not import runpy module\nTraceback (most recent call last):\n'
               '  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load\n'
               '  File "/usr/lib/python3.11/functools.py", line 22, in <module>\nKeyboardInterrupt\n')
    ours = startup.replace("/usr/lib/python3.11/functools.py", str(REPO / "server" / "refscore" / "cli.py"))
    assert interpreter_starting(startup)
    assert not interpreter_starting(ours) and not interpreter_starting("refscore: interrupted\n")
    assert not interpreter_starting(startup.replace("KeyboardInterrupt", "ValueError: boom"))
    package = startup.replace("/usr/lib/python3.11/functools.py", str(REPO / "server" / "refscore" / "__init__.py"))
    assert interpreter_starting(package)  # runpy importing the package, before __main__ runs
    assert not interpreter_starting(package.replace("KeyboardInterrupt", f'  File "{REPO / "server" / "refscore" / "cli.py"}"'
                                                                      ', line 1, in <module>\nKeyboardInterrupt'))


def test_ctrl_c_while_threading_itself_is_imported_is_retried(monkeypatch) -> None:
    """The load run's case: a command's module imported ``threading`` for the first time when
    Ctrl-C came, so the handler's own ``import threading`` got the half-made module (no
    ``Timer``) and the user saw its AttributeError's traceback. The handler holds the module it
    was imported with."""
    import types

    monkeypatch.setitem(sys.modules, "threading", types.ModuleType("threading"))  # partly initialised
    monkeypatch.setattr(cli._Interrupt, "retries", [])
    monkeypatch.setattr(cli, "_importing", lambda frame: True)
    cli._Interrupt.handler(signal.SIGINT, None)  # no AttributeError
    assert cli._Interrupt.seen and len(cli._Interrupt.retries) == 1
    cli._Interrupt.retries[0].cancel()


def test_a_ctrl_c_once_the_command_is_done_changes_nothing() -> None:
    """After the command returned, the entry point ignores Ctrl-C: one pressed while the process
    exits is no silent death by SIGINT (a ``daemon start`` whose daemon got ready just before the
    key press died so, after printing "started")."""
    check = ("import signal, sys; sys.argv = ['refscore']; from refscore.__main__ import run; "
             "code = run(); print(code, signal.getsignal(signal.SIGINT) is signal.SIG_IGN)")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO / "server")})
    assert done.stdout.splitlines()[-1] == "2 True", (done.stdout, done.stderr)  # the usage: a command's own code
