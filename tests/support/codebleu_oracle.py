"""The parity oracle: the installed `codebleu` 0.7.0 package, patched for deterministic order.

The package deduplicates lists of variable names with ``list(set(x))``, which makes its dataflow
score depend on PYTHONHASHSEED. The oracle loads a private copy of the installed package in which
every such ``list(set(x))`` reads ``list(dict.fromkeys(x))``; the sorted integer dedups
(``sorted(list(set(x)))``) stay as they are. Nothing of the package is committed to this project:
the copy is made at test time from the installed files.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from types import ModuleType

_UNSORTED_SET_DEDUP = re.compile(r"(?<!sorted\()list\(set\(")
PATCHED_NAME = "codebleu_ordered"


def patch_source(text: str) -> str:
    """Replace each unsorted ``list(set(`` with ``list(dict.fromkeys(``."""
    return _UNSORTED_SET_DEDUP.sub("list(dict.fromkeys(", text)


@lru_cache(maxsize=1)
def load() -> ModuleType:
    """Import the patched copy of codebleu as ``codebleu_ordered`` and return its calc module."""
    spec = importlib.util.find_spec("codebleu")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("codebleu==0.7.0 is not installed (scripts/setup.sh installs it)")
    source_dir = Path(list(spec.submodule_search_locations)[0])
    target_root = Path(tempfile.mkdtemp(prefix="codebleu-oracle-"))
    target = target_root / PATCHED_NAME
    shutil.copytree(source_dir, target, ignore=shutil.ignore_patterns("__pycache__"))
    for py in target.rglob("*.py"):
        py.write_text(patch_source(py.read_text(encoding="utf-8")), encoding="utf-8")
    sys.path.insert(0, str(target_root))
    try:
        return importlib.import_module(f"{PATCHED_NAME}.codebleu")
    finally:
        sys.path.remove(str(target_root))


def calc_codebleu(references, predictions, lang, weights=(0.25, 0.25, 0.25, 0.25), tokenizer=None):
    """The patched package's calc_codebleu."""
    return load().calc_codebleu(references, predictions, lang, weights=weights, tokenizer=tokenizer)


def dataflow_module() -> ModuleType:
    """The patched package's dataflow_match module (get_data_flow, normalize_dataflow, ...)."""
    load()
    return importlib.import_module(f"{PATCHED_NAME}.dataflow_match")
