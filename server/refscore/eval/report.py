"""Markdown report (docs/correlation.md) from a ``runner.run`` result, and its paper-ready table.

Every number in the tables comes from the result dict; the paper's numbers (arXiv 2302.05527, as
listed in ../shared/data/README.md) are printed beside ours for reference only. ``refscore eval
--table results.tex`` (or ``.md``, ``render_table``) writes one row per metric, Kendall tau per
HumanEval language, the mean and CoNaLa tau with their 95% bootstrap intervals, in LaTeX or Markdown:
the report's figures, so a table in a paper and docs/correlation.md cannot disagree.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..vocabulary import COMPONENT_LABELS, METRIC_LABELS, SCORE_LABELS
from .data import CONALA, HUMANEVAL_LANGUAGES
from .metrics import BertColumns
from .report_cv import cv_section, signals_section, verdict_lines

#: Paper Kendall tau on HumanEval (their CodeBERT models for CodeBERTScore).
PAPER_HUMANEVAL = {
    "codebertscore": {"java": .553, "cpp": .327, "python": .422, "js": .319, "mean": .405},
    "codebleu": {"java": .496, "cpp": .175, "python": .366, "js": .261},
    "chrf": {"java": .532, "cpp": .319, "python": .394, "js": .302},
    "bleu": {"mean": .308},
}
#: Paper CoNaLa (tau, Pearson, Spearman).
PAPER_CONALA = {"codebertscore": (.517, .674, .662), "chrf": (.470, .635, .623),
                "bleu": (.374, .604, .543), "codebleu": (.350, .539, .495)}

_CODEBLEU = SCORE_LABELS["codebleu"]


def _component(name: str, how: str = "") -> str:
    """A CodeBLEU component in the vocabulary's words, with how this study computed it."""
    return f"{_CODEBLEU} {COMPONENT_LABELS[name]}" + (f" ({how})" if how else "")


#: Each metric's label in the tables, in table order: the vocabulary's names (``vocabulary``)
#: with how the study computed each.
LABELS = {
    "bleu": f"BLEU ({_CODEBLEU} {COMPONENT_LABELS['ngram_match']} component)",
    "weighted_ngram_match": _component("weighted_ngram_match"),
    "syntax_match": _component("syntax_match", "package"),
    "ngram_match_native": _component("ngram_match", "native, short-text rule"),
    "weighted_ngram_match_native": _component("weighted_ngram_match", "native, short-text rule"),
    "syntax_match_native": _component("syntax_match", "native"),
    "dataflow_match": _component("dataflow_match", "package"),
    "dataflow_match_native": _component("dataflow_match", "native, n/a = 0"),
    "codebleu_compat": f"{_CODEBLEU}, package final-score rule",
    "codebleu_native": f"{_CODEBLEU}, native final-score rule",
    "chrf": f"{SCORE_LABELS['chrf']} (sacrebleu, normalised text)",
    "chrfpp": f"{SCORE_LABELS['chrf']}++ (sacrebleu, word bigrams too, normalised text)",
    "tsed": f"{SCORE_LABELS['tsed']} (tree edit distance)",
    "crystalbleu": f"{SCORE_LABELS['crystalbleu']} (k = 500)",
    "canon_ngram_match": f"{COMPONENT_LABELS['ngram_match']} match, local names renamed canonically",
    "canon_exact": "same code up to local names (0/1)",
    "len_ratio": "length ratio only (log candidate/reference tokens)",
}
PAPER_KEY = {"bleu": "bleu", "codebleu_compat": "codebleu", "chrf": "chrf"}


def _f(value: Any) -> str:
    return "–" if value is None else f"{value:.3f}"


def _interval(result: dict[str, Any], metric: str, statistic: str) -> list[float] | None:
    """The metric's bootstrap interval for ``statistic`` (None in results made before intervals)."""
    return result.get("intervals", {}).get(metric, {}).get(statistic)


def _with_ci(value: float | None, interval: Sequence[float] | None) -> str:
    """A figure with its 95% interval, ``0.412 [0.391, 0.433]``."""
    if value is None or not interval:
        return _f(value)
    return f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def _label(metric: str) -> str:
    if metric in LABELS:
        return LABELS[metric]
    if metric.startswith("cbs_"):
        bits = metric.split("_")
        ctx = " + intent" if bits[-1] == "ctx" else ""
        return f"{METRIC_LABELS['codebertscore']} {bits[1].upper()} MiniLM {bits[2]}{ctx}"
    return metric


def _paper_mean(values: dict[str, float]) -> float | None:
    if "mean" in values:
        return values["mean"]
    if all(lang in values for lang in HUMANEVAL_LANGUAGES):
        return sum(values[lang] for lang in HUMANEVAL_LANGUAGES) / len(HUMANEVAL_LANGUAGES)
    return None


def _paper_for(metric: str) -> dict[str, float]:
    if metric.startswith("cbs_"):
        return PAPER_HUMANEVAL["codebertscore"]
    key = PAPER_KEY.get(metric)
    return PAPER_HUMANEVAL.get(key, {}) if key else {}


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def headline_metrics(result: dict[str, Any]) -> list[str]:
    """Metrics shown in the main tables: CodeBLEU family, chrF, CodeBERTScore F1/F3 at the
    chosen layer (or the last layer when nothing was chosen), with and without the intent."""
    settings = result["settings"]
    any_table = next(iter(result["agreement"].values()), {})
    names = [m for m in LABELS if m in any_table]
    bert = BertColumns(chosen_layer(result) or max(settings["layers"]))
    for context in (False, True):
        for part in ("f1", "f3"):
            name = bert.name(part, context)
            if any(name in table for table in result["agreement"].values()):
                names.append(name)
    return names


def chosen_layer(result: dict[str, Any]) -> int | None:
    """Layer picked by most folds of the cross-validation (None without one)."""
    folds = result.get("cross_validation", {}).get("folds")
    if not folds:
        return None
    layers = [f["layer"] for f in folds]
    return max(sorted(set(layers)), key=layers.count)


def humaneval_section(result: dict[str, Any]) -> list[str]:
    """Tau per language, mean, and the paper's values."""
    langs = [l for l in HUMANEVAL_LANGUAGES if l in result["agreement"]]
    if not langs:
        return []
    agree, means = result["agreement"], result["humaneval_mean"]
    rows = []
    for metric in headline_metrics(result):
        if not all(metric in agree[l] for l in langs):
            continue
        paper = _paper_for(metric)
        cells = [_label(metric)] + [_f(agree[l][metric]["tau"]) for l in langs]
        cells.append(_with_ci(means.get(metric, {}).get("tau"), _interval(result, metric, "humaneval_tau"))
                     if len(langs) == 4 else "–")
        cells.append(" / ".join(_f(paper.get(l)) for l in langs) + f" ; {_f(_paper_mean(paper))}"
                     if paper else "–")
        rows.append(cells)
    comb = result.get("cross_validation", {}).get("combined_held_out")
    if comb:
        taus = [comb[l]["tau"] for l in langs if l in comb]
        rows.append(["**Combined RefScore (held-out folds)**"] + [_f(t) for t in taus]
                    + [_f(sum(taus) / len(taus)) if len(taus) == 4 else "–", "–"])
    out = ["## HumanEval: Kendall tau against functional correctness", "",
           "The mean's 95% interval: a bootstrap over tasks (500 resamples, each task drawn once for "
           "all four languages).", ""]
    out += _table(["metric"] + langs + ["mean [95% interval]", "paper (" + " / ".join(langs) + " ; mean)"], rows)
    out += ["", "Pooled Spearman / Pearson over all completions of a language:", ""]
    rows = []
    for metric in headline_metrics(result):
        if all(metric in agree[l] for l in langs):
            rows.append([_label(metric)] + [f"{_f(agree[l][metric]['spearman'])} / "
                                            f"{_f(agree[l][metric]['pearson'])}" for l in langs]
                        + [f"{_f(means.get(metric, {}).get('spearman'))} / "
                           f"{_f(means.get(metric, {}).get('pearson'))}"])
    if comb:
        rows.append(["**Combined RefScore (held-out folds)**"]
                    + [f"{_f(comb[l]['spearman'])} / {_f(comb[l]['pearson'])}" for l in langs]
                    + [f"{_f(_mean(comb[l]['spearman'] for l in langs))} / "
                       f"{_f(_mean(comb[l]['pearson'] for l in langs))}"])
    return out + _table(["metric"] + langs + ["mean"], rows) + [""]


def _mean(values: Iterable[float | None]) -> float | None:
    vals = list(values)
    return None if not vals or any(v is None for v in vals) else sum(vals) / len(vals)  # type: ignore[arg-type]


def conala_section(result: dict[str, Any]) -> list[str]:
    """CoNaLa tau / Pearson / Spearman against the mean human grade."""
    agree = result["agreement"].get(CONALA)
    if not agree:
        return []
    rows = []
    for metric in headline_metrics(result):
        if metric not in agree:
            continue
        a = agree[metric]
        key = "codebertscore" if metric.startswith("cbs_") else PAPER_KEY.get(metric)
        paper = PAPER_CONALA.get(key or "")
        rows.append([_label(metric), _with_ci(a["tau"], _interval(result, metric, "conala_tau")),
                     _f(a["pearson"]), _f(a["spearman"]),
                     " / ".join(_f(v) for v in paper) if paper else "–"])
    comb = result.get("cross_validation", {}).get("combined_held_out", {}).get(CONALA)
    if comb:
        rows.append(["**Combined RefScore (held-out folds)**", _f(comb["tau"]),
                     _f(comb["pearson"]), _f(comb["spearman"]), "–"])
    out = ["## CoNaLa: agreement with the mean human grade", ""]
    return out + _table(["metric", "tau [95% interval]", "Pearson", "Spearman", "paper tau / P / S"], rows) + [""]


def layer_section(result: dict[str, Any]) -> list[str]:
    """CodeBERTScore by layer and variant: HumanEval mean tau and CoNaLa tau (whole sample)."""
    settings = result["settings"]
    means, conala = result["humaneval_mean"], result["agreement"].get(CONALA, {})
    rows = []
    for context in (False, True):
        for bert in BertColumns.sweep(settings["layers"]):
            cells = [f"{bert.layer}{' + intent' if context else ''}"]
            found = False
            for part in ("p", "r", "f1", "f3"):
                name = bert.name(part, context)
                he = means.get(name, {}).get("tau")
                co = conala.get(name, {}).get("tau")
                found = found or he is not None or co is not None
                cells.append(f"{_f(he)} / {_f(co)}")
            if found:
                rows.append(cells)
    if not rows:
        return []
    out = ["## CodeBERTScore (embedded MiniLM) by layer", "",
           "HumanEval mean tau / CoNaLa tau on the whole sample (descriptive; the defaults are "
           "chosen by cross-validation below, not from this table).", ""]
    return out + _table(["layer", "P", "R", "F1", "F3"], rows) + [""]


def _best(table: dict[str, dict], stat: str, names: Sequence[str]) -> tuple[str, float] | None:
    scored = [(n, table[n][stat]) for n in names if n in table and table[n].get(stat) is not None]
    return max(scored, key=lambda x: x[1]) if scored else None


def guide_section(result: dict[str, Any]) -> list[str]:
    """What the numbers mean for a user choosing a score (sentences filled from the result)."""
    means = result["humaneval_mean"]
    conala = result["agreement"].get(CONALA, {})
    names = [n for n in headline_metrics(result) if n != "len_ratio"]
    out = ["## What this means when choosing a score", ""]
    best = _best(means, "tau", names)
    if best:
        out.append(f"* Ranking several candidates for the same task (HumanEval, tests as the "
                   f"truth): the best metric in the tables below is {_label(best[0])} (mean tau "
                   f"{best[1]:.3f}).")
    best = _best(conala, "tau", names)
    if best:
        out.append(f"* Agreeing with experienced developers (CoNaLa): {_label(best[0])} "
                   f"(tau {best[1]:.3f}).")
    nat, pkg = means.get("codebleu_native", {}), means.get("codebleu_compat", {})
    if nat.get("tau") is not None and pkg.get("tau") is not None:
        verdict = "beats" if nat["tau"] > pkg["tau"] else "does not beat"
        out.append(f"* CodeBLEU's native final-score rule {verdict} the package rule on HumanEval "
                   f"mean tau ({nat['tau']:.3f} vs {pkg['tau']:.3f}): a missing dataflow match "
                   "no longer earns full credit. Prefer the native number; the package number "
                   "exists for comparison with published CodeBLEU figures.")
    best = _best(means, "spearman", names)
    if best:
        out.append(f"* One threshold for every task (a pass mark in a grade book) needs scores "
                   f"that are comparable across tasks; pooled Spearman measures that. Best single "
                   f"metric: {_label(best[0])} (mean {best[1]:.3f}). Compare it with the tau "
                   "column: where pooled Spearman is far below tau, a fixed cut-off misjudges "
                   "whole tasks, so treat any cut-off as a hint, not a verdict.")
    out += verdict_lines(result)
    out.append("* How much of a difference is noise: see the bootstrap intervals and the per-fold "
               "numbers in the cross-validation section.")
    return out + [""]


def runtime_lines(result: dict[str, Any]) -> list[str]:
    """This command's time and the scoring time stored with the reused scores."""
    timing = result.get("timing", {})
    lines = [f"* Runtime: {result['runtime_s']:.0f} s for this command on this machine (2 shared "
             f"CPU cores), of which {result.get('scoring_s', 0):.0f} s loading and scoring"]
    stored = timing.get("unit_seconds") or {}
    if stored:
        groups: dict[str, float] = {}
        for key, seconds in stored.items():
            group = key.split("/")[-1]
            groups[group] = groups.get(group, 0.0) + seconds
        lines.append("* Scoring time held in the scores file (worker seconds summed over the runs "
                     "that filled it; an interrupted or extended run reuses what is there): "
                     + ", ".join(f"{g} {v / 60:.0f} min" for g, v in sorted(groups.items()))
                     + f"; total {sum(groups.values()) / 3600:.1f} h")
    for run in timing.get("scoring_runs") or []:
        lines.append(f"* Scoring run of {run['date']}: {run['wall_s'] / 60:.0f} min wall, "
                     f"{run['jobs']} worker process(es), metrics {', '.join(run['metrics'])}, "
                     f"{run['item_groups']} item-metric groups"
                     + (" (interrupted)" if run.get("interrupted") else "")
                     + (f"; {run['note']}" if run.get("note") else ""))
    return lines


def _bert_settings(s: dict[str, Any]) -> str:
    """The settings line on CodeBERTScore: what was scored, with which layers, contexts, where."""
    if "cbs" not in s["metrics"]:
        return "* CodeBERTScore: not scored (--metrics without cbs)"
    where = f" on {', '.join(s['bert_datasets'])} only" if s.get("bert_datasets") else ""
    context = ("context = the task's natural-language intent where marked" if True in s["contexts"]
               else "no context")
    return (f"* CodeBERTScore: embedded all-MiniLM-L6-v2{where}, layers {s['layers']}, no IDF, no "
            f"rescaling, {context}")


def render(result: dict[str, Any], command: str, extra: Sequence[str] = ()) -> str:
    """The whole markdown document."""
    s = result["settings"]
    counts = ", ".join(f"{d} {c['problems']} problems / {c['items']} items"
                       for d, c in result["counts"].items())
    lines = ["# How well RefScore's scores agree with tests and with people", "",
             "Generated by `refscore eval`; do not edit the tables by hand.", "",
             "## Settings", "",
             f"* Command: `{command}`",
             *runtime_lines(result),
             f"* Data: `{s['data_dir']}`; {counts}; sampling seed {s['seed']} (whole problems)",
             f"* Normalisation (paper: newlines to spaces, spaces collapsed, ' to \"): {s['normalise']}",
             _bert_settings(s),
             "* Kendall tau: the paper's pair rule (pairs inside one problem whose outcomes "
             "differ; metric differences under 0.001 are ties; counts pooled over all problems, where "
             "the paper averages five 30-problem folds: [correlation-paper.md](correlation-paper.md) "
             "has its protocol and each difference from its table); "
             "Spearman and Pearson pooled over all items of a dataset", ""]
    for section in (guide_section, humaneval_section, conala_section, layer_section):
        lines += section(result)
    lines += signals_section(result, _label)
    lines += cv_section(result)
    lines += list(extra)
    return "\n".join(lines).rstrip() + "\n"


#: the languages' column heads
HEADS = {"python": "Python", "java": "Java", "js": "JavaScript", "cpp": "C++"}


def _cell(value: float | None, interval: Sequence[float] | None = None, latex: bool = False) -> str:
    """A figure with its interval: the report's own form (``_with_ci``), or LaTeX's."""
    if not latex:
        return _with_ci(value, interval)
    if value is None:
        return "--"
    return f"{value:.3f}" + (f" {{\\scriptsize[{interval[0]:.3f}, {interval[1]:.3f}]}}" if interval else "")


def table_rows(result: dict[str, Any], latex: bool = False) -> tuple[list[str], list[list[str]]]:
    """The header and the rows (metric label first), combined number last when it was cross-validated."""
    agree, means = result["agreement"], result.get("humaneval_mean", {})
    langs = [lang for lang in HUMANEVAL_LANGUAGES if lang in agree]
    header = ["Metric"] + [HEADS[lang] for lang in langs]
    if len(langs) == len(HUMANEVAL_LANGUAGES):
        header.append("Mean [95% CI]")
    if CONALA in agree:
        header.append("CoNaLa [95% CI]")
    rows = []
    for metric in headline_metrics(result):
        row = [_label(metric)] + [_cell(agree[lang].get(metric, {}).get("tau"), latex=latex) for lang in langs]
        if len(langs) == len(HUMANEVAL_LANGUAGES):
            row.append(_cell(means.get(metric, {}).get("tau"), _interval(result, metric, "humaneval_tau"), latex))
        if CONALA in agree:
            row.append(_cell(agree[CONALA].get(metric, {}).get("tau"), _interval(result, metric, "conala_tau"), latex))
        rows.append(row)
    held = result.get("cross_validation", {}).get("combined_held_out")
    if held:
        row = ["RefScore combined (held out)"] + [_cell(held.get(lang, {}).get("tau"), latex=latex) for lang in langs]
        if len(langs) == len(HUMANEVAL_LANGUAGES):
            taus = [held.get(lang, {}).get("tau") for lang in langs]
            row.append(_cell(sum(taus) / len(taus) if None not in taus else None, latex=latex))
        if CONALA in agree:
            row.append(_cell(held.get(CONALA, {}).get("tau"), latex=latex))
        rows.append(row)
    return header, rows


def markdown(result: dict[str, Any]) -> str:
    """The table as Markdown, with the command under it."""
    lines = _table(*table_rows(result))
    lines += ["", f"Kendall tau (the CodeBERTScore paper's pair rule); `{result.get('command', 'refscore eval')}`."]
    return "\n".join(lines) + "\n"


def _latex_text(text: str) -> str:
    for char, escaped in (("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("_", "\\_"), ("#", "\\#")):
        text = text.replace(char, escaped)
    return text


def latex(result: dict[str, Any]) -> str:
    """The table as a LaTeX ``tabular`` (booktabs rules), ready for ``\\input``."""
    header, rows = table_rows(result, latex=True)
    spec = "l" + "r" * (len(header) - 1)
    lines = [f"% {_latex_text(result.get('command', 'refscore eval'))}",
             f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
             " & ".join(_latex_text(h) for h in header) + " \\\\", "\\midrule"]
    lines += [" & ".join([_latex_text(row[0])] + row[1:]) + " \\\\" for row in rows]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def render_table(result: dict[str, Any], suffix: str) -> str:
    """LaTeX for a ``.tex`` file, Markdown otherwise."""
    return latex(result) if suffix.lower() == ".tex" else markdown(result)
