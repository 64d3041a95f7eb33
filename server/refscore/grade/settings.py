"""What decides a grade's scores besides the texts, and the request every engine sends for an item."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from .. import __version__
from ..scoring.report import KNOWN_METRICS, ScoreRequest
from ..scoring.requests import build_request
from ..settings_schema import DEFAULT_SETTINGS, CarriesSettings, EncoderChoice, ScoreSettings
from ..vocabulary import codebleu_name
from .items import GradeItem


#: Items per scorer call on a CPU, and when CodeBERTScore runs on a GPU (``--batch-size`` unset).
CPU_BATCH = 32
GPU_BATCH = 1024


@dataclass(frozen=True, init=False)
class GradeSettings(CarriesSettings):
    """Everything besides the texts that decides a score (part of every block's key): the
    requests' ``settings`` and the grade's own. ``GradeSettings(metrics=..., device=...)`` names
    request settings flat, over ``settings`` (``ScoreSettings.changed``); ``grade.metrics`` reads
    ``grade.settings.metrics`` (``CarriesSettings``)."""

    settings: ScoreSettings = DEFAULT_SETTINGS
    batch_size: int | None = None  # None: ``scoring_batch`` picks one for the device
    scorer_tag: str = "model=default|layer=default"  # see ``scorer_tag``; the backend only when approximate
    per_function: bool = False  # also score each top-level function (``functions`` in the rows)
    explain: bool = True  # token alignments and CodeBLEU explanations (only the detailed HTML page shows them)

    def __init__(self, settings: ScoreSettings = DEFAULT_SETTINGS, *, batch_size: int | None = None,
                 scorer_tag: str = "model=default|layer=default", per_function: bool = False, explain: bool = True,
                 **flat: Any) -> None:
        put = object.__setattr__
        put(self, "settings", settings.changed(**flat))
        put(self, "batch_size", batch_size)
        put(self, "scorer_tag", scorer_tag)
        put(self, "per_function", per_function)
        put(self, "explain", explain)

    @property
    def device(self) -> str | None:
        """The run's device (a GPU run takes larger batches: ``scoring_batch``)."""
        return self.settings.encoder.device

    def scoring_batch(self, encoder_here: bool = True) -> int:
        """Items per scorer call: ``batch_size`` when given, else ``GPU_BATCH`` when CodeBERTScore
        runs on CUDA in this process (``encoder_here``: not a daemon's client, not Ray's CPU
        stage), as small calls would leave the accelerator idle between them; else ``CPU_BATCH``
        (progress and Ctrl-C stay fine-grained; larger batches save little on a CPU, where the
        encoder's arithmetic is the cost)."""
        if self.batch_size is not None:
            return self.batch_size
        if not encoder_here or "codebertscore" not in self.metrics:
            return CPU_BATCH
        from ..embed.device import select_device

        return GPU_BATCH if select_device(self.device).startswith("cuda") else CPU_BATCH

    def cache_tag(self) -> str:
        """A stable string of the settings that change scores (not the batch size, nor the order
        of the metrics)."""
        # the metrics in the schema's order: ``chrf,codebleu`` scores what ``codebleu,chrf`` does, and
        # the default order (``codebleu,codebertscore``) keeps the key it always had
        metrics = [m for m in KNOWN_METRICS if m in self.metrics]
        tag: dict[str, Any] = {"v": __version__, "metrics": metrics, "weights": list(self.weights),
                               "scorer": self.scorer_tag}
        if self.codebleu_rule != "native":  # the package's rule: its rows kept ``codebleu`` all along
            tag["codebleu_rule"] = self.codebleu_rule
        elif "codebleu" in self.metrics:
            # a kept row names its CodeBLEU by the rule (``codebleu_native``); native rows kept
            # before that name was given filed the number as ``codebleu`` and are not read back
            tag["codebleu_column"] = codebleu_name(self.codebleu_rule)
        if self.codebleu_rule == "native" and {"codebleu", "codebertscore"} <= set(self.metrics):
            from ..scoring.headline import headline_model

            model = headline_model()
            if model is not None:  # a new fit of the combined number is a new score
                tag["refscore"] = model["digest"]
                if "behaviour" in self.metrics:
                    from ..scoring.headline_behaviour import behaviour_model

                    stacked = behaviour_model()
                    if stacked is not None:  # and so is a new fit of its behaviour part
                        tag["refscore_behaviour"] = stacked["digest"]
        if self.per_function:
            tag["per_function"] = True
        if "behaviour" in self.metrics:  # only when given: runs without them keep their keys
            if self.inputs is not None:
                tag["inputs"] = hashlib.sha256(self.inputs.encode("utf-8", "surrogatepass")).hexdigest()[:24]
            if self.unsandboxed:
                tag["unsandboxed"] = True
        return json.dumps(tag, sort_keys=True)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (sent to Ray workers): the request settings flat."""
        return {**self.settings.flat(), "batch_size": self.batch_size, "scorer_tag": self.scorer_tag,
                "per_function": self.per_function, "explain": self.explain}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GradeSettings":
        """The inverse of ``to_dict``."""
        own = ("batch_size", "scorer_tag", "per_function", "explain")
        return cls(ScoreSettings.from_flat(data), **{k: data[k] for k in own if k in data})


def scorer_tag(encoder: EncoderChoice) -> str:
    """The CodeBERTScore part of the key (every engine gives the same numbers for it; the backend
    is the caller's: ``embed.backends.backend_tag``)."""
    tag = f"model={encoder.model or 'default'}|layer={'default' if encoder.layer is None else encoder.layer}"
    if encoder.device:  # half precision on a GPU may differ in the last digits
        tag += f"|device={encoder.device}"
    if encoder.idf:
        tag += f"|idf={encoder.idf}"
    return tag


def request_for(item: GradeItem, settings: GradeSettings) -> ScoreRequest:
    """The request every engine sends for a scorable ``item`` under ``settings`` (behaviour's
    inputs: the item's own, a mapping problem's or a JSONL row's, else the run's)."""
    assert item.candidate is not None and item.language is not None
    chosen = settings.settings if item.inputs is None else replace(settings.settings, inputs=item.inputs)
    return build_request(item.candidate, item.references, item.language, item.context, settings=chosen,
                         explain=settings.explain)
