"""``refscore grade``: argv -> a typed ``GradeJob`` (checked here, at the edge) -> ``grade.run``."""

from __future__ import annotations

import argparse
import signal
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Iterator

from ..embed.backends import BACKENDS, apply_backend, backend_tag
from ..grade.blocks import DEFAULT_BLOCK_LINES
from ..grade.classroom_choices import LAYOUTS, RESUBMISSION_POLICIES
from ..grade.job import DEFAULT_TITLE, REPORT_KINDS, Cache, Engine, GradeJob, Inputs, Reports, Threshold
from ..grade.records import parse_fields
from ..grade.rows import SCORE_COLUMNS
from ..grade.settings import GradeSettings, scorer_tag
from ..metrics.similarity import DEFAULT_THRESHOLD
from ..files.sources import STDIN, resolve_language
from ..scoring.report import CODEBLEU_RULES, DEFAULT_METRICS
from ..settings_schema import EncoderChoice
from . import options
from .classroom_options import classroom_from_args, register_classroom
from .bert_options import settings_from_args
from .options import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "grade", help="score many submissions and write CSV/JSON/HTML reports",
        description="Score submissions (files, folders, globs), a TOML/CSV mapping of problems, or a "
                    "JSONL file of candidate/reference pairs, and write CSV, JSON and HTML reports.")
    p.add_argument("submissions", nargs="*", metavar="SUBMISSION", help="files, folders or globs to grade")
    src = p.add_argument_group("inputs")
    src.add_argument("-r", "--reference", action="append", default=[], metavar="REF",
                     help="reference solution (repeat for several acceptable references)")
    src.add_argument("--mapping", action="append", default=[], metavar="FILE",
                     help="TOML or CSV file listing problems, references, context and submissions")
    src.add_argument("--allow-outside", action="append", default=[], metavar="DIR",
                     help="a folder outside a mapping file's own that its references, context and submissions "
                          "may name (by default everything a mapping names stays under its folder)")
    src.add_argument("--jsonl", action="append", default=[], metavar="FILE",
                     help='JSONL (or .jsonl.gz, Parquet): {"id","problem","candidate","reference","context",'
                          '"language","inputs"} per line (inputs: behaviour\'s, instead of --inputs); other fields '
                          'are passed through to the reports; - reads the lines from standard input')
    src.add_argument("--fields", metavar="FIELD=NAME,...",
                     help="the names --jsonl rows give known fields, e.g. candidate=hyp,reference=ref")
    src.add_argument("--lang", help="language (default: from the reference's extension)")
    src.add_argument("--context", help="task description given to CodeBERTScore as context")
    src.add_argument("--context-file", metavar="FILE",
                     help="read the task description from FILE (- reads it from standard input)")
    src.add_argument("--pattern", metavar="GLOB", help="file-name filter inside folders, e.g. '*.py'")
    src.add_argument("--per-folder", action="store_true",
                     help="each sub-folder of a SUBMISSION folder is one submission (files matching --pattern)")
    src.add_argument("--layout", choices=("auto", *LAYOUTS), default=None,
                     help="how a class (zip archive or folder of an LMS's submissions download) is laid out "
                          "(default: a .zip or a recognised folder is read as a class, its layout recognised)")
    src.add_argument("--roster", metavar="FILE",
                     help="CSV (name and/or id columns) or text file of the students expected: missing students "
                          "and files that match no problem are listed in the report")
    src.add_argument("--resubmissions", choices=RESUBMISSION_POLICIES, default=None,
                     help="a file a student handed in again on Canvas (name-1.py beside name.py): grade the latest "
                          "version (default) or score every version and count the best; never joined (a mapping "
                          "problem may say resubmissions = ...)")
    src.add_argument("--starter", action="append", default=[], metavar="FILE_OR_DIR",
                     help="starter code handed out to the class: it earns no credit (repeatable; a mapping "
                          "problem may name its own with starter = ...)")
    sc = p.add_argument_group("scoring")
    sc.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                    help=f"comma-separated, from {','.join(DEFAULT_METRICS)},chrf,tsed,crystalbleu (default: "
                         f"{','.join(DEFAULT_METRICS)}; behaviour runs each submission beside the reference in a "
                         "sandbox, where one is available, and reports how often they agree)")
    options.add_behaviour_options(sc)
    sc.add_argument("--weights", default=options.DEFAULT_WEIGHTS_TEXT,
                    help="CodeBLEU weights: n-gram,weighted,syntax,dataflow (default 0.25 each); "
                         "the native rule normalises them to sum to 1")
    sc.add_argument("--codebleu-rule", choices=CODEBLEU_RULES, default="native",
                    help="native (default) or compat: the codebleu package's numbers, to compare with "
                         "published results (no explanations in the report then)")
    sc.add_argument("--batch-size", type=int, default=None,
                    help="requests per Scorer call (default 32; 1024 when CodeBERTScore runs on a GPU)")
    sc.add_argument("--model", help="CodeBERTScore model: a local folder or a Hugging Face id in the local cache")
    sc.add_argument("--layer", type=int, help="CodeBERTScore hidden layer (default: the model's own)")
    sc.add_argument("--device", help="cpu, cuda, cuda:1 ... for CodeBERTScore (default: a GPU when there is one)")
    sc.add_argument("--backend", choices=BACKENDS,
                    help="CodeBERTScore encoder engine: auto (default; ONNX Runtime on a CPU, torch on a GPU), "
                         "torch, onnx, or onnx-int8 (faster, approximate numbers); scores in this process")
    sc.add_argument("--idf", metavar="FILE", help="IDF weights (JSON) for CodeBERTScore")
    sc.add_argument("--per-function", action="store_true",
                    help="also score each top-level function against its reference function "
                         "(a \"functions\" list per submission in the JSON report)")
    sc.add_argument("--daemon", action=argparse.BooleanOptionalAction, default=False,
                    help="score through the shared background daemon, falling back to this process "
                         "with a note (default: in this process; the numbers are the same)")
    sc.add_argument("--engine", choices=("local", "ray"), default="local",
                    help="local (default) or ray: a Ray cluster scores the blocks (docs/scale.md); every input "
                         "and output is the same, and so are the numbers")
    sc.add_argument("--ray-address", metavar="ADDR",
                    help="the Ray cluster for --engine ray (default: $RAY_ADDRESS, else a private one here)")
    sc.add_argument("--block-lines", type=int, metavar="N",
                    help="block size: N submissions (or --jsonl lines) per block, the unit of scoring and "
                         f"resuming (default {DEFAULT_BLOCK_LINES}); the reports are the same for any N")
    out = p.add_argument_group("outputs")
    out.add_argument("-o", "--out-dir", metavar="DIR", help="write grade.csv, grade.json and grade.html here")
    out.add_argument("--csv", metavar="FILE", help="write the CSV report")
    out.add_argument("--json", metavar="FILE", help="write the JSON report")
    out.add_argument("--html", metavar="FILE", help="write the HTML report")
    out.add_argument("--parquet", action="store_true",
                     help="also write the rows as Parquet (typed columns) beside the first report, "
                          "e.g. grade.parquet with -o (needs pyarrow: pip install 'refscore[ray]')")
    out.add_argument("--title", default=DEFAULT_TITLE, help="HTML report title")
    out.add_argument("--cache", metavar="DIR",
                     help="the folder of scored parts a rerun resumes from (default: <report name>.parts "
                          "next to the first report)")
    out.add_argument("--no-cache", action="store_true", help="score everything again, remember nothing")
    out.add_argument("--similarity", nargs="?", const=DEFAULT_THRESHOLD, type=similarity_threshold,
                     metavar="THRESHOLD",
                     help="also compare the students of each problem with one another and flag pairs scoring "
                          f"THRESHOLD or more (0..1, default {DEFAULT_THRESHOLD}): similarity.html, .json and .csv "
                          "beside the reports, a similar_to column in them; a hint for the teacher, never a verdict")
    out.add_argument("--fail-under", type=float, metavar="X",
                     help="exit 1 if any submission scores below X (or could not be scored)")
    out.add_argument("--fail-metric", default=None, choices=SCORE_COLUMNS,
                     help="metric for --fail-under (default: refscore, the combined number, where it applies, "
                          "with codebertscore_f3 for submissions it does not apply to; else codebleu, else "
                          "codebertscore_f1, else the first of chrf, tsed, crystalbleu in --metrics)")
    out.add_argument("--allow-syntax-errors", action="store_true",
                     help="with --fail-under: let a submission that does not parse pass on its score (by "
                          "default it fails, listed with its parse error, whatever it scores)")
    out.add_argument("--progress", choices=("auto", "bar", "lines", "none"), default="auto",
                     help="progress on stderr: bar on a terminal, lines otherwise (default auto)")
    out.add_argument("-q", "--quiet", action="store_true",
                     help="no progress, no summary or 'wrote' lines (notes, errors and --fail-under's verdict only)")
    register_classroom(p)
    p.set_defaults(handler=run)


def similarity_threshold(text: str) -> float:
    """``--similarity``'s value: a number in 0..1 (argparse's one-line error otherwise)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a threshold in 0..1, not {text!r} (put --similarity after the SUBMISSION files, or "
            f"write --similarity={DEFAULT_THRESHOLD})") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"the threshold {text} is not in 0..1")
    return value


def check_applicable(args: argparse.Namespace) -> None:
    """Options that would be ignored are usage errors: the SUBMISSION options without
    SUBMISSION files (a mapping and JSONL lines carry their own), ``--context`` with
    ``--context-file``, ``--cache`` with ``--no-cache``, ``--ray-address`` without ``--engine ray``, ``--fail-metric`` without
    ``--fail-under`` (a CI job would pass without any check)."""
    check_stdin(args)
    if args.context is not None and args.context_file:
        raise UsageError("--context and --context-file both give the task description; give one")
    if not args.submissions:
        given = [flag for flag, value in (("--context", args.context is not None), ("--context-file", args.context_file),
                                          ("--pattern", args.pattern), ("--per-folder", args.per_folder)) if value]
        if given:
            raise UsageError(f"{given[0]} applies to SUBMISSION files graded against --reference; a mapping "
                             "file has context, context_file, pattern and per_folder keys per problem, and a "
                             "JSONL line its own \"context\"")
    if args.fields and not args.jsonl:
        raise UsageError("--fields names the fields of --jsonl rows; give --jsonl FILE")
    if not args.submissions and not args.mapping:
        given = [flag for flag, value in (("--layout", args.layout), ("--roster", args.roster),
                                          ("--starter", args.starter), ("--resubmissions", args.resubmissions))
                 if value]
        if given:
            raise UsageError(f"{given[0]} applies to SUBMISSION files or classes graded against --reference, "
                             "or to a --mapping's problems")
    if args.cache and args.no_cache:
        raise UsageError(f"--cache {args.cache} keeps the scored parts and --no-cache none; give one")
    ray = options.ray_address_problem(args.ray_address, args.engine)
    if ray:
        raise UsageError(ray)
    if args.fail_metric and args.fail_under is None:
        raise UsageError(f"--fail-metric {args.fail_metric} needs --fail-under X (the threshold to check)")
    if args.allow_syntax_errors and args.fail_under is None:
        raise UsageError("--allow-syntax-errors needs --fail-under X (it changes what passes the threshold)")
    if args.out_dir == "-":
        raise UsageError("-o -: -o names a folder of reports; for standard output name one report: --json - "
                         "(or --csv -, --html -)")
    if args.block_lines is not None and args.block_lines < 1:
        raise UsageError("--block-lines must be at least 1")
    if args.batch_size is not None and args.batch_size < 1:
        raise UsageError("--batch-size must be at least 1")
    if args.similarity is not None:
        if not (args.out_dir or args.csv or args.json or args.html) or \
                all(str(p) == "-" for p in (args.csv, args.json, args.html) if p) and not args.out_dir:
            raise UsageError("--similarity writes similarity.html, .json and .csv beside the reports: give -o DIR "
                             "(or --csv/--json/--html FILE)")
        if not (args.submissions or args.mapping):
            raise UsageError("--similarity compares SUBMISSION files and mapping problems; --jsonl lines are not "
                             "compared")
    if args.parquet:
        if not (args.out_dir or args.csv or args.json or args.html):
            raise UsageError("--parquet writes the rows beside a report file: give -o, --csv, --json or --html")
        import importlib.util

        if importlib.util.find_spec("pyarrow") is None:
            raise UsageError("--parquet needs pyarrow (pip install 'refscore[ray]')")


#: What grade reads from a file or folder only: flag, argparse destination, what grade does with it.
_FILE_ONLY = (("-r", "reference", "reads the reference from a file"),
              ("--mapping", "mapping", "reads a mapping from a file (its paths are relative to its folder)"),
              ("--roster", "roster", "reads the roster from a file"),
              ("--starter", "starter", "reads the starter code from a file or folder"),
              ("--inputs", "inputs", "reads behaviour's inputs from a file"),
              ("--rubric", "rubric", "reads the rubric from a file"),
              ("--adjustments", "adjustments", "keeps the adjustments in a file (created, then read back)"),
              ("--anonymise-key", "anonymise_key", "keeps the pseudonym key in a file"),
              ("--allow-outside", "allow_outside", "takes a folder here"))


def check_stdin(args: argparse.Namespace) -> None:
    """``-`` is standard input for ``--jsonl`` (a stream of pairs) and ``--context-file`` (the
    task), once; anywhere else grade needs a file or folder (it reads submissions and mappings
    again, beside other files, and writes adjustments back): a usage error saying what to do,
    where ``-: no such file`` was all it said."""
    readers = [flag for flag, given in (("--jsonl", STDIN in args.jsonl),
                                        ("--context-file", args.context_file == STDIN)) if given]
    if len(readers) > 1:
        raise UsageError(f"- (standard input) can be given once: {' and '.join(f'{f} -' for f in readers)} both "
                         "read it; save one of them to a file")
    only = "of grade's inputs, only --jsonl - and --context-file - read standard input"
    if STDIN in args.submissions:
        raise UsageError("SUBMISSION -: grade reads submission files, not standard input; save it to a file, "
                         "score one candidate from standard input with `refscore score REF -`, or pipe JSONL "
                         "pairs to --jsonl -")
    for flag, dest, what in _FILE_ONLY:
        value = getattr(args, dest, None)
        if value == STDIN or (isinstance(value, list) and STDIN in value):
            instead = "name the folder" if flag == "--allow-outside" else "save it to a file first"
            raise UsageError(f"{flag} -: grade {what}, not standard input; {instead} ({only})")


def _reports(args: argparse.Namespace) -> tuple[tuple[str, Path], ...]:
    paths: dict[str, Path] = {}
    if args.out_dir:
        paths = {kind: Path(args.out_dir) / f"grade.{kind}" for kind in REPORT_KINDS}
    for kind in REPORT_KINDS:
        if getattr(args, kind):
            paths[kind] = Path(getattr(args, kind))
    return tuple(paths.items())


def job_from_args(args: argparse.Namespace) -> GradeJob:
    """The typed job of a checked command line (UsageError, one line, when it cannot work)."""
    metrics = options.parse_metrics(args.metrics)
    options.make_model_portable(args)
    options.parse_weights(args.weights)  # a bad value is a usage error even where CodeBLEU is not computed
    options.check_fail_under(args.fail_under)
    options.check_fail_metric(args.fail_metric, metrics, args.codebleu_rule)
    options.check_device(args.device, metrics)
    check_applicable(args)
    if args.lang:  # the fallback of JSONL rows and mapping problems too: a typo stops the run (exit 4)
        resolve_language(args.lang)
    options.drop_unused_options(args, metrics)
    if "html" not in dict(_reports(args)):
        options.drop_ignored(args, (("--title", "title", DEFAULT_TITLE),), "the HTML report",
                             "which this run does not write (-o DIR or --html FILE writes one)")
    options.parse_weights(args.weights)
    options.check_encoder(EncoderChoice(model=args.model), (), metrics)  # --model: one line before anything is read
    score = settings_from_args(args, metrics)
    tag = scorer_tag(score.encoder) + backend_tag(score.encoder.backend)  # int8 only
    settings = GradeSettings(score, batch_size=args.batch_size, scorer_tag=tag, per_function=args.per_function)
    classroom = classroom_from_args(args, metrics)
    inputs = Inputs(tuple(args.submissions), tuple(args.reference), tuple(args.mapping), tuple(args.jsonl),
                    args.lang, args.context, args.context_file, args.pattern, args.per_folder,
                    parse_fields(args.fields),
                    None if args.layout in (None, "auto") else args.layout, args.roster, tuple(args.starter),
                    tuple(args.allow_outside), _resubmissions(args, classroom), args.idf, args.inputs)
    threshold, default_metric = None, options.default_fail_metric(metrics, args.codebleu_rule)
    if args.fail_under is not None:
        metric = args.fail_metric or default_metric
        threshold = Threshold(metric, args.fail_under, options.fail_fallback(metric, metrics),
                              args.allow_syntax_errors)
    # --backend scores in this process (the daemon has its own engine)
    engine = "ray" if args.engine == "ray" else ("daemon" if args.daemon and not args.backend else "local")
    from ..classroom.hooks import classroom_hooks  # the classroom plugs in above the grader

    return GradeJob(inputs, settings,
                    Engine(engine, args.ray_address, args.block_lines or DEFAULT_BLOCK_LINES,
                           "none" if args.quiet else args.progress),
                    Reports(_reports(args), frozenset(kind for kind in REPORT_KINDS if getattr(args, kind)),
                            args.title, default_metric, args.parquet, args.similarity, threshold, args.quiet),
                    Cache(Path(args.cache) if args.cache else None, args.no_cache), classroom_hooks(classroom))


def run(args: argparse.Namespace) -> int:
    # here, not at the top: the run's readers, scorers and writers (and the classroom readers)
    # load only when grading, not for every refscore command that builds this parser
    from ..grade.run import run_job

    job = job_from_args(args)
    apply_backend(job.settings.encoder.backend)
    layer_check = partial(options.check_encoder, job.settings.encoder, metrics=job.settings.metrics)
    with sigterm_as_ctrl_c():
        return run_job(job, check_languages=lambda languages: layer_check(languages))


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler, a container stopping) stops the run as Ctrl-C does: the
    scored parts stay, no grade book is written, one line says how to resume, exit 130. It goes
    through the command's own Ctrl-C handler (which waits for an import to finish: a native
    module must not be interrupted in the middle of one); where Ctrl-C is ignored (a background
    job), it raises KeyboardInterrupt itself. Only the main thread may set a handler."""
    ctrl_c = signal.getsignal(signal.SIGINT)

    def stop(_signum: int, frame: FrameType | None) -> None:
        if callable(ctrl_c):
            ctrl_c(signal.SIGINT, frame)  # raises KeyboardInterrupt, or retries it after an import
            return
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _resubmissions(args: argparse.Namespace, classroom: object) -> str:
    """Which version of a file handed in again counts: ``--resubmissions``, else the rubric's
    ``resubmissions``, else the latest (a mapping problem's own ``resubmissions`` wins over both)."""
    rubric = getattr(classroom, "rubric", None)
    return args.resubmissions or getattr(rubric, "resubmissions", None) or RESUBMISSION_POLICIES[0]
