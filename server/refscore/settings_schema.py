"""The settings that change a number, declared once: metrics, weights, rule, model, layer,
device, backend, idf and context, each with its rule and a sentence saying what is allowed.

Every front end checks these through here and only words the error its own way:

* the command line (``commands/options.py``): ``--layer -1: must be ...`` (a usage error, exit 2);
* the language server (``lsp/settings.py``): ``refscore.layer: must be ...; using None``;
* the daemon's requests (``service/requests.py``): ``request.layer must be ...`` (INVALID_PARAMS);
* the encoder (``embed/encoder.py``, ``embed/backends.py``): ``layer 13 is outside 0..12 ...``.

A check takes the value as a front end got it (a command line's text or a JSON value), returns it
normalised (``"ONNX-int8"`` -> ``"onnx-int8"``, ``"codebleu, chrf"`` -> ``("codebleu", "chrf")``)
and raises ``SettingError`` (a ``ValueError``) whose message says what is allowed.
What needs this machine (is CUDA there, does the model folder exist, is the IDF file a table) is
checked by the front ends that can look (``commands/options.py``, ``commands/bert_options.py``).
"""

from __future__ import annotations

import math
import numbers
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from .metrics.weights import USAGE as WEIGHTS_USAGE
from .metrics.weights import Weights, check_weights

#: Metrics every engine computes (the daemon's and the editor's).
ALL_METRICS = ("codebleu", "codebertscore")
#: Metrics computed on request only (``--metrics chrf,tsed``): text metrics of the CPU stage
#: (``scoring.pipeline.cpu_metrics``), wherever that stage runs (this process or the daemon).
TEXT_METRICS = ("chrf", "tsed")
#: Metrics of a whole run (CrystalBLEU's ignored n-grams come from the run's texts): ``grade`` only.
CORPUS_METRICS = ("crystalbleu",)
#: The candidate run beside the reference in a sandbox (``behaviour``): where a sandbox is available
#: it runs by default in ``score``, ``grade`` and the API (``DEFAULT_METRICS``).
BEHAVIOUR_METRICS = ("behaviour",)
DEFAULT_METRICS = (*ALL_METRICS, *BEHAVIOUR_METRICS)
KNOWN_METRICS = (*ALL_METRICS, *TEXT_METRICS, *CORPUS_METRICS, *BEHAVIOUR_METRICS)
#: CodeBLEU rules: ours (``native``) or the ``codebleu`` package's numbers (``compat``); see
#: docs/codebleu.md for where they differ.
CODEBLEU_RULES = ("native", "compat")
#: CodeBERTScore encoder engines (``embed.backends`` says what each is).
BACKENDS = ("auto", "torch", "onnx", "onnx-int8")
#: ``cpu``, ``mps``, ``cuda`` or ``cuda:N``.
DEVICE_PATTERN = re.compile(r"(cpu|mps|cuda)(:(\d+))?")
DEVICES = "cpu, cuda, cuda:N or mps"
#: The ``idf`` value that computes IDF weights from the references themselves.
IDF_FROM_REFERENCES = "references"
#: Why IDF from the references needs two of them (each front end adds how to fix it).
IDF_ONE_REFERENCE = ("weighs tokens by how few references hold them; with one reference every token weighs 0 "
                     "and recall is undefined")


def idf_lacks_references(idf: object, metrics: Iterable[str], distinct_references: int) -> bool:
    """Whether IDF from the references is asked for CodeBERTScore with fewer than two distinct ones."""
    return idf == IDF_FROM_REFERENCES and "codebertscore" in metrics and distinct_references < 2


class SettingError(ValueError):
    """A value a setting does not allow; the message says what is allowed (front ends show the
    value itself with ``shown``)."""


def shown(value: Any) -> str:
    """A value as an error message quotes it (at most 40 characters)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _text_or_none(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise SettingError(f"must be {what} or null")
    return value if value.strip() else None


def check_metrics(value: Any, supported: Sequence[str] = KNOWN_METRICS) -> tuple[str, ...]:
    """Metric names, each once, in the order given: ``"codebleu,chrf"`` or ``["codebleu"]``;
    at least one; case and spaces ignored; each one this front end ``supported``."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
        raise SettingError(f"must be metric names from {', '.join(supported)}")
    metrics = tuple(dict.fromkeys(m.strip().lower() for m in items if m.strip()))
    unknown = [m for m in metrics if m not in supported]
    if unknown:
        raise SettingError(f"unknown metric {unknown[0]!r}; choose from {', '.join(supported)}")
    if not metrics:
        raise SettingError(f"names no metric; choose one or more of {', '.join(supported)}")
    return metrics


def check_weights_setting(value: Any, *, text: bool = False) -> Weights:
    """CodeBLEU weights: a list of four JSON numbers, or with ``text`` the command line's ``a,b,c,d``."""
    if isinstance(value, str) and text:
        parts: list[Any] = [part.strip() for part in value.split(",")]
    elif isinstance(value, (list, tuple)):
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
            raise SettingError(f"expected {WEIGHTS_USAGE}")
        parts = list(value)
    else:
        raise SettingError(f"expected {WEIGHTS_USAGE}" + ("" if text else ", in a list"))
    try:
        return check_weights(parts)
    except ValueError as error:
        raise SettingError(str(error)) from None


def check_rule(value: Any) -> str:
    """``native`` or ``compat``."""
    rule = value.strip().lower() if isinstance(value, str) else value
    if rule not in CODEBLEU_RULES:
        raise SettingError(f"must be one of {', '.join(CODEBLEU_RULES)}")
    return rule


def check_model(value: Any) -> str | None:
    """A Hugging Face id or a local folder (a string); blank or null: the per-language default."""
    return _text_or_none(value, "a model id or folder")


def check_layer(value: Any) -> int | None:
    """A hidden layer number: 0 (the embeddings) or more; null: the model's default."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise SettingError("must be a hidden layer number (0 or more)")
    return int(value)  # numpy's integers too (a layer from a grid in the Python API)


def check_layer_range(layer: int, total: int, model: str) -> int:
    """``layer`` when the model has it (0..``total``); else SettingError naming the range."""
    if not 0 <= layer <= total:
        raise SettingError(f"{model} has hidden layers 0 to {total} (0 is the embeddings)")
    return layer


def check_device(value: Any) -> str | None:
    """``cpu``, ``cuda``, ``cuda:N`` or ``mps``; null: the scorer's default (a GPU when there is one)."""
    if value is None:
        return None
    device = value.strip().lower() if isinstance(value, str) else ""
    if DEVICE_PATTERN.fullmatch(device) is None:
        raise SettingError(f"choose {DEVICES}")
    return device


def check_backend(value: Any) -> str | None:
    """One of ``BACKENDS`` (any case); null: the process default."""
    if value is None:
        return None
    choice = value.strip().lower() if isinstance(value, str) else value
    if choice not in BACKENDS:
        raise SettingError(f"must be one of {', '.join(BACKENDS)}")
    return choice


def check_idf(value: Any, *, absolute: bool = False) -> str | None:
    """An IDF weights file or ``references``; ``absolute``: the path must be absolute (requests
    travel to a daemon with another working folder)."""
    idf = _text_or_none(value, f'an IDF file path or "{IDF_FROM_REFERENCES}"')
    if idf is None or idf == IDF_FROM_REFERENCES:
        return idf
    if absolute and not os.path.isabs(idf):
        raise SettingError(f'must be an absolute file path, "{IDF_FROM_REFERENCES}" or null')
    return idf


def check_context(value: Any) -> str | None:
    """The task description given to CodeBERTScore (a string); blank or null: none."""
    return _text_or_none(value, "a string")


@dataclass(frozen=True)
class Setting:
    """One setting: its request field, command-line flag, editor key and rule."""

    name: str  # the ScoreRequest / daemon request field
    flag: str  # the command-line option
    key: str  # the editor setting (``refscore.<key>``)
    allowed: str  # what is allowed, in words (docs and help)
    check: Callable[[Any], Any]  # a JSON value (the editor's settings, the daemon's requests)
    parse: Callable[[str], Any] | None = None  # the command line's text (default: ``check``)

    def from_text(self, text: str) -> Any:
        """The value of a command-line option's text."""
        return (self.parse or self.check)(text)


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("metrics", "--metrics", "metrics", f"metric names from {', '.join(KNOWN_METRICS)}", check_metrics),
    Setting("weights", "--weights", "codebleu.weights", WEIGHTS_USAGE, check_weights_setting,
            lambda text: check_weights_setting(text, text=True)),
    Setting("codebleu_rule", "--codebleu-rule", "codebleu.rule", " or ".join(CODEBLEU_RULES), check_rule),
    Setting("model", "--model", "model", "a Hugging Face id in the local cache or a local folder", check_model),
    Setting("layer", "--layer", "layer", "a hidden layer number, 0 (the embeddings) or more", check_layer),
    Setting("device", "--device", "device", DEVICES, check_device),
    Setting("backend", "--backend", "backend", ", ".join(BACKENDS), check_backend),
    Setting("idf", "--idf", "idf", f'an IDF weights file (JSON) or "{IDF_FROM_REFERENCES}"', check_idf),
    Setting("context", "--context", "context", "a task description", check_context),
)}


def finite_number(value: Any, what: str) -> float:
    """A finite JSON number (not a boolean, not a string); SettingError saying ``what`` it must be."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SettingError(f"must be {what}")
    return float(value)
