"""``refscore grade``: score a class of submissions or a file of completions, write reports."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from ..bidi import printable
from ..embed.backends import BACKENDS, apply_backend, backend_tag
from ..errors import EXIT_BELOW_THRESHOLD, EXIT_OK, InputFileError
from ..grade.cache import ReportCache
from ..grade.discover import expand, items_for, load_problem
from ..grade.items import ItemSet, unique_ids
from ..grade.blocks import DEFAULT_BLOCK_LINES, load_records
from ..grade.mapping import load_mapping
from ..grade.progress import Progress
from ..grade.rows import LABELS, SCORE_COLUMNS, rows_for, summary, threshold_failures
from ..grade.runner import GradeSettings, run_grading, scorer_tag
from ..grade.targets import STDOUT, check_outputs, is_stdout, regular_targets, write_target
from ..metrics.codebleu import DEFAULT_WEIGHTS
from ..engines import open_scorer
from ..scoring.inputs import empty_reference
from ..scoring.report import ALL_METRICS, CODEBLEU_RULES
from . import grade_blocks, options
from .bert_options import idf_setting as _idf_setting
from .grade_blocks import STREAM_THRESHOLD
from .options import UsageError

EXIT_INTERRUPTED = 130
#: The score columns a terminal line and the summary show, when computed.
SHOWN = ("refscore", "codebleu", "codebertscore_f1", "chrf", "tsed", "crystalbleu")


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
    src.add_argument("--jsonl", action="append", default=[], metavar="FILE",
                     help='JSONL (or .jsonl.gz): {"id","candidate","reference","context","language"} per line')
    src.add_argument("--lang", help="language (default: from the reference's extension)")
    src.add_argument("--context", help="task description given to CodeBERTScore as context")
    src.add_argument("--context-file", metavar="FILE", help="read the task description from FILE")
    src.add_argument("--pattern", metavar="GLOB", help="file-name filter inside folders, e.g. '*.py'")
    src.add_argument("--per-folder", action="store_true",
                     help="each sub-folder of a SUBMISSION folder is one submission (files matching --pattern)")
    sc = p.add_argument_group("scoring")
    sc.add_argument("--metrics", default=",".join(ALL_METRICS),
                    help=f"comma-separated, from {','.join(ALL_METRICS)},chrf,tsed,crystalbleu (default: "
                         f"{','.join(ALL_METRICS)})")
    sc.add_argument("--weights", default=",".join(str(w) for w in DEFAULT_WEIGHTS),
                    help="CodeBLEU weights: n-gram,weighted,syntax,dataflow (default 0.25 each); "
                         "the native rule normalises them to sum to 1")
    sc.add_argument("--codebleu-rule", choices=CODEBLEU_RULES, default="native",
                    help="native (default) or compat: the codebleu package's numbers, to compare with "
                         "published results (no explanations in the report then)")
    sc.add_argument("--batch-size", type=int, default=32, help="requests per Scorer call (default 32)")
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
                    help="local (default) or ray: a Ray cluster grades --jsonl inputs block by block "
                         "(docs/scale.md); the numbers are the same")
    sc.add_argument("--ray-address", metavar="ADDR",
                    help="the Ray cluster for --engine ray (default: $RAY_ADDRESS, else a private one here)")
    sc.add_argument("--block-lines", type=int, metavar="N",
                    help="grade --jsonl inputs N lines at a time, streaming (default for --engine ray and for "
                         f"inputs over {STREAM_THRESHOLD:,} lines: {DEFAULT_BLOCK_LINES})")
    out = p.add_argument_group("outputs")
    out.add_argument("-o", "--out-dir", metavar="DIR", help="write grade.csv, grade.json and grade.html here")
    out.add_argument("--csv", metavar="FILE", help="write the CSV report")
    out.add_argument("--json", metavar="FILE", help="write the JSON report")
    out.add_argument("--html", metavar="FILE", help="write the HTML report")
    out.add_argument("--title", default="RefScore grade report", help="HTML report title")
    out.add_argument("--cache", metavar="FILE",
                     help="resume cache (default: <report name>.cache.jsonl next to the first report)")
    out.add_argument("--no-cache", action="store_true", help="score everything again, remember nothing")
    out.add_argument("--fail-under", type=float, metavar="X",
                     help="exit 1 if any submission scores below X (or could not be scored)")
    out.add_argument("--fail-metric", default=None, choices=SCORE_COLUMNS,
                     help="metric for --fail-under (default: codebleu, else codebertscore_f1, else the first "
                          "of chrf, tsed, crystalbleu in --metrics)")
    out.add_argument("--progress", choices=("auto", "bar", "lines", "none"), default="auto",
                     help="progress on stderr: bar on a terminal, lines otherwise (default auto)")
    out.add_argument("-q", "--quiet", action="store_true", help="no progress, only the summary")
    p.set_defaults(handler=run)


def collect(args: argparse.Namespace, own: list[Path] | None = None) -> ItemSet:
    """Every input named on the command line, as items (ids made unique). ``own``: this run's
    reports and cache, never graded (``-o`` may name a folder inside the submissions)."""
    own = [p for p in own or () if str(p) != STDOUT]
    items = ItemSet()
    if args.submissions:
        if not args.reference:
            raise UsageError("grading files needs --reference REF (or use --mapping / --jsonl)")
        context = args.context
        if args.context_file:
            from ..scoring.inputs import read_source

            context = read_source(args.context_file)
        problem = load_problem(args.reference, args.lang, context, strict=True)
        subs = expand(args.submissions, args.pattern, args.per_folder, exclude=[*args.reference, *own])
        items.extend(items_for(problem, subs, args.pattern))
    elif args.reference:
        raise UsageError("--reference given but no SUBMISSION to grade")
    for path in args.mapping:
        items.extend(load_mapping(path, args.lang, exclude=own))
    for path in args.jsonl:
        items.extend(load_records(path, args.lang))
    if not (args.submissions or args.mapping or args.jsonl):
        raise UsageError("nothing to grade: give SUBMISSION files with --reference, --mapping or --jsonl")
    if not items.items:
        raise InputFileError("no submissions found in the inputs given")
    unique_ids(items.items)
    empty = {empty_reference(name, text) for item in items.items
             for name, text in zip(item.reference_names, item.references)} - {None}
    items.notes.extend(f"{line}, so what is graded against it scores 0" for line in sorted(empty))
    return items


def check_applicable(args: argparse.Namespace) -> None:
    """Options that would be ignored are usage errors: the SUBMISSION options without
    SUBMISSION files (a mapping and JSONL lines carry their own), ``--context`` with
    ``--context-file``, ``--ray-address`` without ``--engine ray``, ``--fail-metric`` without
    ``--fail-under`` (a CI job would pass without any check)."""
    if args.context is not None and args.context_file:
        raise UsageError("--context and --context-file both give the task description; give one")
    if not args.submissions:
        given = [flag for flag, value in (("--context", args.context is not None), ("--context-file", args.context_file),
                                          ("--pattern", args.pattern), ("--per-folder", args.per_folder)) if value]
        if given:
            raise UsageError(f"{given[0]} applies to SUBMISSION files graded against --reference; a mapping "
                             "file has context, context_file, pattern and per_folder keys per problem, and a "
                             "JSONL line its own \"context\"")
    if args.ray_address and args.engine != "ray":
        raise UsageError("--ray-address is for --engine ray")
    if args.fail_metric and args.fail_under is None:
        raise UsageError(f"--fail-metric {args.fail_metric} needs --fail-under X (the threshold to check)")


def _outputs(args: argparse.Namespace) -> dict[str, Path]:
    paths: dict[str, Path] = {}
    if args.out_dir:
        base = Path(args.out_dir)
        paths = {kind: base / f"grade.{kind}" for kind in ("csv", "json", "html")}
    for kind in ("csv", "json", "html"):
        if getattr(args, kind):
            paths[kind] = Path(getattr(args, kind))
    return paths


def _cache_path(args: argparse.Namespace, outputs: dict[str, Path]) -> Path | None:
    if args.no_cache:
        return None
    if args.cache:
        return Path(args.cache)
    files = regular_targets(outputs)  # never beside standard output or a pipe
    if files:
        first = write_target(files[0])
        return first.with_name(f"{first.stem}.cache.jsonl")
    return None


def check_targets(args: argparse.Namespace, outputs: dict[str, Path], cache: Path | None = None) -> None:
    """Reports (and the cache) that clash with an input or each other, or cannot be written:
    one line before anything is scored."""
    named = [*args.reference, *args.mapping, *args.jsonl, *args.submissions]
    named += [p for p in (args.context_file, args.idf) if p]
    check_outputs({**outputs, **({"cache": cache} if cache else {})}, named)


def run(args: argparse.Namespace) -> int:
    metrics, weights = options.parse_metrics(args.metrics), options.parse_weights(args.weights)
    options.check_fail_under(args.fail_under)
    options.check_fail_metric(args.fail_metric, metrics)
    options.check_device(args.device, metrics)
    apply_backend(args.backend)
    if args.batch_size < 1:
        raise UsageError("--batch-size must be at least 1")
    check_applicable(args)
    options.check_layer(None, args.model, (), metrics)  # --model, for the block-wise engines too
    outputs = _outputs(args)
    if grade_blocks.wanted(args):
        if "crystalbleu" in metrics:
            raise UsageError("--metrics crystalbleu needs the whole run at once (not --engine ray "
                             "or --block-lines)")
        return grade_blocks.run(args, metrics, weights, outputs)  # checks its outputs itself
    check_targets(args, outputs, _cache_path(args, outputs))
    cache_path = _cache_path(args, outputs)
    items = collect(args, own=[*outputs.values(), *([cache_path] if cache_path else [])])
    options.check_layer(args.layer, args.model, [i.language for i in items.items if i.language], metrics)
    for note in items.notes:
        print(f"refscore: note: {printable(note)}", file=sys.stderr)
    idf = _idf_setting(args.idf)
    tag = scorer_tag(args.model, args.layer, args.device, idf) + backend_tag(args.backend)  # int8 only
    settings = GradeSettings(metrics, weights, args.batch_size, tag, args.codebleu_rule,
                             args.model, args.layer, args.device, idf, args.per_function, args.backend,
                             explain="html" in outputs)  # only the HTML report shows token detail
    scorer = open_scorer("daemon_or_local" if args.daemon else "local", autostart=True)
    cache = ReportCache(cache_path)
    mode = "none" if args.quiet else args.progress
    progress = Progress(len(items.items), tty=None if mode == "auto" else mode == "bar", enabled=mode != "none")
    try:
        graded = run_grading(items.items, scorer, settings, cache, progress)
    finally:
        scorer.close()
    for note in getattr(scorer, "notes", ()):
        print(f"refscore: note: {note}", file=sys.stderr)
    if "crystalbleu" in metrics:  # its ignored n-grams come from this run's texts
        from ..grade.crystal import add_crystalbleu

        add_crystalbleu(graded.results)
    _headline_note(graded.results, settings)
    rows = rows_for(graded.results)
    info = {"refscore_version": __version__, "metrics": list(metrics), "weights": list(weights),
            "codebleu_rule": args.codebleu_rule,
            "scorer": tag, "interrupted": graded.interrupted, "scored_now": graded.scored,
            "from_cache": graded.from_cache, "elapsed_s": round(graded.elapsed_s, 3),
            "scorer_s": round(graded.scorer_s, 3)}
    _write(outputs, graded.results, rows, info, args.title)
    _print_summary(rows, outputs, graded, cache)
    if graded.interrupted:
        print(f"refscore: interrupted: {graded.scored + graded.from_cache} of {len(rows)} scored; "
              "rerun the same command to finish" + (f" (cache: {cache.path})" if cache.path else ""),
              file=sys.stderr)
        return EXIT_INTERRUPTED
    return _threshold(args, rows)


def _headline_note(results: list, settings: GradeSettings) -> None:
    """One line when the combined RefScore number applies but some rows lack it, and why."""
    from ..grade.runner import request_for
    from ..scoring.headline import missing_note

    scored = [r for r in results if r.report is not None]
    note = missing_note([request_for(r.item, settings) for r in scored], [r.report for r in scored])
    if note:
        print(f"refscore: note: {note}", file=sys.stderr)


def _write(outputs: dict[str, Path], results: list, rows: list, info: dict, title: str) -> None:
    from ..grade import writers

    if "csv" in outputs:
        writers.write_csv(outputs["csv"], rows)
    if "json" in outputs:
        writers.write_json(outputs["json"], rows, info)
    if "html" in outputs:
        from ..grade.html_report import build_html

        writers.atomic_write(outputs["html"], build_html(results, rows, info, title))


def _print_summary(rows: list, outputs: dict[str, Path], graded: Any, cache: ReportCache) -> None:
    if not outputs:
        width = min(60, max((len(printable(str(row["id"]))) for row in rows), default=0))
        for row in rows:
            print(row_line(row, width))
    stats = summary(rows)
    means = ", ".join(f"{LABELS[c]} mean {m['mean']:.3f}" for c, m in stats["metrics"].items() if c in SHOWN)
    out = summary_stream(outputs)
    print(f"graded {stats['submissions']} submission(s): {stats['with_errors']} with errors"
          + (f"; {means}" if means else "") + f"; {graded.from_cache} from cache", file=out)
    for kind, path in outputs.items():
        print(f"wrote {'standard output' if str(path) == STDOUT else path}", file=out)


def summary_stream(outputs: dict[str, Path]) -> Any:
    """Where the summary lines go: stderr when a report is written to standard output (``-``,
    ``/dev/stdout``: so ``--json - | jq`` reads JSON only), else stdout."""
    return sys.stderr if any(is_stdout(p) for p in outputs.values()) else sys.stdout


def row_line(row: dict, width: int = 0) -> str:
    """One submission's line on the terminal (when no report file is written); ids padded to
    ``width`` so the scores line up."""
    scores = "  ".join(f"{LABELS[c]} {row[c]:.3f}" for c in SHOWN if isinstance(row.get(c), float))
    notes = "; ".join(row["errors"])
    shown = printable(str(row["id"]))
    return f"{shown:<{width}}  " + printable(scores + (f"  [{notes}]" if notes else ""))


def _threshold(args: argparse.Namespace, rows: list) -> int:
    if args.fail_under is None:
        return EXIT_OK
    metric = threshold_metric(args)
    failures = threshold_failures(rows, metric, args.fail_under)
    return report_threshold(args, metric, len(failures), failures[:20])


def threshold_metric(args: argparse.Namespace) -> str:
    """The metric ``--fail-under`` applies to."""
    return args.fail_metric or options.default_fail_metric(options.parse_metrics(args.metrics))


def report_threshold(args: argparse.Namespace, metric: str, count: int, first: list) -> int:
    """Say whether every submission reaches ``--fail-under`` (``count`` do not; ``first`` are
    the first of them); the exit code."""
    if not count:
        print(f"all submissions reach {LABELS[metric]} {args.fail_under:g}", file=summary_stream(_outputs(args)))
        return EXIT_OK
    print(f"{count} submission(s) below {LABELS[metric]} {args.fail_under:g}:", file=sys.stderr)
    for row in first:
        value = row.get(metric)
        shown = f"{value:.3f}" if isinstance(value, float) else "not scored"
        print(printable(f"  {row['id']}: {shown}"), file=sys.stderr)
    if count > len(first):
        print(f"  ... and {count - len(first)} more", file=sys.stderr)
    return EXIT_BELOW_THRESHOLD
