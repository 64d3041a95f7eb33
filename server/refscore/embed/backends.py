"""Which engine runs the encoder's forward pass: torch eager or ONNX Runtime.

* ``torch``: the transformers model in torch eager mode (any device; fp16 on CUDA).
* ``onnx``: the same model cut at the same layer, exported once to ONNX (dynamic batch and
  sequence axes, fused attention) and run by ONNX Runtime on the CPU. Its numbers equal torch
  eager's to about 1e-6 (checked at export; tests hold P/R/F1/F3 to 1e-4 on the parity corpora), so
  it is not part of the CodeBERTScore signature.
* ``onnx-int8``: ``onnx`` with int8 weights (dynamic quantisation). Faster, but its numbers move
  by about 1e-2: only when asked for, and its signature says ``precision:int8``.
* ``auto`` (the default): ``onnx`` on the CPU when onnxruntime is installed, else ``torch``;
  ``torch`` on CUDA and MPS.

The choice comes from the caller (``--backend``), else ``$REFSCORE_ENCODER_BACKEND``, else auto.
"""

from __future__ import annotations

import importlib.util
import os

from ..settings_schema import BACKENDS, SettingError, check_backend

BACKEND_ENV = "REFSCORE_ENCODER_BACKEND"
#: Backends whose numbers differ from torch eager's by more than 1e-4: the precision named in the
#: signature (``precision:int8``) and in results caches' keys.
APPROXIMATE = {"onnx-int8": "int8"}


class BackendError(ValueError):
    """A backend that does not exist or cannot run here (one line saying why)."""


def onnx_available() -> bool:
    """Whether onnxruntime and onnx can be imported (without importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


def requested_backend(requested: str | None = None) -> str:
    """``requested``, else ``$REFSCORE_ENCODER_BACKEND``, else ``auto``; checked and lower-cased."""
    raw = requested or os.environ.get(BACKEND_ENV) or "auto"
    try:
        return check_backend(raw) or "auto"
    except SettingError:
        source = "" if requested else f" (from ${BACKEND_ENV})"
        raise BackendError(f"encoder backend {raw.strip().lower()!r}{source} is not one of "
                           f"{', '.join(BACKENDS)}") from None


def choose_backend(requested: str | None, device: str, *, have_onnx: bool | None = None) -> str:
    """The backend that will run on ``device``: ``torch``, ``onnx`` or ``onnx-int8``.

    ``auto`` picks ONNX Runtime on the CPU (measured about 2x torch eager there, docs/benchmarks.md)
    and torch elsewhere. An explicit ONNX choice on another device, or without onnxruntime, is a
    ``BackendError``."""
    choice = requested_backend(requested)
    on_cpu = device.split(":")[0] == "cpu"
    if have_onnx is None:
        have_onnx = onnx_available()
    if choice == "auto":
        return "onnx" if on_cpu and have_onnx else "torch"
    if choice.startswith("onnx"):
        if not on_cpu:
            raise BackendError(f"the {choice} backend runs on the CPU only; use the torch backend on {device}")
        if not have_onnx:
            raise BackendError(f"the {choice} backend needs onnxruntime and onnx "
                               "(pip install 'refscore[bert]')")
    return choice


def apply_backend(choice: str | None) -> None:
    """Make ``choice`` (a command's ``--backend``) this process's default. Requests carry their own
    ``backend`` (``ScoreRequest.backend``), which every engine honours; a request without one gets
    the default of the process that scores it (a daemon's: ``refscore daemon start --backend``)."""
    if choice:
        os.environ[BACKEND_ENV] = requested_backend(choice)


def backend_tag(choice: str | None = None) -> str:
    """The part of a results cache key that the backend decides: empty unless it moves numbers."""
    precision = APPROXIMATE.get(requested_backend(choice))
    return f"|precision={precision}" if precision else ""


# -- threads --------------------------------------------------------------------------------------

_COMPUTE_THREADS: int | None = None


def set_compute_threads(threads: int | None) -> None:
    """Threads for each ONNX Runtime forward pass from now on (None: each encoder's default, the
    torch thread count when it loaded). The daemon sets its per-lane count here."""
    global _COMPUTE_THREADS
    _COMPUTE_THREADS = max(1, int(threads)) if threads else None


def compute_threads(default: int) -> int:
    """The thread count an ONNX Runtime forward pass uses now."""
    return _COMPUTE_THREADS or max(1, int(default))
