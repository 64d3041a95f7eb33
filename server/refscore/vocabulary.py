"""The words and thresholds every front end shares: the names of the scores (report columns, JSON
keys), their labels, the weak-token threshold and heat buckets, and the exit code of an interrupted
command (one place, so the CLI, the grader, the editor and the VS Code client cannot drift apart:
the client's ``src/vocabulary.generated.ts`` is generated from here by
``client-vscode/scripts/vocabulary.py``, and a test fails when it differs).

The one vocabulary of score names is ``SCORE_NAMES``: the grade report's columns, ``refscore score
--json``'s ``scores`` object and the editor's labels use it. A CodeBLEU number is named by the rule
that made it (``codebleu_name``): ``codebleu`` is the ``codebleu`` package's rule only, RefScore's own
rule is ``codebleu_native``, in every module and column. The package's keys (``PACKAGE_KEYS``:
``ngram_match_score``...) likewise hold the package rule's numbers only, so code written for
``codebleu.calc_codebleu`` runs unchanged and never reads another rule's number under its names.
"""

from __future__ import annotations

#: Exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT, the shell convention).
EXIT_INTERRUPTED = 130
#: Below this CodeBERTScore similarity a candidate token is "weak" and a reference token
#: "missing" (the editor's default; ``score --heat`` and the grade report use it too).
WEAK_TOKEN_THRESHOLD = 0.45
#: Heat buckets around the threshold ``t``, weakest first: ``weak`` below ``t - width``, ``low``
#: below ``t``, ``fair`` below ``t + width``; higher similarities are not marked.
HEAT_BUCKETS = ("weak", "low", "fair")
HEAT_BUCKET_WIDTH = 0.15

#: CodeBLEU's components, in the package's order.
CODEBLEU_COMPONENTS = ("ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match")
#: CodeBERTScore's numbers.
BERT_FIELDS = ("precision", "recall", "f1", "f3")
#: Every score's name: report columns, ``score --json``'s ``scores``, settings such as ``--fail-metric``.
#: A CodeBLEU number's name by its rule: the package's name for the package's rule (``compat``),
#: a name of its own for RefScore's rule (``native``; docs/codebleu.md says where they differ).
CODEBLEU_NAMES = {"compat": "codebleu", "native": "codebleu_native"}
SCORE_NAMES = ("refscore", *CODEBLEU_NAMES.values(), *CODEBLEU_COMPONENTS, *(f"codebertscore_{f}" for f in BERT_FIELDS),
               "chrf", "tsed", "crystalbleu", "behaviour")
#: The ``codebleu`` package's key for each CodeBLEU number (``calc_codebleu``'s dict).
PACKAGE_KEYS = {"codebleu": "codebleu", **{c: f"{c}_score" for c in CODEBLEU_COMPONENTS}}

#: CodeBLEU's components in short (table columns, hovers, the editor) and long form (the terminal report).
COMPONENT_LABELS = {"ngram_match": "n-gram", "weighted_ngram_match": "weighted n-gram", "syntax_match": "syntax",
                    "dataflow_match": "dataflow"}
COMPONENT_LABELS_LONG = {"ngram_match": "n-gram match (BLEU)", "weighted_ngram_match": "weighted n-gram match",
                         "syntax_match": "syntax match (AST)", "dataflow_match": "dataflow match"}
#: Each score's short label (report headers, terminal lines, the editor's score list).
SCORE_LABELS = {
    "refscore": "RefScore", "codebleu": "CodeBLEU", "codebleu_native": "CodeBLEU", **COMPONENT_LABELS, "codebertscore_precision": "BERT P",
    "codebertscore_recall": "BERT R", "codebertscore_f1": "BERT F1", "codebertscore_f3": "BERT F3",
    "chrf": "chrF", "tsed": "TSED", "crystalbleu": "CrystalBLEU", "behaviour": "Behaviour",
}
#: Each metric's name as prose writes it (the research report's tables, docs).
METRIC_LABELS = {"codebertscore": "CodeBERTScore",
                 **{m: SCORE_LABELS[m] for m in ("codebleu", "chrf", "tsed", "crystalbleu", "behaviour")}}
#: What the reference has that the candidate lacks, by kind (the editor's "missing" list): the
#: CodeBLEU components, and reference tokens CodeBERTScore matched weakly.
MISSING_LABELS = {**COMPONENT_LABELS, "codebertscore_recall": "weakly matched (CodeBERTScore recall)"}


def heat_bucket(similarity: float, threshold: float = WEAK_TOKEN_THRESHOLD) -> str | None:
    """The heat bucket of a token's similarity (``HEAT_BUCKETS``), or None when it is not marked.
    Edges are rounded to 1e-6, so 0.45 - 0.15 is 0.3 (the client does the same)."""
    if similarity != similarity:  # NaN
        return None
    if similarity < round(threshold - HEAT_BUCKET_WIDTH, 6):
        return "weak"
    if similarity < threshold:
        return "low"
    if similarity < round(threshold + HEAT_BUCKET_WIDTH, 6):
        return "fair"
    return None


def codebleu_name(rule: str) -> str:
    """The name of a CodeBLEU number made by ``rule`` (``codebleu`` for the package's rule only)."""
    return CODEBLEU_NAMES.get(rule, CODEBLEU_NAMES["native"])


def metric_column(row: dict, name: str) -> str:
    """The column of ``row`` that holds the score ``name`` names as a rubric does (``metric =
    "codebleu"``, like ``--metrics codebleu``): for CodeBLEU the column of the rule the run used
    (``codebleu`` or ``codebleu_native``); every other name is its own column."""
    if name in CODEBLEU_NAMES.values():
        return next((n for n in CODEBLEU_NAMES.values() if row.get(n) is not None), name)
    return name


def metric_value(row: dict, name: str) -> object:
    """``row``'s value of the score ``name`` (``metric_column``)."""
    return row.get(metric_column(row, name))
