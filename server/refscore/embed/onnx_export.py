"""Export an encoder (cut at its layer) to ONNX once, check it, and keep it on disk.

* The export traces the transformers model with eager attention (so ONNX Runtime's transformer
  optimizer can fuse attention, skip-layer-norm and GELU) and with dynamic batch and sequence
  axes; the example batch is padded, so the attention mask is part of the traced graph (an
  all-ones example would trace a graph that ignores padding).
* Before a file is kept, ONNX Runtime runs it on probe batches of several lengths (1 row to the
  full window, padded rows included) and its hidden states must equal torch eager's to 1e-4 of
  their scale; the fused graph is kept when it passes, else the plain one, else nothing
  (``ExportError``).
* Files live in ``$REFSCORE_ONNX_DIR`` or ``platformdirs.user_cache_dir("refscore")/onnx``, named
  by model, layer and a hash of everything that could change the graph (model folder, weight
  files' sizes and times, torch, transformers, onnx, onnxruntime and RefScore versions, export
  format). A file lock keeps concurrent processes from exporting the same model twice; files are
  written under a temporary name and renamed into place. An export that fails is remembered
  (``.failed`` beside where the file would be), so later processes go straight to torch.
* ``onnx-int8``: dynamic int8 quantisation (per output channel: half the error of one scale per
  tensor, measured) of the checked fp32 file; its own difference from torch eager is measured and
  written beside it (``.json``), never checked against 1e-4.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Iterator

from .registry import ModelSpec

log = logging.getLogger(__name__)

CACHE_ENV = "REFSCORE_ONNX_DIR"
#: Bump when the export code changes what a file holds.
EXPORT_FORMAT = 2
OPSET = 17
#: Largest hidden-state difference from torch eager accepted, relative to the states' scale.
TOLERANCE = 1e-4
_REPLACED_AFTER_S = 7 * 24 * 3600
#: Loggers of onnxruntime's transformer optimizer (it logs every fusion at INFO).
_OPTIMIZER_LOGGERS = ("onnxruntime.transformers", "optimizer", "onnx_model", "onnx_model_bert", "fusion_base",
                      "fusion_utils", "fusion_attention", "fusion_skiplayernorm", "fusion_embedlayer",
                      "fusion_biasgelu", "fusion_options")
_WEIGHT_FILES = re.compile(r"(config\.json|.*\.safetensors|pytorch_model.*\.bin)$")


class ExportError(RuntimeError):
    """The model could not be exported to an ONNX graph with torch eager's numbers."""


def cache_dir() -> Path:
    """Where exported models are kept."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_cache_dir("refscore")) / "onnx"


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("torch", "transformers", "onnx", "onnxruntime", "refscore"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "none"
    return out


def export_key(spec: ModelSpec, quant: bool = False) -> str:
    """Hash of everything an export of ``spec`` (its folder, cut at its layer) depends on."""
    folder = Path(spec.path).resolve()
    files = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
                   if p.is_file() and _WEIGHT_FILES.fullmatch(p.name))
    facts = {"path": str(folder), "files": files, "layer": spec.layer, "quant": quant,
             "format": EXPORT_FORMAT, "opset": OPSET, "versions": _versions()}
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def exported_path(spec: ModelSpec, quant: bool = False, directory: Path | None = None) -> Path:
    """The file an export of this model and layer lives in (whether or not it exists yet)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", spec.model_id).strip("._")[-60:] or "model"
    tag = "-int8" if quant else ""
    return (directory or cache_dir()) / f"{slug}-L{spec.layer}-{export_key(spec, quant)[:24]}{tag}.onnx"


def ensure_exported(spec: ModelSpec, quant: bool = False, directory: Path | None = None) -> Path:
    """The checked ONNX file of ``spec`` (a model cut at its layer), exported now when it is not on disk."""
    target = exported_path(spec, quant, directory)
    if target.is_file():
        return target
    _raise_if_failed_before(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(target.with_suffix(".lock")):
        if target.is_file():  # another process finished it while we waited
            return target
        _raise_if_failed_before(target)
        started = time.perf_counter()
        try:
            if quant:
                source = ensure_exported(spec, False, directory)
                report = _quantize(source, target, spec)
            else:
                report = _export(spec, target)
        except (OSError, MemoryError):
            raise  # the disk or memory of the moment: try again next time
        except Exception as error:  # noqa: BLE001 - the model cannot be exported: remembered
            message = error if isinstance(error, ExportError) else f"{type(error).__name__}: {error}"
            _write_atomic(target.with_suffix(".failed"), str(message).encode("utf-8", "replace"))
            raise ExportError(f"{message} (remembered in {target.with_suffix('.failed')})") from error
        report.update({"seconds": round(time.perf_counter() - started, 2),
                       "model_path": str(Path(spec.path).resolve()), "layer": spec.layer, "quant": quant})
        _write_atomic(target.with_suffix(".json"), json.dumps(report, indent=1).encode())
        log.info("exported %s layer %s to %s (%s)", spec.model_id, spec.layer, target, report)
    prune(target.parent, keep=target)
    return target


def prune(directory: Path, keep: Path) -> list[Path]:
    """Delete exports whose model folder is gone, and exports of ``keep``'s model, layer and
    precision made over a week ago under other versions (a new torch, transformers or model file
    makes a new one; two environments sharing the cache do not delete each other's fresh files).
    Returns what went."""
    mine = export_report(keep)
    gone = []
    for path in directory.glob("*.onnx"):
        if path == keep:
            continue
        facts = export_report(path)
        source = facts.get("model_path")
        stale = bool(source) and not Path(source).is_dir()
        same = bool(source) and all(facts.get(k) == mine.get(k) for k in ("model_path", "layer", "quant"))
        with contextlib.suppress(OSError):
            same = same and time.time() - path.stat().st_mtime > _REPLACED_AFTER_S
        if stale or same:
            for extra in (path, path.with_suffix(".json"), path.with_suffix(".lock"), path.with_suffix(".failed")):
                with contextlib.suppress(OSError):
                    extra.unlink()
            gone.append(path)
    return gone


def _raise_if_failed_before(target: Path) -> None:
    """An export that failed with these very versions fails again at once (delete the ``.failed``
    file to try again)."""
    try:
        reason = target.with_suffix(".failed").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    if _STALE_FAILURE in reason:  # a layer-0 graph fed a mask it lacks: fixed since, try again
        with contextlib.suppress(OSError):
            target.with_suffix(".failed").unlink()
        return
    raise ExportError(f"{reason} (remembered in {target.with_suffix('.failed')})")


#: What a remembered failure says when it came from feeding a layer-0 graph (no mask input) the
#: attention mask; ``onnx_runner.feeds`` gives each graph only its own inputs now.
_STALE_FAILURE = "Invalid input name: attention_mask"


def export_report(path: Path) -> dict[str, Any]:
    """What the export measured (fused or not, largest difference from torch eager), if known."""
    try:
        return json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


# -- export ---------------------------------------------------------------------------------------


def _load_eager(spec: ModelSpec) -> Any:
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    from .truncate import cut_layers

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        model = AutoModel.from_pretrained(spec.path, local_files_only=True, attn_implementation="eager")
    finally:
        hf_logging.set_verbosity(verbosity)
    cut_layers(model, spec.layer)
    return model.eval()


def _export(spec: ModelSpec, target: Path) -> dict[str, Any]:
    import torch

    model = _load_eager(spec)
    config = model.config
    probes = _probes(config)
    with torch.inference_mode():
        expected = [model(input_ids=ids, attention_mask=mask)[0].numpy() for ids, mask in probes]
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".export-") as tmp:
        plain = Path(tmp) / "plain.onnx"
        _trace(model, plain)
        fused = Path(tmp) / "fused.onnx"
        candidates = [(fused, True)] if _fuse(plain, fused, config) else []
        candidates.append((plain, False))
        failures = []
        for path, is_fused in candidates:
            try:
                diff = _difference(path, probes, expected)
            except Exception as error:  # noqa: BLE001 - a graph ORT cannot run is one more failure
                failures.append(f"{'fused' if is_fused else 'plain'}: {type(error).__name__}: {error}")
                continue
            if diff <= TOLERANCE:
                os.replace(path, target)
                return {"fused": is_fused, "relative_difference": diff, "probes": len(probes)}
            failures.append(f"{'fused' if is_fused else 'plain'}: differs from torch by {diff:.2e}")
    raise ExportError("the ONNX export does not reproduce torch eager (" + "; ".join(failures) + ")")


def _hidden_module(model: Any) -> Any:
    """``forward(input_ids, attention_mask) -> hidden states`` of the cut model, for the tracer."""
    import torch

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.model(input_ids=input_ids, attention_mask=attention_mask)[0]

    return Hidden().eval()


def _trace(model: Any, path: Path) -> None:
    import torch

    token = min(1000, int(getattr(model.config, "vocab_size", 1001) or 1001) - 1)
    ids = torch.full((2, 16), token, dtype=torch.long)
    mask = torch.ones_like(ids)
    mask[1, 9:] = 0  # a padded row: the mask must stay in the graph
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
            "hidden": {0: "batch", 1: "sequence"}}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(_hidden_module(model), (ids, mask), str(path), dynamo=False, opset_version=OPSET,
                          input_names=["input_ids", "attention_mask"], output_names=["hidden"],
                          dynamic_axes=axes, do_constant_folding=True)


def _fuse(source: Path, target: Path, config: Any) -> bool:
    """ONNX Runtime's transformer fusions (attention, skip layer norm, bias GELU); False when the
    optimizer is missing or fails (the plain graph is used)."""
    try:
        from onnxruntime.transformers import optimizer

        heads = int(getattr(config, "num_attention_heads", 0) or 0)
        hidden = int(getattr(config, "hidden_size", 0) or 0)
        with warnings.catch_warnings(), _quiet(*_OPTIMIZER_LOGGERS):
            warnings.simplefilter("ignore")
            fused = optimizer.optimize_model(str(source), model_type="bert", num_heads=heads,
                                             hidden_size=hidden, opt_level=0)
            fused.save_model_to_file(str(target))
        return True
    except Exception as error:  # noqa: BLE001 - fusion is an optimisation only
        log.info("ONNX fusion skipped: %s: %s", type(error).__name__, error)
        return False


def _probes(config: Any) -> list[tuple[Any, Any]]:
    """Padded batches from 2 tokens to the full position table, ids drawn from the vocabulary."""
    import torch

    vocab = int(getattr(config, "vocab_size", 1000) or 1000)
    limit = int(getattr(config, "max_position_embeddings", 512) or 512)
    if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert", "longformer"):
        limit -= (getattr(config, "pad_token_id", 1) or 1) + 1
    gen = torch.Generator().manual_seed(0)
    low = min(100, vocab - 1)
    out = []
    for rows, width in ((1, 2), (3, 7), (2, 61), (4, min(limit, 190)), (1, limit)):
        ids = torch.randint(low, vocab, (rows, width), generator=gen)
        mask = torch.ones_like(ids)
        for r in range(1, rows):
            mask[r, max(1, width - 3 * r):] = 0
        out.append((ids, mask))
    return out


def _difference(path: Path, probes: list[tuple[Any, Any]], expected: list[Any]) -> float:
    """Largest hidden-state difference from ``expected`` over unpadded positions, relative."""
    import numpy as np

    from .onnx_runner import feeds, new_session

    session = new_session(path, threads=1)
    worst = 0.0
    for (ids, mask), want in zip(probes, expected):
        got = session.run(None, feeds(session, ids.numpy(), mask.numpy()))[0]
        keep = mask.numpy().astype(bool)
        scale = float(np.abs(want[keep]).max()) or 1.0
        worst = max(worst, float(np.abs(got[keep] - want[keep]).max()) / scale)
    return worst


def _quantize(source: Path, target: Path, spec: ModelSpec) -> dict[str, Any]:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = _load_eager(spec)
    probes = _probes(model.config)
    with torch.inference_mode():
        expected = [model(input_ids=ids, attention_mask=mask)[0].numpy() for ids, mask in probes]
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".quant-") as tmp:
        out = Path(tmp) / "int8.onnx"
        with _quiet("onnxruntime.quantization", "root"):
            import onnx

            quantize_dynamic(str(source), str(out), weight_type=QuantType.QInt8, per_channel=True,
                             extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        diff = _difference(out, probes, expected)
        os.replace(out, target)
    return {"quantized": "int8", "relative_difference": diff, "probes": len(probes)}


# -- files ----------------------------------------------------------------------------------------


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` (POSIX ``flock``; no lock where there is none)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: exports may race, renames keep files whole
        yield
        return
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def _quiet(*names: str) -> Iterator[None]:
    """Raise the named loggers to ERROR for the duration (the optimizers log every step)."""
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
