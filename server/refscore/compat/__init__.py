"""Drop-in replacements for the packages people cite.

* ``calc_codebleu``: the shape and numbers of ``codebleu.calc_codebleu`` (codebleu 0.7.0);
* ``score``: the shape and numbers of ``code_bert_score.score`` (code-bert-score 0.4.1), with the
  package's model for ``lang`` (or its error when that model is not cached); RefScore's embedded
  all-MiniLM-L6-v2 only as ``model_type=EMBEDDED_MODEL``.
"""

from ..embed.registry import EMBEDDED_MODEL_ID as EMBEDDED_MODEL
from .codebleu_api import AVAILABLE_LANGS, calc_codebleu


def __getattr__(name: str):
    # The CodeBERTScore API imports torch; load it only when asked for.
    if name == "score":
        from .bertscore_api import score

        return score
    raise AttributeError(name)


__all__ = ["AVAILABLE_LANGS", "EMBEDDED_MODEL", "calc_codebleu", "score"]
