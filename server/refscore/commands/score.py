"""``refscore score REFERENCE CANDIDATE...``: score files and print a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys

from ..scoring.inputs import read_source, resolve_language
from ..scoring.render import render_table
from ..scoring.report import ALL_METRICS, ScoreReport, ScoreRequest
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
        requests.append(ScoreRequest(read_source(path), references, spec.name, args.context, metrics))
    reports = score_all(requests, use_daemon=not args.no_daemon)
    for path, report in zip(args.candidates, reports):
        if args.json:
            print(json.dumps({"candidate": path, "reference": args.reference, **report.to_dict(explain=args.explain)}))
        else:
            print(render_table(path, args.reference, report, explain=args.explain))
    return 0


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
