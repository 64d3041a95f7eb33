"""``refscore score REFERENCE CANDIDATE...`` (or ``-r REFERENCE CANDIDATE...``, as in ``grade``):
score files and print a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys

from .. import languages
from ..analysis.positions import LinePositions
from ..bidi import bidi_warning, printable, readable
from ..embed.backends import BACKENDS
from ..errors import EXIT_INPUT, EXIT_OK
from ..metrics.codebertscore_result import BertScore
from ..engines import open_scorer
from ..scoring import pipeline
from ..scoring.checks import Checks
from ..scoring.flat import flat_scores
from ..scoring.differences import difference_records, placed_records, render_differences
from ..terminal.heat import DEFAULT_WEAK_THRESHOLD, candidate_words, missing_words, render_heat, token_records
from ..files.sources import STDIN, empty_reference, read_source, read_stdin_source, resolve_language
from ..scoring.per_function import pair_record, score_functions
from ..terminal.render import render_functions, render_table
from ..scoring.report import CODEBLEU_RULES, DEFAULT_METRICS, ScoreReport, ScoreRequest
from ..scoring.requests import build_request
from ..settings_schema import IDF_ONE_REFERENCE, ScoreSettings, idf_lacks_references
from . import options
from .bert_options import settings_from_args


#: The options of the heat view, which only CodeBERTScore draws and only the table shows:
#: flag, argparse destination, value when not given.
HEAT_OPTIONS = (("--no-heat", "no_heat", False), ("--color", "color", "auto"))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score", help="score candidate files against a reference",
        description="Score one or more candidate files against a reference solution.")
    parser.add_argument("reference", nargs="?", help="the reference solution file; - reads it from standard input")
    parser.add_argument("candidates", nargs="+", metavar="CANDIDATE", help="candidate file(s) to score; - reads one from standard input")
    parser.add_argument("-r", "--reference", dest="reference_option", metavar="FILE",
                        help="the reference, as in refscore grade -r; every positional is then a candidate")
    parser.add_argument("--lang", help="language (default: from the file extension)")
    parser.add_argument("--also-reference", action="append", default=[], metavar="FILE",
                        help="another acceptable reference (repeatable; - reads one from standard input)")
    parser.add_argument("--context", help="task description, used as CodeBERTScore context")
    parser.add_argument("--context-file", metavar="FILE",
                        help="read the task description from FILE (- reads it from standard input)")
    parser.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                        help=f"comma-separated metrics from {','.join(DEFAULT_METRICS)},chrf,tsed (default: "
                             f"{','.join(DEFAULT_METRICS)}; CodeBERTScore loads a transformer, a few seconds on "
                             "a CPU; behaviour runs the candidate beside the reference in a sandbox, where "
                             "one is available; chrF and TSED need refscore[eval])")
    options.add_behaviour_options(parser)
    parser.add_argument("--weights", default=options.DEFAULT_WEIGHTS_TEXT,
                        help="CodeBLEU weights: n-gram,weighted,syntax,dataflow (default 0.25 each); "
                             "the native rule normalises them to sum to 1")
    parser.add_argument("--json", action="store_true", help="print JSON (one object per candidate, one per line)")
    parser.add_argument("--explain", action="store_true", help="list what the reference has that the candidate lacks")
    parser.add_argument("--codebleu-rule", choices=CODEBLEU_RULES, default="native",
                        help="native (default): RefScore's CodeBLEU; compat: the codebleu package's numbers "
                             "(its comment stripping and final-score rule), to compare with published results; "
                             "compat scores come without explanations")
    parser.add_argument("--model", help="CodeBERTScore encoder: a local folder or a Hugging Face id in the local "
                                        "cache (never downloaded); default: per-language paper model if cached, "
                                        "else the embedded all-MiniLM-L6-v2")
    parser.add_argument("--layer", type=int, help="hidden layer of the encoder (default: the model's own default)")
    parser.add_argument("--idf", metavar="FILE", help="IDF weights (JSON) for CodeBERTScore")
    parser.add_argument("--device", help="cpu, cuda, cuda:1 ... for CodeBERTScore (default: a GPU when there is one)")
    parser.add_argument("--backend", choices=BACKENDS,
                        help="CodeBERTScore encoder engine: auto (default; ONNX Runtime on a CPU, torch on a GPU), "
                             "torch, onnx, or onnx-int8 (faster, approximate numbers); it travels with each request, "
                             "so a scoring daemon honours it too")
    parser.add_argument("--per-function", action="store_true",
                        help="also score each top-level function against its reference function "
                             "(paired by name, else by best CodeBLEU)")
    parser.add_argument("--no-heat", action="store_true", help="do not print the candidate's heat view")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the heat view (default: when stdout is a terminal)")
    parser.add_argument("--no-daemon", action="store_true",
                        help="score in this process; by default a running scoring daemon is used, and one is "
                             "started for CodeBERTScore (see `refscore daemon`)")
    parser.set_defaults(handler=run)


def _place_reference(args: argparse.Namespace) -> None:
    """``-r FILE``: the reference, and a first positional is one more candidate; without it the
    first positional is the reference (one line when there is none)."""
    if args.reference_option is not None:
        if args.reference is not None:
            args.candidates = [args.reference, *args.candidates]
        args.reference = args.reference_option
    elif args.reference is None:
        raise options.UsageError("give the reference: refscore score REFERENCE CANDIDATE... or "
                                 "refscore score CANDIDATE... -r REFERENCE")


def run(args: argparse.Namespace) -> int:
    _place_reference(args)
    options.make_model_portable(args)
    metrics = options.parse_metrics(args.metrics)
    options.parse_weights(args.weights)  # a bad value is a usage error even where CodeBLEU is not computed
    if args.context is not None and args.context_file:
        raise options.UsageError("--context and --context-file both give the task description; give one")
    reference_paths = [args.reference, *args.also_reference]
    if [*reference_paths, *args.candidates, args.context_file].count(STDIN) > 1:
        raise options.UsageError("- (standard input) can be given once among the references, candidates "
                                 "and --context-file")
    if "crystalbleu" in metrics:
        raise options.UsageError("--metrics crystalbleu needs a corpus of submissions: use refscore grade")
    options.check_device(args.device, metrics)
    options.drop_unused_options(args, metrics, extra=(("--context", "context", None),
                                                      ("--context-file", "context_file", None), *HEAT_OPTIONS))
    if args.json:
        options.drop_ignored(args, HEAT_OPTIONS, "the heat view", "which --json does not print (its \"tokens\" "
                             "list holds each token's similarity)")
    context = _read(args.context_file) if args.context_file else args.context
    references = tuple(_read(p) for p in reference_paths)
    empty_notes = [note for note in (empty_reference(p, t) for p, t in zip(reference_paths, references)) if note]
    for note in empty_notes:
        print(f"refscore: warning: {printable(note)}", file=sys.stderr)
    settings = settings_from_args(args, metrics)
    _check_idf_from_references(settings, references)
    requests, mismatches = [], []
    for path in args.candidates:
        spec = resolve_language(args.lang, args.reference, path)
        mismatches.append(None if args.lang or path == STDIN else language_mismatch(spec.name, path, reference_paths))
        requests.append(build_request(_read(path), references, spec.name, context, settings=settings))
    options.check_encoder(settings.encoder, [r.language for r in requests], metrics)
    needs_model = "codebertscore" in metrics
    scorer = open_scorer("local" if args.no_daemon else "daemon_or_local", autostart=needs_model)
    try:
        reports = scorer.score_many(requests)
        functions = [score_functions(r, scorer) for r in requests] if args.per_function else []
    finally:
        scorer.close()
    from ..scoring.headline import missing_note

    for note in [*getattr(scorer, "notes", ()), missing_note(reports)]:
        if note:
            print(f"refscore: note: {printable(note)}", file=sys.stderr)
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    for index, (path, request, report) in enumerate(zip(args.candidates, requests, reports)):
        warnings = [*empty_notes, *_bidi_warnings(path, pipeline.checks_of(request, report), reference_paths)]
        if mismatches[index]:
            print(f"refscore: warning: {printable(mismatches[index])}", file=sys.stderr)
            warnings.append(mismatches[index])
        found = pipeline.differences(request, report)
        if found.note and found.differences:
            warnings.append(f"differences: {found.note}")
        if args.json:
            scores = {k: v for k, v in flat_scores(report).items() if v is not None}
            data = {"candidate": readable(path), "reference": readable(args.reference),
                    "references": [readable(p) for p in reference_paths], "scores": scores,
                    **report.to_dict(explain=args.explain), "warnings": [readable(w) for w in warnings]}
            if report.codebertscore is not None:
                data["tokens"] = token_records(report.codebertscore, request.candidate, references)
            data["differences"] = difference_records(found)
            _place_explanations(data, found, request.candidate, references)
            if functions:
                data["functions"] = [pair_record(p, request.codebleu_rule) for p in functions[index]]
            print(json.dumps(data))
            continue
        print(render_table(printable(path), ", ".join(printable(p) for p in reference_paths), report,
                           explain=args.explain,
                           notes=[printable(note) for note in empty_notes]))
        if args.explain:
            print(render_differences(found, request.candidate))
        if functions:
            print(render_functions(functions[index], references))
        bert = report.codebertscore
        if bert is not None and not args.no_heat:
            print(_heat_section(bert, request.candidate, references, color))
    return _nothing_scored(requests, reports)


def _nothing_scored(requests: list[ScoreRequest], reports: list[ScoreReport]) -> int:
    """Exit 3 with one line when no candidate got any number (every metric asked for unavailable:
    ``--metrics codebertscore`` without the bert extra), as ``grade`` does; else 0. Why: the first
    metric that did not run, as the checks stage recorded it (errors before behaviour's)."""
    if any(value is not None for report in reports for value in flat_scores(report).values()):
        return EXIT_OK
    not_run = [pair for request, report in zip(requests, reports) for pair in pipeline.checks_of(request, report).not_run]
    reasons = [*(why for metric, why in not_run if metric != "behaviour"),
               *(why for metric, why in not_run if metric == "behaviour")]
    why = reasons[0] if reasons else "no metric gave a number"
    print(f"refscore: nothing was scored: {printable(why)}", file=sys.stderr)
    return EXIT_INPUT


def _check_idf_from_references(settings: ScoreSettings, references: tuple[str, ...]) -> None:
    """``--idf references`` weighs a token by how few of the references hold it; every candidate
    of ``score`` has the same references, so with one (distinct) reference every token of it
    weighs 0 and recall is undefined: a usage error, not a recall of 0."""
    if idf_lacks_references(settings, len(set(references))):
        raise options.UsageError(f"--idf references {IDF_ONE_REFERENCE}: give an IDF file, or more references "
                                 "with --also-reference")


def _read(path: str) -> str:
    """A reference or candidate: ``-`` is standard input, anything else a file (the same rules)."""
    return read_stdin_source() if path == STDIN else read_source(path)


def _place_explanations(data: dict, found, candidate: str, references: tuple[str, ...]) -> None:
    """Each CodeBLEU explanation in ``data`` (``--explain``) with its ``reference_range`` and its
    ``candidate_range``: line/character ranges, as tokens and differences have them (the flat
    offsets the report keeps internally are dropped)."""
    explanations = data.get("codebleu_details", {}).get("explanations")
    if explanations is None:
        return
    lines = [LinePositions(text) for text in references]
    placed = placed_records(found, candidate) if len(explanations) == len(found.explanations) else None
    for index, item in enumerate(explanations):
        start, end, which = item.pop("start", None), item.pop("end", None), item.get("reference_index", 0)
        item["reference_range"] = None
        if isinstance(start, int) and isinstance(end, int) and 0 <= which < len(lines):
            (l0, c0), (l1, c1) = lines[which].range(start, end)
            item["reference_range"] = {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}
        if placed is not None:
            item.update({k: v for k, v in placed[index].items() if k not in ("candidate_start", "candidate_end")})


def language_mismatch(language: str, candidate: str, reference_paths: list[str]) -> str | None:
    """Say so when a reference's extension names another language than the candidate's (it is
    parsed with the candidate's grammar, so the syntax and dataflow numbers mean little)."""
    for path in reference_paths:
        try:
            other = languages.for_path(path).name
        except languages.UnknownLanguageError:
            continue
        if not (languages.get(language).takes(other) or languages.get(other).takes(language)):
            return (f"{candidate} is {language} but the reference {path} is {other}: both scored as {language} "
                    "(pass --lang to choose)")
    return None


def _bidi_warnings(path: str, checks: Checks, reference_paths: list[str]) -> list[str]:
    """Trojan Source warnings (bidi controls in the candidate or a reference, as the checks
    stage found them), also on stderr."""
    found = [(path, checks.bidi), *zip(reference_paths, checks.reference_bidi)]
    warnings = [f"{name}: {w}" for name, controls in found if (w := bidi_warning(controls))]
    for warning in warnings:
        print(f"refscore: warning: {printable(warning)}", file=sys.stderr)
    return warnings


def _heat_section(bert: BertScore, candidate: str, references: tuple[str, ...], color: bool) -> str:
    """The candidate's weak tokens in place, then the reference words it lacks."""
    lines = [f"  heat view (CodeBERTScore similarity < {DEFAULT_WEAK_THRESHOLD:.2f} "
             f"{'red' if color else '«marked»'}, borderline {'yellow' if color else '‹marked›'}):",
             render_heat(candidate, candidate_words(bert, candidate), color=color)]
    reference = references[bert.reference_index] if references else ""
    missing = missing_words(bert, reference)
    if missing:
        positions = LinePositions(reference)
        shown = ", ".join(f"{w.text} (line {positions.position(w.start)[0] + 1})" for w in missing[:20])
        more = f", … {len(missing) - 20} more" if len(missing) > 20 else ""
        lines.append(f"  missing from the candidate (reference words with similarity < "
                     f"{DEFAULT_WEAK_THRESHOLD:.2f}): {shown}{more}")
    return "\n".join(lines)
