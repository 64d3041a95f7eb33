"""``python -m refscore`` and the ``refscore`` console script (pyproject's ``[project.scripts]``
names ``run``): the earliest code of ours that runs, so Ctrl-C at any moment after it, also while
the command line's modules are still being imported (before ``cli.main`` has its handler), is the
one line ``refscore: interrupted`` and exit 130, never a traceback."""

import sys


def run() -> int:
    """Import the command line and run it; Ctrl-C anywhere in that is one line and 130, and
    once it returned (the process exits with its code) Ctrl-C is ignored."""
    try:
        from .cli import main

        code = main()
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: a Ctrl-C while exiting is no silent death
        return code
    except KeyboardInterrupt:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut the line short
        from .vocabulary import EXIT_INTERRUPTED

        print("refscore: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(run())
