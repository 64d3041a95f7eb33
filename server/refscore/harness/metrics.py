"""What every harness integration computes, as plain functions over lists of texts (the harness
modules only adapt their calling conventions): all numbers come from ``refscore.score`` /
``refscore.score_corpus``, so they are ``refscore score --json``'s."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from ..api import References, score, score_corpus

CODEBLEU_DESCRIPTION = """CodeBLEU (Ren et al. 2020): a weighted sum of BLEU, keyword-weighted BLEU, syntax-tree
match and dataflow match, computed by RefScore with tree-sitter. Every key named codebleu... is the
codebleu package's rule (codebleu.calc_codebleu: the corpus number from corpus statistics, each
sample's as calc_codebleu([reference], [prediction]) gives it; a missing dataflow match earns full
credit). RefScore's native rule (a missing dataflow match scores 0, weights normalised, the best of
several references) is under codebleu_native_per_sample, never under the package's name."""
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


#: Where the native rule's numbers are (never under the package's name ``codebleu``).
NATIVE_KEY = "codebleu_native_per_sample"


def _without_rule(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` less ``codebleu_rule``, which chose ``codebleu_per_sample``'s rule before both
    rules had names of their own: still taken, with a FutureWarning saying where the numbers are."""
    if "codebleu_rule" in options:
        options = dict(options)
        rule = options.pop("codebleu_rule")
        warnings.warn(f"codebleu_rule={rule!r} is deprecated and changes nothing: codebleu and "
                      "codebleu_per_sample are always the codebleu package's rule, and RefScore's native rule is "
                      f"{NATIVE_KEY}", FutureWarning, stacklevel=3)
    return options


def codebleu_values(predictions: Sequence[str], references: References, lang: str = "python",
                    **options: Any) -> dict[str, Any]:
    """The package's rule under its names: corpus CodeBLEU (the package's five keys) and
    ``codebleu_per_sample`` (``calc_codebleu([reference], [prediction])`` each); RefScore's native
    rule per sample under ``codebleu_native_per_sample``, with each rule's signature."""
    options = _without_rule(options)
    corpus = score_corpus(list(predictions), list(references), lang, ("codebleu",), codebleu_rule="compat",
                          **options)
    native = score(list(predictions), list(references), lang, ("codebleu",), codebleu_rule="native", **options)
    values = {key: getattr(corpus, key) for key in ("codebleu", "ngram_match_score", "weighted_ngram_match_score",
                                                    "syntax_match_score", "dataflow_match_score")}
    values["codebleu_per_sample"] = [s.codebleu for s in corpus.samples]
    values["signature"] = dict(corpus.signatures).get("codebleu", "")
    values[NATIVE_KEY] = [s.codebleu_native for s in native]
    values["native_signature"] = next((dict(s.signatures)["codebleu"] for s in native
                                       if "codebleu" in dict(s.signatures)), "")
    return values


def codebleu_native_values(predictions: Sequence[str], references: References, lang: str = "python",
                           **options: Any) -> list[float | None]:
    """RefScore's native rule per sample (lm-eval's ``refscore_codebleu_native``)."""
    rows = score(list(predictions), list(references), lang, ("codebleu",), codebleu_rule="native",
                 **_without_rule(options))
    return [r.codebleu_native for r in rows]


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
