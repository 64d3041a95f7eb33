"""``refscore score REFERENCE CANDIDATE...``: score files and print a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import InputFileError
from ..metrics.codebertscore_align import LineIndex
from ..scoring.heat import DEFAULT_WEAK_THRESHOLD, candidate_words, missing_words, render_heat, token_records
from ..scoring.inputs import read_source, resolve_language
from ..scoring.render import render_table
from ..scoring.report import ALL_METRICS, CODEBLEU_RULES, ScoreReport, ScoreRequest
from ..scoring.scorer import LocalScorer


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score", help="score candidate files against a reference",
        description="Score one or more candidate files against a reference solution.")
    parser.add_argument("reference", help="the reference solution file")
    parser.add_argument("candidates", nargs="+", metavar="CANDIDATE", help="candidate file(s) to score")
    parser.add_argument("--lang", help="language (default: from the file extension)")
    parser.add_argument("--also-reference", action="append", default=[], metavar="FILE",
                        help="another acceptable reference (repeatable)")
    parser.add_argument("--context", help="task description, used as CodeBERTScore context")
    parser.add_argument("--metrics", default=",".join(ALL_METRICS),
                        help=f"comma-separated metrics from {','.join(ALL_METRICS)} (default: all; "
                             "CodeBERTScore loads a transformer, a few seconds on a CPU)")
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
    parser.add_argument("--idf", metavar="FILE", help="IDF weights (JSON) for CodeBERTScore; scores in this process")
    parser.add_argument("--device", help="cpu, cuda, cuda:1 ... for CodeBERTScore; scores in this process")
    parser.add_argument("--no-heat", action="store_true", help="do not print the candidate's heat view")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the heat view (default: when stdout is a terminal)")
    parser.add_argument("--no-daemon", action="store_true",
                        help="score in this process; by default a running scoring daemon is used, and one is "
                             "started for CodeBERTScore (see `refscore daemon`)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    metrics = tuple(m.strip() for m in args.metrics.split(",") if m.strip())
    unknown = [m for m in metrics if m not in ALL_METRICS]
    if unknown:
        print(f"refscore: unknown metric {unknown[0]!r}; choose from {', '.join(ALL_METRICS)}", file=sys.stderr)
        return 2
    reference_paths = [args.reference, *args.also_reference]
    references = tuple(read_source(p) for p in reference_paths)
    requests = []
    for path in args.candidates:
        spec = resolve_language(args.lang, args.reference, path)
        requests.append(ScoreRequest(read_source(path), references, spec.name, args.context, metrics,
                                     model=args.model, layer=args.layer, codebleu_rule=args.codebleu_rule))
    if args.idf and not Path(args.idf).is_file():
        raise InputFileError(f"{args.idf}: no such IDF file")
    if args.idf or args.device:
        reports = LocalScorer(device=args.device, idf=args.idf).score_many(requests)
    else:
        reports = score_all(requests, use_daemon=not args.no_daemon)
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    for path, request, report in zip(args.candidates, requests, reports):
        if args.json:
            data = {"candidate": path, "reference": args.reference, **report.to_dict(explain=args.explain)}
            if report.codebertscore is not None and not isinstance(report.codebertscore, dict):
                data["codebertscore"] = report.codebertscore.as_dict()
                data["tokens"] = token_records(report.codebertscore, request.candidate, references)
            print(json.dumps(data))
            continue
        print(render_table(path, args.reference, report, explain=args.explain))
        bert = report.codebertscore
        if bert is not None and not isinstance(bert, dict) and not args.no_heat:
            print(_heat_section(bert, request.candidate, references, color))
    return 0


def _heat_section(bert, candidate: str, references: tuple[str, ...], color: bool) -> str:
    """The candidate's weak tokens in place, then the reference words it lacks."""
    lines = [f"  heat view (CodeBERTScore similarity < {DEFAULT_WEAK_THRESHOLD:.2f} "
             f"{'red' if color else '«marked»'}, borderline {'yellow' if color else '‹marked›'}):",
             render_heat(candidate, candidate_words(bert, candidate), color=color)]
    reference = references[bert.reference_index] if references else ""
    missing = missing_words(bert, reference)
    if missing:
        index = LineIndex(reference)
        shown = ", ".join(f"{w.text} (line {index.position(w.start)[0] + 1})" for w in missing[:20])
        more = f", … {len(missing) - 20} more" if len(missing) > 20 else ""
        lines.append(f"  missing from the candidate (reference words with similarity < "
                     f"{DEFAULT_WEAK_THRESHOLD:.2f}): {shown}{more}")
    return "\n".join(lines)


def score_all(requests: list[ScoreRequest], use_daemon: bool = True) -> list[ScoreReport]:
    """Score through the daemon when allowed: a running one is always used; one is started when
    CodeBERTScore is wanted (the model is what is worth keeping warm). Without a daemon, or when
    it dies mid-request, the requests are scored in this process."""
    if not use_daemon:
        return LocalScorer().score_many(requests)
    from ..service import DaemonError, get_scorer

    needs_model = any("codebertscore" in r.metrics for r in requests)
    scorer = get_scorer(autostart=needs_model, fallback=True)
    if isinstance(scorer, LocalScorer):
        return scorer.score_many(requests)
    try:
        return scorer.score_many(requests)
    except DaemonError as error:
        print(f"refscore: note: {error}; scoring in this process instead", file=sys.stderr)
        return LocalScorer().score_many(requests)
    finally:
        scorer.close()
