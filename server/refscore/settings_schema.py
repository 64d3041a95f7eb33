"""The settings that change a number, declared once: metrics, weights, rule, model, layer,
device, backend, idf, context and behaviour's inputs, each with its rule and a sentence saying
what is allowed (``SETTINGS``), and the one frozen object that carries them (``ScoreSettings``,
with the encoder's part as one ``EncoderChoice``; ``ScoreRequest`` carries it).

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
from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, Mapping, Sequence

from .metrics.codebleu import DEFAULT_WEIGHTS
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


def idf_lacks_references(settings: "ScoreSettings", distinct_references: int) -> bool:
    """Whether IDF from the references is asked for CodeBERTScore with fewer than two distinct ones."""
    return (settings.encoder.idf == IDF_FROM_REFERENCES and "codebertscore" in settings.metrics
            and distinct_references < 2)


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


def check_inputs(value: Any) -> str | None:
    """Behaviour's inputs, the text of an inputs file (a string); null: none."""
    if value is not None and not isinstance(value, str):
        raise SettingError("must be a string (an inputs file's text) or null")
    return value


def check_flag(value: Any) -> bool:
    """true or false (a JSON boolean, or the command line's switch)."""
    if not isinstance(value, bool):
        raise SettingError("must be true or false")
    return value


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
    Setting("inputs", "--inputs", "inputs", "behaviour's inputs, one call per line", check_inputs),
    Setting("unsandboxed", "--unsandboxed", "unsandboxed", "true or false", check_flag),
)}


def finite_number(value: Any, what: str) -> float:
    """A finite JSON number (not a boolean, not a string); SettingError saying ``what`` it must be."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SettingError(f"must be {what}")
    return float(value)


@dataclass(frozen=True)
class EncoderChoice:
    """Which CodeBERTScore encoder scores, as a request asks for it; None: the default (the
    engine's start-up choice, else the per-language model at its own layer, the best device,
    the process's backend, no IDF weighting). ``embed.models.scorer_for`` resolves it."""

    model: str | None = None  # a Hugging Face id or a local folder
    layer: int | None = None  # a hidden layer number (0: the embeddings)
    device: str | None = None  # cpu, cuda, cuda:N or mps
    idf: str | None = None  # an IDF weights file (an absolute path) or "references"
    backend: str | None = None  # one of BACKENDS

    def over(self, defaults: "EncoderChoice") -> "EncoderChoice":
        """This choice with ``defaults`` where it leaves one unset (an engine's start-up choice)."""
        if defaults == NO_ENCODER_CHOICE:
            return self
        return EncoderChoice(self.model or defaults.model,
                             defaults.layer if self.layer is None else self.layer,
                             self.device or defaults.device, self.idf or defaults.idf,
                             self.backend or defaults.backend)


NO_ENCODER_CHOICE = EncoderChoice()
#: The ``EncoderChoice`` part of the flat names (a request's JSON, ``SETTINGS``).
ENCODER_NAMES = tuple(f.name for f in fields(EncoderChoice))


@dataclass(frozen=True)
class ScoreSettings:
    """Everything besides the texts that changes a number, one frozen object with its defaults
    (the rules are ``SETTINGS``'; ``checked`` applies them). Its flat form (``flat``) is what the
    daemon's requests and the front ends name: one key per ``SETTINGS`` entry but ``context``,
    which a request carries with its texts."""

    metrics: tuple[str, ...] = ALL_METRICS
    weights: Weights = DEFAULT_WEIGHTS
    codebleu_rule: str = "native"  # one of CODEBLEU_RULES; compat scores carry no explanations
    encoder: EncoderChoice = field(default=NO_ENCODER_CHOICE)
    inputs: str | None = None  # behaviour: a teacher's inputs file, its text
    unsandboxed: bool = False  # behaviour: run candidates without a sandbox (a warning each time)

    def __post_init__(self) -> None:
        """One metric given as a string means that one; lists become tuples."""
        if isinstance(self.metrics, str):
            object.__setattr__(self, "metrics", (self.metrics,))
        for name in ("metrics", "weights"):
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))

    def flat(self) -> dict[str, Any]:
        """JSON-ready, one key per setting (the encoder's spread out)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "encoder"}
        out.update((name, getattr(self.encoder, name)) for name in ENCODER_NAMES)
        return out

    def changed(self, **flat: Any) -> "ScoreSettings":
        """These settings with some changed, named flat (``changed(layer=3, metrics=...)``)."""
        if not flat:
            return self
        encoder = {k: flat.pop(k) for k in ENCODER_NAMES if k in flat}
        unknown = flat.keys() - _OWN_NAMES
        if unknown:
            raise TypeError(f"not a setting: {', '.join(sorted(unknown))}")
        if encoder:
            flat["encoder"] = replace(self.encoder, **encoder)
        return replace(self, **flat)

    @classmethod
    def from_flat(cls, values: Mapping[str, Any]) -> "ScoreSettings":
        """The settings a flat mapping names (unchecked; keys it lacks keep their defaults,
        other keys are ignored)."""
        names = {f.name for f in fields(cls)} - {"encoder"} | set(ENCODER_NAMES)
        return DEFAULT_SETTINGS.changed(**{k: v for k, v in values.items() if k in names})

    @classmethod
    def checked(cls, values: Mapping[str, Any], *, supported: Sequence[str] = KNOWN_METRICS,
                text: bool = False, absolute_idf: bool = False) -> "ScoreSettings":
        """The settings a flat mapping names, each checked by its ``SETTINGS`` rule (None: the
        default; ``text``: command-line text; ``supported``: the front end's metrics;
        ``absolute_idf``: an IDF path must be absolute). A value refused raises ``BadSetting``."""
        out = {name: check_setting(name, value, supported=supported, text=text, absolute_idf=absolute_idf)
               for name, value in values.items() if name != "context" and value is not None}
        return DEFAULT_SETTINGS.changed(**out)


DEFAULT_SETTINGS = ScoreSettings()
#: the names ``ScoreSettings.changed`` takes besides the encoder's (``encoder`` itself is not one)
_OWN_NAMES = frozenset(f.name for f in fields(ScoreSettings)) - {"encoder"}


class CarriesSettings:
    """What carries a ``ScoreSettings`` as its ``settings`` (a request, a grade's settings) reads
    through to it: ``request.metrics`` is ``request.settings.metrics``."""

    settings: ScoreSettings  # (the carrier's dataclass field; a plain base class declares no field)

    @property
    def metrics(self) -> tuple[str, ...]:
        return self.settings.metrics

    @property
    def weights(self) -> Weights:
        return self.settings.weights

    @property
    def codebleu_rule(self) -> str:
        return self.settings.codebleu_rule

    @property
    def encoder(self) -> EncoderChoice:
        """The CodeBERTScore encoder asked for."""
        return self.settings.encoder

    @property
    def inputs(self) -> str | None:
        return self.settings.inputs

    @property
    def unsandboxed(self) -> bool:
        return self.settings.unsandboxed


def check_setting(name: str, value: Any, *, supported: Sequence[str] = KNOWN_METRICS, text: bool = False,
                  absolute_idf: bool = False) -> Any:
    """``value`` of the setting ``name`` checked by its rule (``ScoreSettings.checked`` says what
    the options mean); a value refused raises ``BadSetting``."""
    try:
        if name == "metrics":
            return check_metrics(value, supported) if value or text else ()
        if name == "idf":
            return check_idf(value, absolute=absolute_idf)
        return SETTINGS[name].from_text(value) if text and isinstance(value, str) else SETTINGS[name].check(value)
    except SettingError as error:
        raise BadSetting(name, value, str(error)) from None


class BadSetting(SettingError):
    """A value of one setting refused by its rule: ``name`` and ``value`` for the front end's words."""

    def __init__(self, name: str, value: Any, message: str) -> None:
        super().__init__(message)
        self.name, self.value = name, value
