"""Per-function scores: each candidate function against the reference function it pairs with
(CodeBLEU, and CodeBERTScore when the request asks for it). The editor's lenses, ``refscore score
--per-function`` and the grader's ``functions`` field all come from here."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from .. import languages
from .pairing import FunctionPair, pair_functions, pair_texts
from .report import ScoreReport, ScoreRequest
from .scorer import Scorer
from ..vocabulary import codebleu_name


def codebleu_pairs(request: ScoreRequest, scorer: Scorer) -> list[FunctionPair]:
    """Pair the candidate's top-level functions with the references' and score each pair's CodeBLEU."""
    spec = languages.get(request.language)
    return pair_functions(request.candidate, request.references, spec, scorer.score_many, request.weights,
                          request.codebleu_rule)


def bert_requests(pairs: Sequence[FunctionPair], request: ScoreRequest) -> list[ScoreRequest]:
    """One CodeBERTScore request per paired function, with ``request``'s model settings and context."""
    out = []
    for pair in pairs:
        if pair.region is not None:
            candidate, reference = pair_texts(pair, request.candidate, request.references)
            out.append(replace(request, candidate=candidate, references=(reference,), metrics=("codebertscore",)))
    return out


def with_bert(pairs: Sequence[FunctionPair], reports: Sequence[ScoreReport]) -> list[FunctionPair]:
    """New pairs carrying the F1/F3 of ``reports`` (one per paired function, in order)."""
    answers = iter(reports)
    out = []
    for pair in pairs:
        if pair.region is None:
            out.append(pair)
            continue
        bert = next(answers).codebertscore
        out.append(replace(pair, f1=bert.f1 if bert else None, f3=bert.f3 if bert else None))
    return out


def score_functions(request: ScoreRequest, scorer: Scorer) -> list[FunctionPair]:
    """Every top-level candidate function, its reference region and its scores."""
    pairs = codebleu_pairs(request, scorer)  # pairing itself uses CodeBLEU to align unnamed functions
    if "codebertscore" in request.metrics:
        wanted = bert_requests(pairs, request)
        if wanted:
            pairs = with_bert(pairs, scorer.score_many(wanted))
    return pairs


def pair_record(pair: FunctionPair, codebleu_rule: str = "native") -> dict[str, Any]:
    """JSON form of one function's scores (spans are code points into the candidate; CodeBLEU
    under its rule's name, ``vocabulary.codebleu_name``)."""
    region = pair.region
    return {"function": pair.function.name, "line": pair.function.line + 1,
            "start": pair.function.start, "end": pair.function.end, "matched_by": pair.matched_by,
            "reference_index": region.reference_index if region else None,
            "reference_function": region.name if region else None,
            codebleu_name(codebleu_rule): pair.codebleu, "codebertscore_f1": pair.f1, "codebertscore_f3": pair.f3}
