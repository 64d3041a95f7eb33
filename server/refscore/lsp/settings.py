"""The ``refscore`` configuration section, mirrored on the server (names match the VS Code extension).

Read through ``workspace/configuration`` (section ``refscore``) when the client supports it, else
from ``initializationOptions.settings``; re-read on ``workspace/didChangeConfiguration``. Unknown
or ill-typed values fall back to the default, with one log line saying which. The settings that
change a number (metrics, weights, model, layer, device, backend, context) are checked by the
settings schema (``settings_schema``), as the command line and the daemon check them.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

from ..settings_schema import (ALL_METRICS, DEFAULT_SETTINGS, ENCODER_NAMES, NO_ENCODER_CHOICE, SETTINGS, EncoderChoice,
                               ScoreSettings, check_metrics, finite_number, shown)
from ..vocabulary import WEAK_TOKEN_THRESHOLD

log = logging.getLogger(__name__)

#: The metrics the editor computes (the schema knows more: chrF, TSED, CrystalBLEU are CLI-only).
METRICS = ALL_METRICS
#: Settings the schema checks: dataclass field (or the encoder choice's) -> schema name.
_SCHEMA = {"codebleu_weights": "weights", "context": "context", **{name: name for name in ENCODER_NAMES}}


@dataclass(frozen=True)
class Settings:
    """Every server setting with its default."""

    metrics: tuple[str, ...] = METRICS
    codebleu_weights: tuple[float, float, float, float] = DEFAULT_SETTINGS.weights
    weak_threshold: float = WEAK_TOKEN_THRESHOLD  # CodeBERTScore similarity below which a token is "weak"
    weak_max_count: int = 5  # at most this many weak-token diagnostics per document
    differences_max_count: int = 3  # at most this many ranked differences as diagnostics
    #: CodeBERTScore's model, layer, device and backend (its IDF is not offered); None: the daemon's
    encoder: EncoderChoice = NO_ENCODER_CHOICE
    debounce_ms: int = 150
    references: Mapping[str, Any] = field(default_factory=dict)  # glob -> path or [paths]
    inlay_hints: bool = False
    insertion_min_chars: int = 80  # a single insertion this long is scored on its own
    context: str | None = None  # natural-language context for CodeBERTScore (pragma wins)
    behaviour: bool = True  # run functions beside their reference functions (trusted workspaces only)

    def score_settings(self, metrics: tuple[str, ...]) -> ScoreSettings:
        """The settings of a request computing ``metrics`` (the editor's own choice of them)."""
        return ScoreSettings(metrics, self.codebleu_weights, encoder=self.encoder)

    @property
    def codebleu_on(self) -> bool:
        return "codebleu" in self.metrics

    @property
    def codebertscore_on(self) -> bool:
        return "codebertscore" in self.metrics


#: (path in the JSON section, dataclass field, converter)
_KEYS: tuple[tuple[str, str], ...] = (
    ("metrics", "metrics"),
    ("codebleu.weights", "codebleu_weights"),
    ("weakTokens.threshold", "weak_threshold"),
    ("weakTokens.maxCount", "weak_max_count"),
    ("differences.maxCount", "differences_max_count"),
    ("model", "model"),
    ("layer", "layer"),
    ("device", "device"),
    ("backend", "backend"),
    ("debounceMs", "debounce_ms"),
    ("references", "references"),
    ("inlayHints.enabled", "inlay_hints"),
    ("insertion.minChars", "insertion_min_chars"),
    ("context", "context"),
    ("behaviour.enabled", "behaviour"),
)


def _lookup(section: Mapping[str, Any], dotted: str) -> Any:
    """``a.b`` from a nested object, or from a flat key ``"a.b"`` (both shapes occur in clients)."""
    if dotted in section:
        return section[dotted]
    value: Any = section
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


class _BadPart(ValueError):
    """A setting rejected for one part of it (one glob's paths): the message shows that part."""

    def __init__(self, message: str, part: Any) -> None:
        super().__init__(message)
        self.part = part


def _convert(name: str, value: Any, default: Any) -> Any:
    if name == "metrics":
        if isinstance(value, (list, tuple)) and not value:
            return ()  # every metric off: the editor shows "no metric enabled"
        wanted = check_metrics(value, METRICS)
        return tuple(m for m in METRICS if m in wanted)
    if name in _SCHEMA:
        return SETTINGS[_SCHEMA[name]].check(value)
    if name == "weak_threshold":
        number = finite_number(value, "a similarity between -1 and 1")
        if not -1.0 <= number <= 1.0:
            raise ValueError("must be a similarity between -1 and 1")
        return number
    if name in ("weak_max_count", "differences_max_count", "debounce_ms", "insertion_min_chars"):
        number = finite_number(value, "a non-negative number")
        if number < 0:
            raise ValueError("must be a non-negative number")
        return min(int(number), 10_000)
    if name == "references":
        return _reference_map(value)
    if name in ("inlay_hints", "behaviour"):
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value
    return type(default)(value) if default is not None else value


def _reference_map(value: Any) -> dict[str, str | list[str]]:
    """``refscore.references`` checked: each glob maps to one path or a list of paths (strings)."""
    if not isinstance(value, Mapping):
        raise ValueError("must map candidate globs to reference paths")
    for glob, target in value.items():
        if isinstance(target, str):
            continue
        if not isinstance(target, (list, tuple)) or not all(isinstance(t, str) for t in target):
            raise _BadPart(f"{str(glob)!r} must map to a reference path or a list of paths", target)
    return {str(glob): target if isinstance(target, str) else list(target) for glob, target in value.items()}


def _plain_groups(section: Mapping[str, Any]) -> list[str]:
    """One message per group of settings given as a plain value (``inlayHints: true`` for
    ``inlayHints.enabled``): ``_lookup`` finds nothing under it, so it would be ignored silently."""
    members: dict[str, list[str]] = {}
    for dotted, _ in _KEYS:
        group, _, member = dotted.partition(".")
        if member:
            members.setdefault(group, []).append(member)
    problems = []
    for group, names in members.items():
        value = section.get(group)
        if value is not None and not isinstance(value, Mapping):
            wanted = ", ".join(f'"{name}"' for name in names)
            problems.append(f"refscore.{group}: must be an object holding {wanted} (not {shown(value)}); "
                            f"using the default{'s' if len(names) > 1 else ''}")
    return problems


def parse_settings(section: Any, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a ``refscore`` section; returns the settings and one message per rejected value."""
    base = base or Settings()
    if not isinstance(section, Mapping):
        return base, [] if section is None else ["refscore settings must be an object; using defaults"]
    defaults = {f.name: getattr(Settings(), f.name) for f in fields(Settings)}
    defaults.update((name, getattr(NO_ENCODER_CHOICE, name)) for name in ENCODER_NAMES)
    changes: dict[str, Any] = {}
    problems = _plain_groups(section)
    for dotted, name in _KEYS:
        value = _lookup(section, dotted)
        if value is None:
            continue
        try:
            changes[name] = _convert(name, value, defaults[name])
        except (TypeError, ValueError) as error:
            bad = error.part if isinstance(error, _BadPart) else value
            problems.append(f"refscore.{dotted}: {error} (not {shown(bad)}); using the default, "
                            f"{json.dumps(defaults[name])}")
    encoder = {name: changes.pop(name) for name in ENCODER_NAMES if name in changes}
    if encoder:
        changes["encoder"] = replace(base.encoder, **encoder)
    return replace(base, **changes), problems
