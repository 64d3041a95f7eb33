"""Evaluation-harness integrations: Hugging Face ``evaluate`` modules (``evaluate_module_path``)
and lm-evaluation-harness metrics (``import refscore.harness.lm_eval_metrics`` registers them).
Neither harness is imported until used."""

from __future__ import annotations

from pathlib import Path

EVALUATE_MODULES = ("codebleu", "codebertscore", "combined", "behaviour")


def evaluate_module_path(name: str) -> str:
    """Path of the ``evaluate`` module for ``name`` (codebleu, codebertscore, combined, behaviour), for
    ``evaluate.load(path)``; offline, nothing is fetched from a hub."""
    if name not in EVALUATE_MODULES:
        raise ValueError(f"no evaluate module {name!r}; choose from {', '.join(EVALUATE_MODULES)}")
    # each file has a name of its own (refscore_<name>.py), so it never shadows a package it
    # imports (the codebleu package's module file codebleu.py does: k4black/codebleu issue 38)
    return str(Path(__file__).resolve().parent / "evaluate_modules" / f"refscore_{name}.py")
