"""What every harness integration computes, as plain functions over lists of texts (the harness
modules only adapt their calling conventions): all numbers come from ``refscore.score`` /
``refscore.score_corpus``, so they are ``refscore score --json``'s."""

from __future__ import annotations

from typing import Any, Sequence

from ..api import References, score, score_corpus

CODEBLEU_DESCRIPTION = """CodeBLEU (Ren et al. 2020): a weighted sum of BLEU, keyword-weighted BLEU, syntax-tree
match and dataflow match, computed by RefScore with tree-sitter. The corpus number is the codebleu
package's (codebleu.calc_codebleu: corpus statistics, its final-score rule); per-sample numbers use
the rule asked for (native by default: a missing dataflow match scores 0, not full credit)."""
CODEBLEU_CITATION = """@misc{ren2020codebleu,
  title = {CodeBLEU: a Method for Automatic Evaluation of Code Synthesis},
  author = {Ren, Shuo and Guo, Daya and Lu, Shuai and Zhou, Long and Liu, Shujie and Tang, Duyu and
            Sundaresan, Neel and Zhou, Ming and Blanco, Ambrosio and Ma, Shuai},
  year = {2020}, eprint = {2009.10297}, archivePrefix = {arXiv}
}"""
CODEBERTSCORE_DESCRIPTION = """CodeBERTScore (Zhou et al. 2023): BERTScore over a code model's contextual embeddings,
precision, recall, F1 and F3 per candidate (several references: the max per component, as
code_bert_score.score does, or the mean). The model is the paper's per-language model when it is in
the local Hugging Face cache, else RefScore's embedded all-MiniLM-L6-v2; nothing is downloaded."""
CODEBERTSCORE_CITATION = """@inproceedings{zhou2023codebertscore,
  title = {CodeBERTScore: Evaluating Code Generation with Pretrained Models of Code},
  author = {Zhou, Shuyan and Alon, Uri and Agarwal, Sumit and Neubig, Graham},
  booktitle = {EMNLP}, year = {2023}, url = {https://arxiv.org/abs/2302.05527}
}"""
COMBINED_DESCRIPTION = """The combined RefScore number: one score in 0..1 from CodeBERTScore, chrF++, length and
parse-error signals, fitted on HumanEval tests and CoNaLa human grades and kept because it ranks
held-out candidates better than each single metric (RefScore docs/correlation.md). Needs both
CodeBLEU (native rule) and CodeBERTScore with the embedded model."""
COMBINED_CITATION = CODEBERTSCORE_CITATION
BEHAVIOUR_DESCRIPTION = """Behaviour agreement (RefScore): each prediction run beside its reference in a bubblewrap
sandbox on inputs made from the reference only (its docstring examples, __main__ calls and type
hints, domain-respecting mutations of them, boundaries kept; never a benchmark's hidden tests),
scored by the share of inputs on which both give the same result. A prediction and a reference
must be whole programs (for HumanEval: the prompt plus the completion). Where no sandbox is
available nothing runs and every value is None (``not_run`` says why)."""
BEHAVIOUR_CITATION = """@misc{refscore_behaviour,
  title = {RefScore behaviour: differential testing against a reference solution},
  note = {RefScore docs/behaviour.md}
}"""
INPUTS_DESCRIPTION = """Args:
    predictions: list of candidate programs (str).
    references: per prediction one reference (str) or a list of references.
    lang: programming language (python, java, javascript, cpp, ... or an alias); default python.
    Other keywords are refscore.score's (context, aggregation, codebleu_rule, weights, model,
    layer, device, backend)."""


def codebleu_values(predictions: Sequence[str], references: References, lang: str = "python",
                    **options: Any) -> dict[str, Any]:
    """Corpus CodeBLEU (the package's five keys) plus per-sample ``codebleu_per_sample``."""
    corpus = score_corpus(list(predictions), list(references), lang, ("codebleu",), **options)
    values = {key: getattr(corpus, key) for key in ("codebleu", "ngram_match_score", "weighted_ngram_match_score",
                                                    "syntax_match_score", "dataflow_match_score")}
    values["codebleu_per_sample"] = [s.codebleu for s in corpus.samples]
    values["signature"] = dict(corpus.signatures).get("codebleu", "")
    return values


def codebertscore_values(predictions: Sequence[str], references: References, lang: str = "python",
                         **options: Any) -> dict[str, Any]:
    """Per-sample precision, recall, F1 and F3 lists (``evaluate``'s bertscore shape) and the
    signature naming model and layer."""
    rows = score(list(predictions), list(references), lang, ("codebertscore",), **options)
    values: dict[str, Any] = {key: [getattr(r, f"codebertscore_{key}") for r in rows]
                              for key in ("precision", "recall", "f1", "f3")}
    values["signature"] = next((dict(r.signatures)["codebertscore"] for r in rows
                                if "codebertscore" in dict(r.signatures)), "")
    return values


def behaviour_values(predictions: Sequence[str], references: References, lang: str = "python",
                     **options: Any) -> dict[str, Any]:
    """Per-sample agreement (None where behaviour did not run), its mean, the share that agree on
    every input, why a sample did not run, and the signature."""
    rows = score(list(predictions), list(references), lang, ("behaviour",), **options)
    reports = [r.report.behaviour if r.report is not None else None for r in rows]
    values = [r.behaviour for r in rows]
    present = [v for v in values if v is not None]
    everywhere = [b.agrees_everywhere for b in reports if b is not None and b.ran]
    return {"behaviour": values, "behaviour_mean": sum(present) / len(present) if present else None,
            "agrees_everywhere": sum(everywhere) / len(everywhere) if everywhere else None,
            "not_run": [None if b is None or b.ran else b.not_run for b in reports],
            "signature": next((dict(r.signatures)["behaviour"] for r in rows if "behaviour" in dict(r.signatures)), "")}


def combined_values(predictions: Sequence[str], references: References, lang: str = "python",
                    **options: Any) -> dict[str, Any]:
    """Per-sample combined RefScore numbers, their mean and the fit's signature; a sample the
    combined number does not apply to is None (``errors`` says why, when known)."""
    rows = score(list(predictions), list(references), lang, ("codebleu", "codebertscore"), **options)
    numbers = [r.refscore for r in rows]
    present = [n for n in numbers if n is not None]
    return {"refscore": numbers, "refscore_mean": sum(present) / len(present) if present else None,
            "signature": next((dict(r.signatures)["refscore"] for r in rows if r.refscore is not None), ""),
            "errors": [list(r.errors) for r in rows]}
