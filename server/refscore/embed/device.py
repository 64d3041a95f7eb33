"""Device and precision selection: CUDA when present, else CPU; half precision only on CUDA
(fp16, or bf16 with ``$REFSCORE_HALF_DTYPE=bfloat16``)."""

from __future__ import annotations

import os

DEVICE_ENV = "REFSCORE_DEVICE"
HALF_DTYPE_ENV = "REFSCORE_HALF_DTYPE"
#: Half-precision dtypes and the name the signature gives them (``precision:fp16``).
HALF_DTYPES = {"float16": "fp16", "bfloat16": "bf16"}


def select_device(requested: str | None = None) -> str:
    """``requested`` (or $REFSCORE_DEVICE) when given, else ``cuda`` if available, else ``cpu``."""
    choice = requested or os.environ.get(DEVICE_ENV) or None
    if choice:
        return str(choice)
    import numpy  # noqa: F401 - first: torch's C init swallows a Ctrl-C that lands in its numpy import
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def select_dtype(device: str, half: bool | None = None) -> str:
    """``float16`` on CUDA unless ``half`` is False (``bfloat16`` when $REFSCORE_HALF_DTYPE says
    so); always ``float32`` elsewhere."""
    if not device.startswith("cuda") or half is False:
        return "float32"
    choice = (os.environ.get(HALF_DTYPE_ENV) or "float16").strip().lower()
    if choice not in HALF_DTYPES:
        raise ValueError(f"${HALF_DTYPE_ENV}={choice!r}: use one of {', '.join(HALF_DTYPES)}")
    return choice
