"""Device and precision selection: CUDA when present, else CPU; fp16 only on CUDA."""

from __future__ import annotations

import os

DEVICE_ENV = "REFSCORE_DEVICE"


def select_device(requested: str | None = None) -> str:
    """``requested`` (or $REFSCORE_DEVICE) when given, else ``cuda`` if available, else ``cpu``."""
    choice = requested or os.environ.get(DEVICE_ENV) or None
    if choice:
        return str(choice)
    import numpy  # noqa: F401 - first: torch's C init swallows a Ctrl-C that lands in its numpy import
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def select_dtype(device: str, half: bool | None = None) -> str:
    """``float16`` on CUDA unless ``half`` is False; always ``float32`` elsewhere."""
    if not device.startswith("cuda"):
        return "float32"
    return "float32" if half is False else "float16"
