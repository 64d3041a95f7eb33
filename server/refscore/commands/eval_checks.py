"""What ``refscore eval`` checks before it scores, shared by its two protocols (commands/eval.py and
commands/eval_paper.py): the options each reads, the outputs it will write, the data folder."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..safe_write import OutputClashError, check_distinct, check_writable, source_language

#: Every ``eval`` option: its destination -> (its flag, its default).
_OPTIONS: dict[str, tuple[str, object]] = {}
#: The options ``--protocol paper`` reads; it ignored the others in silence.
_PAPER_READS = frozenset({"data", "languages", "sample", "seed", "protocol", "paper_folds", "out", "report"})
#: The options ``--from-scores`` reads: the scoring settings (``--languages``, ``--metrics``,
#: ``--jobs``, ...) come from the file, so the others are dropped with a warning.
_FROM_SCORES_READS = frozenset({"from_scores", "protocol", "out", "report", "table", "save_combined",
                                "save_combined_without_humaneval"})



def paper_problem(args: argparse.Namespace) -> str | None:
    """The options given that ``--protocol paper`` does not read, as one line (None when none is)."""
    given = [flag for dest, (flag, default) in _OPTIONS.items()
             if dest not in _PAPER_READS and getattr(args, dest, default) != default]
    return f"--protocol paper does not read {', '.join(given)}; leave them out" if given else None


def _outputs(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """Every file this run writes, with the option that names it."""
    named = [("--out", args.out), ("--report", args.report), ("--table", getattr(args, "table", None)),
             ("--save-combined", args.save_combined),
             ("--save-combined-without-humaneval", args.save_combined_without_humaneval)]
    if args.save_scores and not args.from_scores:
        named += [("--save-scores", args.save_scores), ("--save-scores (its .cmd)", args.save_scores.with_suffix(".cmd"))]
    return [(label, path) for label, path in named if path is not None]


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before anything is scored, outputs on one file, named like source code, or that
    cannot be written (a device, a FIFO, a link, a folder, an unwritable place)."""
    outputs = _outputs(args)
    check_distinct(outputs)
    for label, path in outputs:
        if source_language(path):
            raise OutputClashError(f"{label} {path}: names a {source_language(path)} source file; "
                                   "choose another output name")
    for label, path in outputs:
        check_writable(path, label)


def data_folder_problem(folder: Path) -> str | None:
    """Why ``folder`` (``--data``) cannot be the evaluation data folder, in one line (None when it
    is a folder): a file there was "data folder not found"."""
    from ..safe_read import kind_of

    try:
        mode = os.stat(folder).st_mode
    except OSError:
        return (f"data folder not found: {folder} (the folder with humaneval/ and conala/: give --data DIR "
                "or set $REFSCORE_DATA_DIR)")
    kind = kind_of(mode)
    if kind == "a directory":
        return None
    return f"data folder {folder}: is {kind or 'a file'}, not a folder"
