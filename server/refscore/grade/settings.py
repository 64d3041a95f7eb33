"""What decides a grade's scores besides the texts, and the request every engine sends for an item."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from .. import __version__
from ..metrics.codebleu import DEFAULT_WEIGHTS
from ..scoring.report import ALL_METRICS, KNOWN_METRICS, ScoreRequest
from .items import GradeItem


#: Items per scorer call on a CPU, and when CodeBERTScore runs on a GPU (``--batch-size`` unset).
CPU_BATCH = 32
GPU_BATCH = 1024


@dataclass(frozen=True)
class GradeSettings:
    """Everything besides the texts that decides a score (part of every block's key)."""

    metrics: tuple[str, ...] = ALL_METRICS
    weights: tuple[float, float, float, float] = DEFAULT_WEIGHTS
    batch_size: int | None = None  # None: ``scoring_batch`` picks one for the device
    scorer_tag: str = "model=default|layer=default"  # see ``scorer_tag``
    codebleu_rule: str = "native"
    model: str | None = None
    layer: int | None = None
    device: str | None = None
    idf: str | None = None
    per_function: bool = False  # also score each top-level function (``functions`` in the rows)
    backend: str | None = None  # encoder engine; in the key through ``scorer_tag`` only when approximate
    explain: bool = True  # token alignments and CodeBLEU explanations (only the detailed HTML page shows them)
    #: behaviour: the run's inputs file, its text (``--inputs``; a mapping problem's ``inputs`` or a
    #: JSONL row's overrides it for its items: ``GradeItem.inputs``)
    inputs: str | None = None
    unsandboxed: bool = False  # behaviour: run candidates without a sandbox (``--unsandboxed``)

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
        if self.codebleu_rule != "native":  # native runs keep the keys they always had
            tag["codebleu_rule"] = self.codebleu_rule
        elif {"codebleu", "codebertscore"} <= set(self.metrics):
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
        """Plain data (sent to Ray workers)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GradeSettings":
        """The inverse of ``to_dict``."""
        values = dict(data)
        values["metrics"] = tuple(values["metrics"])
        values["weights"] = tuple(values["weights"])
        return cls(**values)


def scorer_tag(model: str | None = None, layer: int | None = None, device: str | None = None,
               idf: str | None = None) -> str:
    """The CodeBERTScore part of the key (every engine gives the same numbers for it)."""
    tag = f"model={model or 'default'}|layer={'default' if layer is None else layer}"
    if device:  # half precision on a GPU may differ in the last digits
        tag += f"|device={device}"
    if idf:
        tag += f"|idf={idf}"
    return tag


def request_for(item: GradeItem, settings: GradeSettings) -> ScoreRequest:
    """The request every engine sends for a scorable ``item`` under ``settings`` (behaviour's
    inputs: the item's own, a mapping problem's or a JSONL row's, else the run's)."""
    assert item.candidate is not None and item.language is not None
    return ScoreRequest(candidate=item.candidate, references=item.references, language=item.language,
                        context=item.context, metrics=settings.metrics, weights=settings.weights,
                        explain=settings.explain, codebleu_rule=settings.codebleu_rule, model=settings.model,
                        layer=settings.layer, device=settings.device, idf=settings.idf, backend=settings.backend,
                        inputs=item.inputs if item.inputs is not None else settings.inputs,
                        unsandboxed=settings.unsandboxed)
