"""``refscore grade``'s classroom outputs: the options, and the ``ClassroomOutputs`` they ask for
(checked here, at the edge, before anything is read or scored)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..grade.classroom_choices import DEFAULT_REVEAL, GRADESCOPE_RESULTS, REVEAL_MODES, VISIBILITIES
from ..safe_write import OutputFileError
from .options import UsageError

if TYPE_CHECKING:
    from ..classroom.outputs import ClassroomOutputs
    from ..classroom.roster import RosterEntry

#: Options that write a classroom output and so need --rubric.
NEED_RUBRIC = ("points", "canvas", "moodle", "feedback", "gradescope", "classroom_summary", "adjustments")


def register_classroom(p: argparse.ArgumentParser) -> None:
    """The classroom option group (docs/grade.md, "For teachers")."""
    g = p.add_argument_group("classroom (points, grade books, feedback; docs/grade.md \"For teachers\")")
    g.add_argument("--rubric", metavar="FILE",
                   help="TOML rubric: points per problem from a score (bands or linear); with -o DIR also writes "
                        "DIR/points.csv, canvas.csv, moodle.csv and feedback/ (a changed rubric re-grades from "
                        "the cache, without scoring)")
    g.add_argument("--adjustments", metavar="FILE",
                   help="the teacher's manual adjustments (CSV: student,problem,adjust,comment; default: the "
                        "rubric's 'adjustments' key, else adjustments.csv beside the rubric; created when missing)")
    g.add_argument("--points", metavar="FILE", help="write the points per student and problem (CSV)")
    g.add_argument("--canvas", metavar="FILE", help="write a Canvas gradebook import CSV")
    g.add_argument("--assignment", metavar="NAME",
                   help="the Canvas assignment column, e.g. 'Week 3 (1234)' (default: the rubric's title, else RefScore)")
    g.add_argument("--moodle", metavar="FILE", help="write a Moodle grading worksheet CSV (Identifier, Grade, Feedback)")
    g.add_argument("--feedback", metavar="DIR", help="write one HTML and one Markdown feedback page per student")
    g.add_argument("--reveal", choices=REVEAL_MODES, default=DEFAULT_REVEAL,
                   help="what a feedback page shows of the reference: reveal (its code), hints (default: the "
                        "constructs it has that the student's code lacks, never its code) or scores (only)")
    g.add_argument("--gradescope", metavar="FILE", nargs="?", const=str(GRADESCOPE_RESULTS),
                   help=f"write Gradescope's results.json (default {GRADESCOPE_RESULTS}): one test per problem")
    g.add_argument("--gradescope-visibility", choices=VISIBILITIES, default="visible",
                   help="when students see the results.json tests (default visible)")
    g.add_argument("--classroom-summary", metavar="FILE",
                   help="write a GitHub Classroom autograding summary (JSON) and exit 1 when a student is below "
                        "the rubric's 'pass' share of the points")
    g.add_argument("--anonymise", "--anonymize", action="store_true",
                   help="stable pseudonyms for every student in every report; the key and the LMS uploads (real "
                        "names) go to --anonymise-key's folder, outside the graders' -o DIR")
    g.add_argument("--anonymise-key", metavar="FILE",
                   help="the teacher's pseudonym key (CSV; default: DIR-teacher/anonymise-key.csv beside -o DIR)")


def classroom_from_args(args: argparse.Namespace, metrics: tuple[str, ...]) -> ClassroomOutputs | None:
    """The classroom outputs asked for, or None; UsageError (exit 2) or the rubric's error (exit 3)."""
    asked = [name for name in NEED_RUBRIC if getattr(args, name)]
    if asked and not args.rubric:
        raise UsageError(f"--{asked[0].replace('_', '-')} needs --rubric FILE (how scores become points)")
    if args.feedback == "-":
        raise UsageError("--feedback -: --feedback names a folder (an HTML and a Markdown page per student); "
                         "give a folder, or -o DIR for DIR/feedback/")
    if args.anonymise_key and not args.anonymise:
        raise UsageError("--anonymise-key is for --anonymise")
    if not args.rubric and not args.anonymise:
        return None
    # here, not at the top: the classroom modules (rubric, grade books, feedback) load only when
    # a classroom option is used, not for every refscore run that builds this parser
    from ..classroom.outputs import ClassroomOutputs, load_rubric

    out_dir = Path(args.out_dir) if args.out_dir else None
    if args.anonymise and out_dir is not None and not args.anonymise_key:
        _no_link(_teacher(out_dir), "the teacher's folder")
    key = None
    if args.anonymise:
        if args.anonymise_key:
            key = Path(args.anonymise_key)
        elif out_dir is not None:
            key = _teacher(out_dir) / "anonymise-key.csv"
        else:
            raise UsageError("--anonymise needs -o DIR or --anonymise-key FILE (where the teacher's key goes)")
        if out_dir is not None and _inside(key, out_dir):
            raise UsageError(f"--anonymise-key {key}: is inside -o {out_dir}, which graders see; put it elsewhere")
    if not args.rubric:
        return ClassroomOutputs(anonymise_key=key, graders=out_dir)
    rubric = load_rubric(args.rubric, metrics)
    adjustments = Path(args.adjustments) if args.adjustments else \
        (rubric.adjustments or Path(args.rubric).parent / "adjustments.csv")
    teacher = _teacher(out_dir) if (args.anonymise and out_dir is not None) else out_dir
    key_dir = key.parent if key is not None and not out_dir else teacher

    def default(given: str | None, folder: Path | None, name: str) -> Path | None:
        return Path(given) if given else (folder / name if folder is not None else None)

    title = args.assignment or rubric.default.title or "RefScore"
    feedback = default(args.feedback, out_dir, "feedback")
    if feedback is not None and not args.feedback:
        _no_link(feedback, "the feedback folder")
    if feedback is not None and feedback.exists() and not feedback.is_dir():
        raise OutputFileError(f"--feedback {feedback}: is a file; the feedback pages go in a folder")
    return ClassroomOutputs(
        rubric=rubric, adjustments=adjustments,
        adjustments_folder=None if args.adjustments else Path(args.rubric).parent, points=default(args.points, out_dir, "points.csv"),
        canvas=default(args.canvas, key_dir, "canvas.csv"), moodle=default(args.moodle, key_dir, "moodle.csv"),
        assignment=title, feedback=feedback, reveal=args.reveal,
        gradescope=Path(args.gradescope) if args.gradescope else None, visibility=args.gradescope_visibility,
        classroom=Path(args.classroom_summary) if args.classroom_summary else None, anonymise_key=key, title=title,
        graders=out_dir if args.anonymise else None, roster=_roster(args))


def _roster(args: argparse.Namespace) -> tuple[RosterEntry, ...]:
    """``--roster``'s students for the grade books (names, SIS ids, sections); read again by the
    run for who is missing, the same file both times."""
    from ..classroom.roster import load_roster

    given = getattr(args, "roster", None)
    return tuple(load_roster(given)) if given and given != "-" else ()


def _no_link(folder: Path, label: str) -> None:
    """Refuse a folder the run names itself (``-o DIR``'s ``feedback/``, ``DIR-teacher/``) that
    is a symbolic link: a student who can write beside the reports must not redirect them."""
    if folder.is_symlink():
        raise OutputFileError(f"{label} {folder}: is a symbolic link; a run's own files are never written through "
                              "a link (remove it or name another folder)")


def _teacher(out_dir: Path) -> Path:
    """The teacher's folder beside the graders' ``-o DIR``."""
    resolved = out_dir.resolve()
    return resolved.with_name(f"{resolved.name}-teacher")


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True
