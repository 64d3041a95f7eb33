"""Shared helpers for the CodeBERTScore tests and benchmark (no network, ever).

* ``load_oracle()`` imports the installed code-bert-score 0.4.1 (a tiny ``pandas`` stand-in is
  registered when pandas is missing: the package only needs ``read_csv(...).iloc[i].to_numpy()``).
* ``tiny_roberta(folder, ...)`` builds a RoBERTa with random weights (fixed seed) and a byte-level
  BPE tokenizer trained with ``tokenizers`` on Python files of the installed packages, so the
  CodeBERT code path (``<s>``, ``</s>``, ``Ġ``) runs offline.
* ``humaneval_pairs(n)`` reads pairs from /work/shared/data (never copied into the repository);
  ``parity_pairs()`` is the parity corpus: 200 pairs over four languages (empty without the data).
"""

from __future__ import annotations

import glob
import gzip
import importlib.machinery
import json
import os
import sys
import sysconfig
import types
from functools import lru_cache
from pathlib import Path

from refscore.eval.data import default_data_dir

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

try:  # the tests run from a checkout too (before `pip install -e .`)
    import refscore  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

HUMANEVAL_DIR = Path(os.environ.get("REFSCORE_HUMANEVAL_DIR", default_data_dir() / "humaneval"))


class _Row:
    def __init__(self, values: list[float]) -> None:
        self._values = values

    def to_numpy(self):
        import numpy as np

        return np.asarray(self._values, dtype=np.float64)


class _Frame:
    """Just enough of a pandas DataFrame for code-bert-score's baseline reading."""

    def __init__(self, rows: list[list[float]]) -> None:
        self._rows = rows
        frame = self

        class _ILoc:
            def __getitem__(self, i: int) -> _Row:
                return _Row(frame._rows[i])

        self.iloc = _ILoc()

    def to_numpy(self):
        import numpy as np

        return np.asarray(self._rows, dtype=np.float64)


def _read_csv(path: str) -> _Frame:
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.reader(fh)][1:]
    return _Frame([[float(v) for v in r] for r in rows if r])


def _install_pandas_standin() -> None:
    try:
        import pandas  # noqa: F401
        return
    except ImportError:
        pass
    mod = types.ModuleType("pandas")
    mod.__spec__ = importlib.machinery.ModuleSpec("pandas", None)
    mod.read_csv = _read_csv  # type: ignore[attr-defined]
    sys.modules["pandas"] = mod


@lru_cache(maxsize=1)
def load_oracle():
    """The installed ``code_bert_score`` package (the parity oracle)."""
    _install_pandas_standin()
    import code_bert_score

    return code_bert_score


def minilm_path() -> str:
    """Folder of the embedded all-MiniLM-L6-v2."""
    from refscore.embed.registry import embedded_model_path

    return embedded_model_path()


def _training_files() -> list[str]:
    site = sysconfig.get_paths()["purelib"]
    files: list[str] = []
    for pkg in ("code_bert_score", "codebleu", "tqdm", "tokenizers"):
        files.extend(sorted(glob.glob(os.path.join(site, pkg, "*.py"))))
    return files


def tiny_roberta(folder: str | Path, *, hidden: int = 64, layers: int = 2, heads: int = 4,
                 intermediate: int = 128, vocab_size: int = 2000, seed: int = 0) -> str:
    """Write a random-weight RoBERTa and a trained byte-level BPE tokenizer to ``folder``."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "config.json").is_file() and (folder / "model.safetensors").is_file():
        return str(folder)
    bpe = ByteLevelBPETokenizer()
    bpe.train(_training_files(), vocab_size=vocab_size, min_frequency=2, show_progress=False,
              special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe.save_model(str(folder))
    tok = RobertaTokenizer(vocab=str(folder / "vocab.json"), merges=str(folder / "merges.txt"),
                           model_max_length=512, clean_up_tokenization_spaces=False)
    tok.save_pretrained(str(folder))
    torch.manual_seed(seed)
    config = RobertaConfig(vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=layers,
                           num_attention_heads=heads, intermediate_size=intermediate,
                           max_position_embeddings=514, type_vocab_size=1, pad_token_id=1,
                           bos_token_id=0, eos_token_id=2)
    RobertaModel(config).eval().save_pretrained(str(folder))
    return str(folder)


def humaneval_pairs(n: int, language: str = "python", per_task: int | None = None,
                    shortest_of: int | None = None) -> list[dict]:
    """First ``n`` records (hyp, ref, nl, task_id) of a HumanEval file; ``per_task`` caps the
    completions taken per task; ``shortest_of`` reads that many records and keeps the ``n`` with
    the shortest hyp + ref (file order kept). Empty when the data is not on this machine."""
    if shortest_of is not None:
        pool = humaneval_pairs(shortest_of, language, per_task)
        keep = sorted(range(len(pool)), key=lambda i: len(pool[i]["hyp"]) + len(pool[i]["ref"]))[:n]
        return [pool[i] for i in sorted(keep)]
    path = HUMANEVAL_DIR / f"{language}.jsonl.gz"
    if not path.is_file():
        return []
    out: list[dict] = []
    taken: dict[object, int] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if per_task is not None:
                if taken.get(rec["task_id"], 0) >= per_task:
                    continue
                taken[rec["task_id"]] = taken.get(rec["task_id"], 0) + 1
            out.append(rec)
            if len(out) >= n:
                break
    return out


def parity_pairs() -> list[dict]:
    """The parity corpus: 200 pairs over four languages (50 each, the shortest of 400, at most 3
    completions per task); empty when the HumanEval data is not on this machine."""
    out: list[dict] = []
    for lang in ("python", "java", "js", "cpp"):
        out += humaneval_pairs(50, lang, per_task=3, shortest_of=400)
    return out if len(out) >= 200 else []
