"""Drop-in replacement for ``code_bert_score.score`` (code-bert-score 0.4.1).

Same arguments, same ``(P, R, F1, F3)`` float32 tensors, same numbers (within 1e-5 on CPU), but:

* models load from local files only (a folder, or a Hugging Face id already in the local cache);
  an explicit ``model_type`` that is not local raises ``ModelNotAvailableError``; with only
  ``lang`` given (read as the package reads it: ``lang="py"`` means codebert-base-mlm) the
  package's model is used, and when it is not cached the call fails as the package fails offline
  (``PackageModelNotCachedError``, an ``OSError``), never switching models; the embedded
  all-MiniLM-L6-v2 (layer 6) only when asked for: ``model_type=EMBEDDED_MODEL``;
* ``sources`` (the natural-language context) works with every fast tokenizer (WordPiece too) and
  may be combined with several references per candidate;
* the loaded model and the embeddings are kept between calls (same model, layer, device).

The numbers come from RefScore's one CodeBERTScore path (``embed.bertscorer.BertScorer``), with
the package's batch effects (windows planned per batch, padding in each maximum, where the context
ends) as its ``BatchRule``, ``compat.package_rule.PackageRule``.

Kept from the package: IDF over the given references, per-component maximum over several
references, baseline rescaling (a missing baseline file means baseline 0.5 for every
component), NaN where the package gives NaN (a zero IDF weight sum), 0 for empty texts, an
empty ``idf`` dict meaning no IDF, and a KeyError (``MissingIdfWeightError``) for a plain ``idf``
dict without a weight for a token of the texts.
"""

from __future__ import annotations

import numbers
import os
import sys
from typing import Any, Mapping, Sequence, Union

from ..errors import ScoreInputError, refuse_lone_surrogates, refuse_one_string
from ..embed import torch_module
from ..embed.bertscorer import BertScorer, IdfSetting, ScorePair
from ..embed.encoder import LayerRangeError, encoder_for
from ..embed.files import load_baseline
from ..embed.registry import (EMBEDDED_MODEL_ID, ModelNotAvailableError, ModelSpec, known_layer, local_model_path,
                              paper_model, resolve_model)
from ..metrics.codebertscore import IdfTable
from .package_rule import PackageRule

__all__ = ["EMBEDDED_MODEL", "PackageModelNotCachedError", "score"]

#: ``model_type`` that asks for RefScore's embedded all-MiniLM-L6-v2 (layer 6 unless ``num_layers``).
EMBEDDED_MODEL = EMBEDDED_MODEL_ID  # also refscore.compat.EMBEDDED_MODEL

#: code-bert-score's layer for a model it does not know.
PACKAGE_DEFAULT_LAYER = 10
#: code-bert-score's ``lang2model`` keys (looked up lower-cased) and the language each names;
#: any other ``lang`` means codebert-base-mlm there (``lang="py"`` too).
PACKAGE_LANGS = {"python": "python", "javascript": "javascript", "js": "javascript", "c": "c", "cpp": "cpp",
                 "c++": "cpp", "java": "java"}


class PackageModelNotCachedError(ModelNotAvailableError, OSError):
    """``lang`` names a model of the package's that is not in the local Hugging Face cache; offline,
    code_bert_score fails there too, with an ``OSError`` from transformers (caught by the same
    ``except OSError``)."""


def _spec(lang: str | None, model_type: str | None, num_layers: int | None) -> ModelSpec:
    if model_type is not None:
        model_type = str(model_type)
        layer = num_layers if num_layers is not None else (known_layer(model_type) or PACKAGE_DEFAULT_LAYER)
        return resolve_model(model=model_type, layer=layer)
    paper_id, paper_layer = paper_model(PACKAGE_LANGS.get((lang or "").lower()))
    path = local_model_path(paper_id)
    if path is None:
        raise PackageModelNotCachedError(
            f"{paper_id}, code_bert_score's model for lang={lang!r}, is not in the local Hugging Face cache, "
            f"and RefScore never downloads models (offline, the package fails here too): download it once "
            f"with `huggingface-cli download {paper_id}`, or ask for RefScore's embedded model with "
            "model_type=refscore.compat.EMBEDDED_MODEL (all-MiniLM-L6-v2, layer 6)")
    return ModelSpec(paper_id, path, num_layers if num_layers is not None else paper_layer)


def _baseline(path: str | None, layer: int) -> tuple[float, ...]:
    """The package ships no baseline files: without a readable file every baseline is 0.5."""
    if path is None or not os.path.isfile(path):
        return (0.5, 0.5, 0.5, 0.5)
    return load_baseline(path, layer)


def score(cands: Sequence[str], refs: Sequence[Union[str, Sequence[str]]], lang: str | None = None,
          model_type: str | None = None, num_layers: int | None = None, verbose: bool = False,
          idf: Union[bool, Mapping[int, float]] = False, device: str | None = None, batch_size: int = 64,
          nthreads: int = 4, all_layers: bool = False, return_hash: bool = False,
          rescale_with_baseline: bool = False, baseline_path: str | None = None, no_punc: bool = True,
          sources: Sequence[str] | None = None, chunk_overlap: float = 0.5) -> Any:
    """CodeBERTScore of each candidate against its reference(s): ``(P, R, F1, F3)`` tensors, or
    ``((P, R, F1, F3), hash)`` with ``return_hash`` (the package's hash string).

    The package's parameters, in its order. ``refs`` holds one string per candidate or one list
    of strings per candidate (the best value of each component is kept). ``idf`` is False, True
    (IDF from the references) or a ``{token_id: weight}`` dict. ``sources`` holds one context per
    candidate. ``verbose`` and ``nthreads`` change no number and are ignored; ``all_layers=True``,
    ``no_punc=False`` and a ``chunk_overlap`` other than 0.5 would change the numbers or their
    shape and are refused (NotImplementedError), never silently ignored.
    """
    _refuse_unsupported(all_layers, no_punc, chunk_overlap)
    num_layers = _check_num_layers(num_layers)
    out = _score(cands, refs, lang, model_type, num_layers, idf, sources, batch_size, device,
                 rescale_with_baseline, baseline_path)
    if return_hash:
        spec = _spec(lang, model_type, num_layers)  # the model that made the numbers
        model = str(model_type) if model_type is not None else spec.model_id
        return out, package_hash(model, spec.layer, idf, rescale_with_baseline, baseline_path is not None)
    return out


def _refuse_unsupported(all_layers: bool, no_punc: bool, chunk_overlap: float) -> None:
    if all_layers:
        raise NotImplementedError("refscore.compat.score: all_layers=True is not supported (score one "
                                  "layer at a time with num_layers=N)")
    if not no_punc:
        raise NotImplementedError("refscore.compat.score: no_punc=False is not supported (punctuation-only "
                                  "tokens are always left out, as by the package's default)")
    if chunk_overlap != 0.5:
        raise NotImplementedError(f"refscore.compat.score: chunk_overlap={chunk_overlap!r} is not supported "
                                  "(long inputs use the package's default overlap, 0.5)")


def _check_num_layers(num_layers: Any) -> int | None:
    """``num_layers`` as an int (any integer type, numpy's too, as the package takes it). The
    package asserts a layer the model has; a negative or non-integer one is refused here
    (``ScoreInputError``, an AssertionError), never read as Python's last-layer index."""
    if num_layers is None:
        return None
    if isinstance(num_layers, bool) or not isinstance(num_layers, numbers.Integral) or num_layers < 0:
        raise ScoreInputError(f"Invalid num_layers: {num_layers!r}; num_layers should be a hidden layer "
                              "number from 0 (the embeddings) to the model's number of layers")
    return int(num_layers)


def _check_texts(cands: Sequence[str], groups: Sequence[Sequence[str]], sources: Sequence[str] | None) -> None:
    """Each candidate has a reference; no text holds a lone surrogate (``ScoreInputError``)."""
    for index, group in enumerate(groups):
        if not group:
            raise ScoreInputError(f"candidate {index} has no reference: give it one or more reference strings")
    named = [(f"candidate {i}", t) for i, t in enumerate(cands)]
    named += [(f"a reference of candidate {i}", t) for i, group in enumerate(groups) for t in group]
    named += [(f"source {i}", t) for i, t in enumerate(sources or ())]
    for what, text in named:
        if not isinstance(text, str):  # a TypeError, as in the package
            raise TypeError(f"{what}: expected a string, got {type(text).__name__}")
        refuse_lone_surrogates(text, what)


def package_hash(model: str, layer: int, idf: Any, rescaled: bool, custom_baseline: bool) -> str:
    """code-bert-score's ``get_hash``: ``MODEL_LLAYER_idf|_no-idf[-rescaled|-custom-rescaled]``."""
    text = f"{model}_L{layer}{'_idf' if idf else '_no-idf'}"
    if rescaled:
        text += "-custom-rescaled" if custom_baseline else "-rescaled"
    return text


def _score(cands: Sequence[str], refs: Sequence[Union[str, Sequence[str]]], lang: str | None,
           model_type: str | None, num_layers: int | None, idf: Union[bool, Mapping[int, float]],
           sources: Sequence[str] | None, batch_size: int, device: str | None, rescale_with_baseline: bool,
           baseline_path: str | None) -> tuple[Any, Any, Any, Any]:
    torch = torch_module()
    refuse_one_string("candidate", cands=cands, refs=refs)
    refuse_one_string("candidate", sources=sources)
    if len(cands) != len(refs):
        raise ScoreInputError("Different number of candidates and references")
    if lang is None and model_type is None:
        raise ScoreInputError("Either lang or model_type should be specified")
    if rescale_with_baseline and lang is None:
        raise ScoreInputError("Need to specify Language when rescaling with baseline")
    if sources is not None and len(sources) != len(cands):
        raise ScoreInputError("Different number of candidates and sources")
    groups = [[r] if isinstance(r, str) else list(r) for r in refs]
    _check_texts(cands, groups, sources)
    spec = _spec(lang, model_type, num_layers)
    try:
        encoder = encoder_for(spec, device=device, half=False)
    except LayerRangeError as error:
        raise ScoreInputError(f"Invalid num_layers: {error}") from None

    if idf and isinstance(idf, Mapping):  # an empty dict is no IDF (the package tests ``not idf`` first)
        table: IdfSetting = IdfTable.from_mapping(idf)
        rule = PackageRule(batch_size, sources is not None, idf)
    else:
        table, rule = ("references" if idf else None), PackageRule(batch_size, sources is not None)
    baseline = _baseline(baseline_path, encoder.layer) if rescale_with_baseline else None
    scorer = BertScorer(encoder, idf=table, baseline=baseline, batch_size=batch_size, max_chars=sys.maxsize,
                        rule=rule)
    contexts = list(sources) if sources is not None else [None] * len(cands)
    pairs = [ScorePair(cand, group, None, ctx, alignments=False) for cand, group, ctx in zip(cands, groups, contexts)]
    rows = [(r.precision, r.recall, r.f1, r.f3) for r in scorer.score_batch(pairs)]
    out = torch.tensor(rows, dtype=torch.float64).to(torch.float32).reshape(len(groups), 4)
    return out[:, 0], out[:, 1], out[:, 2], out[:, 3]
