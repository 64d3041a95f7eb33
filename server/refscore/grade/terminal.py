"""What ``refscore grade`` says on the terminal: a line per submission (when no report file is
written), the summary, the files written, notes and the ``--fail-under`` verdict."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, TextIO

from ..bidi import printable
from .heatmap import NOTE_KINDS
from .rows import LABELS, NOT_PARSING, threshold_value
from .stream_stats import RowStats, counted
from .targets import STDOUT, is_stdout

if TYPE_CHECKING:  # pragma: no cover
    from .job import Threshold

#: The score columns a terminal line and the summary show, when computed.
SHOWN = ("refscore", "codebleu", "codebleu_native", "codebertscore_f1", "chrf", "tsed", "crystalbleu", "behaviour")


def summary_stream(outputs: Mapping[str, Path]) -> TextIO:
    """Where the summary lines go: stderr when a report is written to standard output (``-``,
    ``/dev/stdout``: so ``--json - | jq`` reads JSON only), else stdout."""
    return sys.stderr if any(is_stdout(p) for p in outputs.values()) else sys.stdout


def note(text: str) -> None:
    """One ``refscore: note:`` line on stderr."""
    print(f"refscore: note: {printable(text)}", file=sys.stderr)


def _short_warnings(row: dict[str, Any]) -> list[str]:
    """A row's warnings for its terminal line, each up to its first colon (``bidirectional control
    character(s) U+202E on line(s) 2``), the parse error as ``does not parse: syntax error near line N``."""
    out = [str(w).split(": ", 1)[0] for w in row.get("warnings") or () if not str(w).startswith(NOT_PARSING)]
    return [*out, f"{NOT_PARSING}{row['parse_error']}"] if row.get("parse_error") else out


def row_line(row: dict[str, Any], width: int = 0) -> str:
    """One submission's line on the terminal; ids padded to ``width`` so the scores line up. Its
    notes say their kind as the HTML Notes column does (``heatmap.NOTE_KINDS``)."""
    scores = "  ".join(f"{LABELS[c]} {row[c]:.3f}" for c in SHOWN if isinstance(row.get(c), float))
    notes = "; ".join([*(NOTE_KINDS["error"] + str(e) for e in row["errors"]),
                       *(NOTE_KINDS["warning"] + w for w in _short_warnings(row))])
    shown = printable(str(row["id"]))
    tail = "  ".join(part for part in (scores, f"[{notes}]" if notes else "") if part)
    return f"{shown:<{width}}  " + printable(tail)


def echo_row(row: dict[str, Any], width: int) -> None:
    """Print ``row_line`` on stdout."""
    print(row_line(row, width))


def print_summary(stats: RowStats, outputs: Mapping[str, Path], from_before: int, more: Sequence[Path] = (),
                  pages: Path | None = None) -> None:
    """``graded N submissions: ...`` and a ``wrote`` line per file (``more``: the classroom
    outputs; those in the ``pages`` folder are counted in one line)."""
    summary = stats.summary()
    means = ", ".join(f"{LABELS[c]} mean {m['mean']:.3f}" + _ran(c, m["n"], summary["submissions"])
                      for c, m in summary["metrics"].items() if c in SHOWN)
    out = summary_stream(outputs)
    print(f"graded {counted(summary['submissions'])}: {stats.errors_phrase()}"
          + (f"; {means}" if means else "") + f"; {from_before} from earlier runs", file=out)
    if stats.not_parsing:
        combined = ", the combined RefScore too," if "refscore" in stats.columns else ""
        verb = "does" if stats.not_parsing == 1 else "do"
        print(f"{counted(stats.not_parsing)} {verb} not parse: their scores{combined} are for the code the parser "
              "recovered (each one's parse_error says where)", file=out)
    for path in outputs.values():
        print(f"wrote {'standard output' if str(path) == STDOUT else path}", file=out)
    in_pages = [p for p in more if pages is not None and p.parent == pages]
    for path in more:
        if path not in in_pages:
            print(f"wrote {path}", file=out)
    if in_pages:
        print(f"wrote {len(in_pages) // 2} student feedback page(s), HTML and Markdown, in {pages}", file=out)


def _ran(column: str, count: int, submissions: int) -> str:
    """`` (run for 4 of 6)`` after behaviour's mean: how many submissions it is over (behaviour
    does not run for a submission that could not be read, nor where the reference does not run)."""
    return f" (run for {count:,} of {submissions:,})" if column == "behaviour" else ""


def threshold_name(threshold: "Threshold") -> str:
    """``RefScore 0.3 (CodeBERTScore F3 where RefScore does not apply)``: what a threshold reads."""
    name = f"{LABELS[threshold.metric]} {threshold.value:g}"
    if threshold.fallback and threshold.metric == "refscore":
        name += f" ({LABELS[threshold.fallback]} where RefScore does not apply)"
    return name


def _why(row: dict[str, Any]) -> str:
    """``: looks binary ...``: a row's first error, without the source it starts with."""
    errors = row.get("errors") or []
    if not errors:
        return ""
    first, source = str(errors[0]), str(row.get("source") or "")
    if source and first.startswith(f"{source}: "):
        first = first[len(source) + 2:]
    return f": {first}"


def print_threshold(threshold: "Threshold", count: int, first: Sequence[dict[str, Any]],
                    outputs: Mapping[str, Path]) -> bool:
    """Say whether every submission reaches the threshold and parses (``count`` do not; ``first``
    are the first of them, each with its score or why it fails); True when all do."""
    parses = "" if threshold.allow_syntax_errors else " and parse"
    if not count:
        print(f"all submissions reach {threshold_name(threshold)}{parses}", file=summary_stream(outputs))
        return True
    print(f"{counted(count)} below {threshold_name(threshold)}"
          + ("" if threshold.allow_syntax_errors else " or not parsing") + ":", file=sys.stderr)
    for row in first:
        column, score = threshold_value(row, threshold.metric, threshold.fallback)
        shown = f"{score:.3f}" if score is not None else f"not scored{_why(row)}"
        if score is not None and column != threshold.metric:
            shown += f" ({LABELS[column]}: no RefScore)"
        if row.get("parse_error") and not threshold.allow_syntax_errors:
            shown = f"does not parse: {row['parse_error']} ({shown})"
        print(printable(f"  {row['id']}: {shown}"), file=sys.stderr)
    if count > len(first):
        print(f"  ... and {count - len(first)} more", file=sys.stderr)
    return False
