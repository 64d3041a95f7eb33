"""Every figure README.md and docs/ state, filled from the reports the commands wrote.

A figure in a document sits between markers (invisible once rendered)::

    <!--claim:behaviour.tau-->0.938<!--/claim-->

``NAME`` is a key of ``CLAIMS``: a report under docs/reports/ (written by the command the report
names, see ``report_file.py``) and how to read the figure from it. A claim may be a whole sentence:
the headline claim is written one way when the rerun meets its rule and another when it does not.

Usage::

    .venv/bin/python benchmarks/claims.py --check   # what tests/test_claims.py runs
    .venv/bin/python benchmarks/claims.py --write   # refill every marker from the reports
    .venv/bin/python benchmarks/claims.py --list    # each claim, its value, its report's command
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
REPORTS = REPO / "docs" / "reports"
#: the documents whose figures are claims
DOCUMENTS = ("README.md", "docs/correlation.md", "docs/correlation-paper.md", "docs/benchmarks.md", "docs/behaviour.md")
MARKER = re.compile(r"<!--claim:([A-Za-z0-9_.\-]+)-->(.*?)<!--/claim-->", re.S)


@dataclass(frozen=True)
class Claim:
    """A figure (or sentence) and the report it comes from."""

    report: str
    render: Callable[[dict[str, Any]], str]


def path(*keys: str | int, fmt: str = "{:.3f}") -> Callable[[dict[str, Any]], str]:
    """A figure at ``keys`` in the report's values, formatted."""
    def render(values: dict[str, Any]) -> str:
        node: Any = values
        for key in keys:
            node = node[key]
        return fmt.format(node)
    return render


def _ci(values: dict[str, Any], *keys: str) -> str:
    node: Any = values
    for key in keys:
        node = node[key]
    return f"{node[0]:+.3f} [{node[1]:+.3f}, {node[2]:+.3f}]"


def headline_sentence(values: dict[str, Any]) -> str:
    """The combined number's claim against the single metrics, as the rerun supports it."""
    held, best = values["combined_held_out"], values["best_single"]
    gain = _ci(values, "gain_over_best_tau")
    figures = (f"HumanEval mean Kendall tau {held['humaneval_tau']:.3f} against {best['tau_label']} "
               f"{best['tau']:.3f}, a gain of {gain} (95% bootstrap interval over tasks); CoNaLa "
               f"{held['conala_tau']:.3f} against {values['bert_conala_label']} {values['bert_conala_tau']:.3f}")
    if values.get("without_humaneval_tau") is not None:
        figures += f"; the fit that never saw HumanEval: {values['without_humaneval_tau']:.3f}"
    if values["meets_rule"] and values["gain_over_best_tau"][1] > 0:
        return "on held-out problems it ranks candidates better than every single metric (" + figures + ")"
    if values["meets_rule"]:
        return ("on held-out problems it meets the rule for its place as the headline number, ranking candidates "
                "better than every single metric on average, but the gain's interval includes zero, so the gain "
                "is not established (" + figures + ")")
    failed = ", ".join(name.replace("_", " ") for name, ok in values.get("checks", {}).items() if not ok)
    return ("held out, it does not meet the rule for claiming that it ranks better than every single metric"
            + (f" (not met: {failed})" if failed else "") + ", so no such claim is made (" + figures
            + "); it stays one number with its explanations, not a better ranker")


#: docs/correlation-paper.md's rows by the short names its claims use
PAPER_ROWS = {
    "given.bleu": "BLEU (n-gram component), as given",
    "given.package": "CodeBLEU, package rule (codebleu 0.7.0), as given",
    "given.codexglue": "CodeBLEU, CodeXGLUE rule (dataflow 0 counts 0), as given",
    "normalised.codexglue": "CodeBLEU, CodeXGLUE rule (dataflow 0 counts 0), normalised",
    "files.bleu": "BLEU (n-gram component), the paper's files (newlines to spaces)",
    "files.codexglue": "CodeBLEU, CodeXGLUE rule (dataflow 0 counts 0), the paper's files (newlines to spaces)",
    "chrf": "chrF, normalised",
}


def paper_table(values: dict[str, Any]) -> str:
    """The whole table, as `refscore eval --protocol paper` prints it (``commands.eval_paper.render``)."""
    sys.path.insert(0, str(REPO / "server"))
    from refscore.commands.eval_paper import render

    rows = {name: {lang: tuple(pair) for lang, pair in per.items()} for name, per in values["rows"].items()}
    return "\n" + render(rows, values["languages"]) + "\n"


def paper_cell(row: str, lang: str | None, pooled: bool = False, versus_paper: bool = False) -> Callable[[dict[str, Any]], str]:
    """One figure of the table: a language's paper-folds tau (``pooled``: all problems), or the mean
    over the languages (``lang`` None); ``versus_paper``: its difference from the paper's number."""
    def render(values: dict[str, Any]) -> str:
        per = values["rows"][PAPER_ROWS[row]]
        index = 1 if pooled else 0
        value = (sum(per[lang][index] for lang in values["languages"]) / len(values["languages"]) if lang is None
                 else per[lang][index])
        if not versus_paper:
            return f"{value:.3f}"
        sys.path.insert(0, str(REPO / "server"))
        from refscore.eval.paper import PAPER_MEAN, PAPER_TAU

        family = "chrf" if row == "chrf" else "bleu" if row.endswith("bleu") else "codebleu"
        paper = PAPER_MEAN[family] if lang is None else PAPER_TAU[family][lang]
        return f"{value - paper:+.3f}"
    return render


CLAIMS: dict[str, Claim] = {
    # refscore eval (docs/reports/correlation.json)
    "eval.headline": Claim("correlation.json", headline_sentence),
    "eval.combined.tau": Claim("correlation.json", path("combined_held_out", "humaneval_tau")),
    "eval.combined.conala": Claim("correlation.json", path("combined_held_out", "conala_tau")),
    "eval.best.tau": Claim("correlation.json", path("best_single", "tau")),
    "eval.without_humaneval.tau": Claim("correlation.json", path("without_humaneval_tau")),
    # benchmarks/fit_behaviour_combined.py (docs/reports/behaviour-humaneval.json)
    "behaviour.refit": Claim("behaviour-humaneval.json", path("tau", "refit, 10 folds by problem (held out)")),
    "behaviour.classes": Claim("behaviour-humaneval.json",
                               path("tau", "refit on the hand-written classes only (HumanEval wholly held out)")),
    "behaviour.tau": Claim("behaviour-humaneval.json", path("tau", "behaviour")),
    "behaviour.similarity": Claim("behaviour-humaneval.json", path("tau", "similarity (RefScore today)")),
    "behaviour.precision": Claim("behaviour-humaneval.json", path("agrees_everywhere", "precision")),
    "behaviour.recall": Claim("behaviour-humaneval.json", path("agrees_everywhere", "recall")),
    "behaviour.completions": Claim("behaviour-humaneval.json", path("completions", fmt="{:,}")),
    "behaviour.ran": Claim("behaviour-humaneval.json", path("behaviour_ran", fmt="{:,}")),
    # benchmarks/bench_codebleu.py --report (docs/reports/codebleu-speed-<language>.json)
    **{f"codebleu.speed.{lang}": Claim(f"codebleu-speed-{lang}.json", path("ratio", "cold", fmt="{:.1f}x"))
       for lang in ("python", "java", "javascript", "cpp")},
    "codebleu.speed.pairs": Claim("codebleu-speed-python.json", path("pairs", fmt="{:,}")),
    "codebleu.speed.warm": Claim("codebleu-speed-python.json", path("ratio", "warm", fmt="{:.1f}x")),
    "codebleu.speed.load": Claim("codebleu-speed-python.json", path("load_average", fmt="{:.1f}")),
    "codebleu.edit_ms": Claim("codebleu-speed-python.json", path("edited_file_ms", fmt="{:.0f} ms")),
    "codebleu.grade_ratio": Claim("codebleu-grade.json", path("ratio", fmt="{:.1f}x")),
    "codebleu.grade_pairs": Claim("codebleu-grade.json", path("pairs", fmt="{:,}")),
    "codebleu.grade_load": Claim("codebleu-grade.json", path("load_average", fmt="{:.1f}")),
    # refscore eval --protocol paper (docs/reports/paper-protocol.json), docs/correlation-paper.md
    "paper.table": Claim("paper-protocol.json", paper_table),
    **{f"paper.{row}.mean": Claim("paper-protocol.json", paper_cell(row, None)) for row in PAPER_ROWS},
    **{f"paper.{row}.mean_pooled": Claim("paper-protocol.json", paper_cell(row, None, pooled=True))
       for row in PAPER_ROWS},
    **{f"paper.{row}.{lang}": Claim("paper-protocol.json", paper_cell(row, lang))
       for row in PAPER_ROWS for lang in ("python", "java", "js", "cpp")},
    **{f"paper.{row}.{lang}.gap": Claim("paper-protocol.json", paper_cell(row, lang, versus_paper=True))
       for row in ("files.codexglue", "chrf") for lang in ("python", "java", "js", "cpp")},
    "paper.files.codexglue.mean.gap": Claim("paper-protocol.json", paper_cell("files.codexglue", None, versus_paper=True)),
    "paper.files.bleu.mean.gap": Claim("paper-protocol.json", paper_cell("files.bleu", None, versus_paper=True)),
}


def load_report(name: str) -> dict[str, Any]:
    """A report's whole object (``command``, ``machine``, ``values``)."""
    return json.loads((REPORTS / name).read_text(encoding="utf-8"))


def expected(name: str, cache: dict[str, dict[str, Any]]) -> str:
    """What the claim ``name`` must read, from its report."""
    claim = CLAIMS[name]
    if claim.report not in cache:
        cache[claim.report] = load_report(claim.report)
    return claim.render(cache[claim.report]["values"])


def problems() -> list[str]:
    """Every place a document's figure differs from its report, or a marker names no claim."""
    found, cache = [], {}
    for document in DOCUMENTS:
        text = (REPO / document).read_text(encoding="utf-8")
        for match in MARKER.finditer(text):
            name, shown = match.group(1), match.group(2)
            line = text.count("\n", 0, match.start()) + 1
            if name not in CLAIMS:
                found.append(f"{document}:{line}: no claim named {name!r}")
                continue
            try:
                want = expected(name, cache)
            except (OSError, KeyError, ValueError, TypeError) as exc:
                found.append(f"{document}:{line}: {name}: its report cannot be read ({exc})")
                continue
            if shown != want:
                found.append(f"{document}:{line}: {name} reads {shown!r}; its report says {want!r}")
    return found


def write() -> list[str]:
    """Refill every marker from the reports; returns the documents changed."""
    changed, cache = [], {}

    def fill(match: re.Match[str]) -> str:
        try:
            return f"<!--claim:{match.group(1)}-->{expected(match.group(1), cache)}<!--/claim-->"
        except (OSError, KeyError, ValueError, TypeError) as exc:
            print(f"left as it is: {match.group(1)} ({exc})", file=sys.stderr)
            return match.group(0)

    for document in DOCUMENTS:
        file = REPO / document
        text = file.read_text(encoding="utf-8")
        new = MARKER.sub(fill, text)
        if new != text:
            file.write_text(new, encoding="utf-8")
            changed.append(document)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail on any figure that differs from its report")
    mode.add_argument("--write", action="store_true", help="refill every marker from the reports")
    mode.add_argument("--list", action="store_true", help="each claim, its value and its report's command")
    args = parser.parse_args(argv)
    if args.write:
        for document in write():
            print("updated", document)
        return 0
    if args.list:
        cache: dict[str, dict[str, Any]] = {}
        for name, claim in CLAIMS.items():
            try:
                value = expected(name, cache)
                command = cache[claim.report]["command"]
            except (OSError, KeyError, ValueError) as exc:
                value, command = f"(no report: {exc})", ""
            print(f"{name}: {value}\n    {claim.report}: {command}")
        return 0
    found = problems()
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
