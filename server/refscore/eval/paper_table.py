"""A paper-ready table of an eval result: one row per metric, Kendall tau per HumanEval language,
the mean with its 95% bootstrap interval, CoNaLa tau with its interval; Markdown or LaTeX.

``refscore eval --table results.tex`` (or ``.md``) writes it beside the full report; the figures are
the report's, so a table in a paper and docs/correlation.md cannot disagree.
"""

from __future__ import annotations

from typing import Any, Sequence

from .data import CONALA, HUMANEVAL_LANGUAGES
from .report import _interval, _label, _with_ci, headline_metrics

#: the languages' column heads
HEADS = {"python": "Python", "java": "Java", "js": "JavaScript", "cpp": "C++"}


def _cell(value: float | None, interval: Sequence[float] | None = None, latex: bool = False) -> str:
    """A figure with its interval: the report's own form (``report._with_ci``), or LaTeX's."""
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
    header, rows = table_rows(result)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
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
