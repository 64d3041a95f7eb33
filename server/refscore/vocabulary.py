"""The words and thresholds every front end shares: CodeBLEU component labels, the weak-token
threshold and the exit code of an interrupted command (one place, so the CLI, the grader and the
editor cannot drift apart)."""

from __future__ import annotations

#: Exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT, the shell convention).
EXIT_INTERRUPTED = 130
#: Below this CodeBERTScore similarity a candidate token is "weak" and a reference token
#: "missing" (the editor's default; ``score --heat`` and the grade report use it too).
WEAK_TOKEN_THRESHOLD = 0.45
#: CodeBLEU's components in short (table columns, hovers) and long form (the terminal report).
COMPONENT_LABELS = {"ngram_match": "n-gram", "weighted_ngram_match": "weighted", "syntax_match": "syntax",
                    "dataflow_match": "dataflow"}
COMPONENT_LABELS_LONG = {"ngram_match": "n-gram match (BLEU)", "weighted_ngram_match": "weighted n-gram match",
                         "syntax_match": "syntax match (AST)", "dataflow_match": "dataflow match"}
