"""``refscore eval --protocol paper --paper-folds constants.py``: the CodeBERTScore paper's HumanEval
rows (BLEU, CodeBLEU, chrF, and CodeBERTScore with the paper's models when they are in the local
Hugging Face cache) on its protocol (``eval.paper``), beside this project's pooled tau, on the
completion text as given, on the paper's normalised text, and on the text of the paper's
hyps/refs files (newlines to spaces only: what its baselines were computed on)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import EXIT_INPUT, EXIT_USAGE, RefScoreError
from ..safe_write import replace_file
from .eval_checks import check_outputs, data_folder_problem, paper_problem

HUMANEVAL = ("python", "java", "js", "cpp")


def handle_paper(args: argparse.Namespace) -> int:
    """Score and print (and write ``--out`` JSON / ``--report`` markdown) the paper's rows."""
    from ..eval.correlation import grouped_kendall_tau
    from ..eval.data import default_data_dir, load_humaneval, sample_problems
    from ..eval.metrics import chrf_scores, codebleu_scores
    from ..eval.paper import FoldsError, codexglue_rule, load_folds, paper_files_text, paper_tau

    problem = paper_problem(args)
    if problem:
        print(f"refscore eval: {problem}", file=sys.stderr)
        return EXIT_USAGE
    languages = [lang for lang in args.languages if lang in HUMANEVAL]
    if not languages:
        print(f"refscore eval: --protocol paper: --languages names no HumanEval language ({', '.join(HUMANEVAL)})",
              file=sys.stderr)
        return EXIT_USAGE
    if args.paper_folds is None:
        print("refscore eval: --protocol paper needs --paper-folds PATH: the paper's evaluation/constants.py "
              "(neulab/code-bert-score)", file=sys.stderr)
        return EXIT_USAGE
    try:
        folds = load_folds(args.paper_folds)
    except FoldsError as error:
        print(f"refscore eval: --paper-folds {error}", file=sys.stderr)
        return EXIT_INPUT
    data = Path(args.data or default_data_dir())
    problem = data_folder_problem(data)
    if problem:
        print(f"refscore eval: {problem}", file=sys.stderr)
        return EXIT_INPUT
    try:
        check_outputs(args)
    except RefScoreError as error:
        print(f"refscore eval: {error}", file=sys.stderr)
        return error.exit_code
    rows: dict[str, dict[str, tuple[float | None, float | None]]] = {}
    steps = len(languages) * 5
    for done_languages, lang in enumerate(languages):
        try:
            items = sample_problems(load_humaneval(data, lang), args.sample, args.seed)
        except OSError as error:
            print(f"refscore eval: {data}: {lang} data cannot be read ({error})", file=sys.stderr)
            return EXIT_INPUT
        target = [i.target for i in items]
        problem = [i.problem for i in items]
        columns: dict[str, list[float]] = {}
        step = done_languages * 5
        for text, normalise, prepare in (("as given", False, None), ("normalised", True, None),
                                         ("the paper's files (newlines to spaces)", False, paper_files_text)):
            step += 1
            _progress(step, steps, f"{lang}: BLEU and CodeBLEU on the text {text} ({len(items):,} completions)")
            scores, _ = codebleu_scores(items, normalise, prepare)
            columns[f"BLEU (n-gram component), {text}"] = scores["bleu"]
            columns[f"CodeBLEU, package rule (codebleu 0.7.0), {text}"] = scores["codebleu_compat"]
            columns[f"CodeBLEU, CodeXGLUE rule (dataflow 0 counts 0), {text}"] = list(codexglue_rule(scores))
        _progress(step + 1, steps, f"{lang}: chrF")
        columns["chrF, normalised"] = chrf_scores(items, True)["chrf"]
        _progress(step + 2, steps, f"{lang}: CodeBERTScore with the paper's model (the longest step)")
        columns.update(paper_model_columns(items, lang))
        for name, values in columns.items():
            pooled = grouped_kendall_tau(target, [v if v == v else 0.0 for v in values], problem).tau
            rows.setdefault(name, {})[lang] = (paper_tau(target, values, problem, folds)[0], pooled)
    text = render(rows, languages)
    print(text)
    if args.report:
        replace_file(args.report, text + "\n")
    if args.out:
        replace_file(args.out, json.dumps({"protocol": "paper", "rows": rows}, indent=1) + "\n")
    return 0


def _progress(step: int, steps: int, what: str) -> None:
    """One progress line on stderr: the paper protocol runs for many minutes."""
    print(f"refscore eval: paper protocol, step {step} of {steps}: {what}", file=sys.stderr, flush=True)


def paper_model_columns(items: list, lang: str) -> dict[str, list[float]]:
    """CodeBERTScore F1 and F3 (the paper's table: F3, its ``fm``) with the paper's model and layer
    for ``lang``, the intent as context, on the normalised text; none, and one line on stderr, when
    that model is not in the local Hugging Face cache (nothing is downloaded)."""
    from ..embed.registry import local_model_path, paper_model
    from ..embed.layer_stack import LayerStack
    from ..eval.metrics import BertColumns, bert_scores

    model, paper_layer = paper_model(lang)
    bert = BertColumns(paper_layer)
    if local_model_path(model) is None:
        print(f"refscore eval: no CodeBERTScore row for {lang}: the paper's model {model} (layer {bert.layer}) is not "
              f"in the local Hugging Face cache, and nothing is downloaded (`huggingface-cli download {model}` "
              "once, then run again)", file=sys.stderr)
        return {}
    encoder = LayerStack([bert.layer], model=model)
    scores = bert_scores(items, [bert.layer], [True], normalise=True, encoder=encoder)
    return {f"CodeBERTScore {part.upper()} ({model}, layer {bert.layer}, context, no idf), normalised":
            scores[bert.name(part, True)] for part in ("f1", "f3")}


def render(rows: dict[str, dict[str, tuple[float | None, float | None]]], languages: list[str]) -> str:
    """A markdown table: each cell 'paper folds / pooled', then the paper's number."""
    from ..eval.paper import PAPER_MEAN, PAPER_TAU

    def cell(value: float | None) -> str:
        return "–" if value is None else f"{value:.3f}"

    head = "| metric | " + " | ".join(languages) + " | mean | paper (" + " / ".join(languages) + " ; mean) |"
    lines = [head, "|" + "---|" * (len(languages) + 3)]
    for name, per in rows.items():
        family = ("bleu" if name.startswith("BLEU") else "codebleu" if name.startswith("CodeBLEU")
                  else "codebertscore" if name.startswith("CodeBERTScore") else "chrf")
        folds = [per[lang][0] for lang in languages]
        pooled = [per[lang][1] for lang in languages]
        means = [sum(v for v in vs if v is not None) / len(vs) if all(v is not None for v in vs) else None
                 for vs in (folds, pooled)]
        paper = " / ".join(cell(PAPER_TAU[family].get(lang)) for lang in languages) + f" ; {PAPER_MEAN[family]:.3f}"
        cells = " | ".join(f"{cell(f)} / {cell(p)}" for f, p in zip(folds, pooled))
        lines.append(f"| {name} | {cells} | {cell(means[0])} / {cell(means[1])} | {paper} |")
    return "\n".join(lines)
