"""Task helpers for refscore_example.yaml; importing refscore.harness.lm_eval_metrics registers
refscore_codebleu, refscore_codebertscore and refscore_combined in the harness's registry."""

import refscore.harness.lm_eval_metrics  # noqa: F401 - registers the metrics


def doc_to_text(doc: dict) -> str:
    """The prompt: the signature and docstring; the model writes the body."""
    return doc["prompt"]
