"""A loaded encoder: tokenize with character offsets, embed in length-sorted batches.

* Loads tokenizer and model from a local folder only (``local_files_only=True``); never the hub.
* Keeps the model cut after the chosen hidden layer (the layers above it are dropped, as
  code-bert-score does), in eval mode, under ``torch.inference_mode``.
* Inputs longer than the model limit are split into overlapping windows (see ``windows``);
  windows of all texts are batched together, sorted by length to keep padding small.
* Identical texts are encoded once per call; results are kept in an LRU ``EmbeddingCache``.
* The forward pass runs on a backend (``backends``): torch eager, or ONNX Runtime on the CPU
  (the default there; same numbers to about 1e-6). ONNX batches hold windows of one width only
  (no padding), so a window's vectors depend on its tokens alone.
* Windows of texts longer than one window are also cached by their token ids: after an edit, only
  the windows whose tokens changed are encoded again, and the others are the vectors a full
  encode gives (exact: a window's vectors depend only on its own tokens).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

from ..settings_schema import NO_ENCODER_CHOICE, EncoderChoice, SettingError, check_layer_range
from .backends import APPROXIMATE, choose_backend, requested_backend
from .cache import EmbeddingCache, text_key
from .device import HALF_DTYPES, select_device, select_dtype
from .overlap import prefetch
from .registry import ModelSpec, resolve_model
from .truncate import cut_layers
from .windows import Window, plan_windows

if TYPE_CHECKING:  # pragma: no cover
    import torch

log = logging.getLogger(__name__)
_HUGE = 1_000_000
#: Most tokens (rows x padded width) per model call, by device type, and most attention cells
#: (rows x width^2). Attention holds heads x rows x width^2 scores, so a batch of many long windows
#: (the daemon coalescing several clients' requests) would otherwise cost GBs on a CPU: long
#: windows go a few at a time, short ones many at a time. Past a few thousand tokens a CPU gains
#: no speed from bigger batches anyway.
MAX_BATCH_TOKENS = {"cpu": 2048, "cuda": 65536}
MAX_ATTENTION_CELLS = {"cpu": 2048 * 128, "cuda": 65536 * 512}


class LayerRangeError(ValueError):
    """The asked hidden layer is not one the model has; the message names the range."""


@dataclass
class Encoded:
    """One text as the model saw it: ids, token strings, offsets into ``text``, embeddings."""

    text: str
    ids: list[int]
    tokens: list[str]
    offsets: list[tuple[int, int]]
    special: list[bool]
    embeddings: "torch.Tensor | None" = None  # (len(ids), hidden) float32 on CPU
    parts: int = 1  # >1: vectors from encoding top-level definitions one by one (embed.incremental)

    def __len__(self) -> int:
        return len(self.ids)


def _load_model(auto: Any, path: str, device: str) -> Any:
    """The model from local files; on CUDA with PyTorch's fused attention (SDPA) where the
    architecture has it (transformers' default otherwise, as on the CPU: same numbers as before)."""
    if device.startswith("cuda"):
        try:
            return auto.from_pretrained(path, local_files_only=True, attn_implementation="sdpa")
        except (ValueError, ImportError, TypeError):  # no SDPA for this architecture
            pass
    return auto.from_pretrained(path, local_files_only=True)


def _glue_single_threaded() -> None:
    """With ONNX Runtime doing the forward pass (on the threads torch had), torch only does the
    small matching work, where its thread pool costs more than it gives: on a shared 2-core
    machine 1 to 4 s of 5 for 200 pairs, waking threads for 100-row tensors. One thread for it."""
    import torch

    torch.set_num_threads(1)


class Encoder:
    """A tokenizer + model pair held in memory, producing token embeddings of one hidden layer."""

    def __init__(self, spec: ModelSpec, *, device: str | None = None, half: bool | None = None,
                 batch_size: int = 64, overlap: float = 0.5, max_batch_tokens: int | None = None,
                 cache: EmbeddingCache | None = None, backend: str | None = None) -> None:
        from transformers import AutoConfig, AutoTokenizer
        from transformers.utils import logging as hf_logging

        self.spec = spec
        self.device = select_device(device)
        self.batch_size = max(1, int(batch_size))
        kind = "cpu" if self.device.split(":")[0] == "cpu" else "cuda"
        self.max_batch_tokens = max(1, int(max_batch_tokens or MAX_BATCH_TOKENS[kind]))
        self.max_attention_cells = MAX_ATTENTION_CELLS[kind]
        self.overlap = overlap
        self.cache = cache if cache is not None else EmbeddingCache()
        #: kept vectors of windows of long texts, by window tokens (see the module doc)
        self.window_cache = EmbeddingCache(max_entries=2048, max_bytes=128 * 1024 * 1024)
        # The fast tokenizer's Rust object is not safe to call from two threads at once (it
        # re-applies its truncation settings on every call); the model is (inference mode, no
        # state), so forward passes may run concurrently, e.g. one per daemon lane.
        self._tokenizer_lock = threading.Lock()
        #: tokenizations a caller asked to keep (``tokenize(keep=True)``), used once by ``embed``
        self._kept: dict[str, Encoded] = {}

        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        try:
            config = AutoConfig.from_pretrained(spec.path, local_files_only=True)
            self.tokenizer = AutoTokenizer.from_pretrained(spec.path, local_files_only=True)
        finally:
            hf_logging.set_verbosity(verbosity)
        if not getattr(self.tokenizer, "is_fast", True):
            raise ValueError(f"{spec.model_id}: a fast (tokenizers-backed) tokenizer is required")
        total = int(getattr(config, "num_hidden_layers", 0) or 0)
        self.layer = spec.layer if spec.layer >= 0 else total
        if total:
            try:
                check_layer_range(self.layer, total, spec.model_id)
            except SettingError as error:
                raise LayerRangeError(f"layer {self.layer}: {error}") from None
        self.model: Any = None
        self.runner: Any = None
        self.backend = self._start_backend(backend, half)
        self.dtype = "float32" if self.runner is not None else select_dtype(self.device, half)
        #: fp32, or what moves the numbers past 1e-4 (int8 weights, fp16 on a GPU): in the signature
        self.precision = APPROXIMATE.get(self.backend) or HALF_DTYPES.get(self.dtype, "fp32")
        self.model_id = spec.model_id
        self.hidden_size = int(getattr(config, "hidden_size", 0) or 0)
        self.window = self._window_limit(config)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        self.key = (spec.path, self.layer, self.dtype, self.device.split(":")[0], self.window, overlap,
                    self.backend)

    def _start_backend(self, backend: str | None, half: bool | None) -> str:
        """Load the model for the chosen backend; ``auto`` falls back to torch when ONNX fails."""
        choice = choose_backend(backend, self.device)
        if choice.startswith("onnx"):
            from .onnx_export import ensure_exported
            from .onnx_runner import OnnxRunner

            try:
                cut = ModelSpec(self.spec.model_id, self.spec.path, self.layer)  # the layer checked above
                path = ensure_exported(cut, choice == "onnx-int8")
                try:
                    self.runner = OnnxRunner(path)
                except Exception:  # noqa: BLE001 - a damaged file on disk: export it again, once
                    path.unlink(missing_ok=True)
                    self.runner = OnnxRunner(ensure_exported(cut, choice == "onnx-int8"))
                _glue_single_threaded()
                return choice
            except Exception as error:  # noqa: BLE001
                if requested_backend(backend) != "auto":
                    raise
                log.warning("ONNX Runtime backend unavailable for %s (%s: %s); using torch",
                            self.spec.model_id, type(error).__name__, error)
        self.model = self._load_torch(half)
        return "torch"

    def _load_torch(self, half: bool | None) -> Any:
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()
        try:
            model = _load_model(AutoModel, self.spec.path, self.device)
        finally:
            hf_logging.set_verbosity(verbosity)
        cut_layers(model, self.layer)
        model.eval()
        model.to(device=self.device, dtype=getattr(torch, select_dtype(self.device, half)))
        return model

    def _window_limit(self, config: Any) -> int:
        """Tokens per model call: the tokenizer's limit, else the position table (minus RoBERTa's
        padding offset)."""
        limit = int(getattr(self.tokenizer, "model_max_length", _HUGE) or _HUGE)
        positions = int(getattr(config, "max_position_embeddings", 0) or 0)
        if positions:
            if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert", "longformer"):
                positions -= (getattr(config, "pad_token_id", 1) or 1) + 1
            if limit >= _HUGE:
                limit = positions
        return max(2, min(limit, _HUGE))

    # -- tokenization ---------------------------------------------------------------------------

    def tokenize(self, texts: Sequence[str], keep: bool = False) -> list[Encoded]:
        """Tokenize ``texts`` with special tokens, never truncating; offsets index each text.
        ``keep``: the next ``embed`` of these texts reuses this tokenization (once)."""
        if not texts:
            return []
        with self._tokenizer_lock:
            batch = self.tokenizer(list(texts), add_special_tokens=True, truncation=False,
                                   return_offsets_mapping=False, return_special_tokens_mask=False,
                                   return_attention_mask=False, return_token_type_ids=False,
                                   verbose=False)
        out = []
        for text, enc in zip(texts, batch.encodings):  # the Rust encodings: no per-id look-ups
            out.append(Encoded(text=text, ids=enc.ids, tokens=enc.tokens, offsets=enc.offsets,
                               special=list(map(bool, enc.special_tokens_mask))))
        if keep:
            with self._tokenizer_lock:
                if len(self._kept) > 8192:
                    self._kept.clear()
                self._kept.update((e.text, Encoded(e.text, e.ids, e.tokens, e.offsets, e.special)) for e in out)
        return out

    def _tokenize_fresh(self, texts: Sequence[str]) -> list[Encoded]:
        """``tokenize(texts)``, taking the kept tokenizations first."""
        with self._tokenizer_lock:
            kept = {t: self._kept.pop(t) for t in texts if t in self._kept} if self._kept else {}
        rest = iter(self.tokenize([t for t in texts if t not in kept]))
        return [kept[t] if t in kept else next(rest) for t in texts]

    # -- embedding ------------------------------------------------------------------------------

    def embed(self, texts: Sequence[str], batch_size: int | None = None,
              plan_lengths: Mapping[str, int] | None = None) -> list[Encoded]:
        """Tokenize and embed ``texts`` (cached, deduplicated); one ``Encoded`` per input text.

        ``plan_lengths`` (drop-in parity only) plans a text's windows as if it were that many
        tokens long, as code-bert-score does for every text of a padded batch.
        """
        plans = {t: self._plan(t, plan_lengths) for t in dict.fromkeys(texts)}
        unique: dict[str, Encoded | None] = {
            t: self.cache.get((self.key, text_key(t), plan)) for t, plan in plans.items()}
        missing = [t for t, enc in unique.items() if enc is None]
        if missing:
            fresh = self._tokenize_fresh(missing)
            self._forward(fresh, batch_size or self.batch_size, [plans[t] for t in missing])
            for enc in fresh:
                unique[enc.text] = enc
                assert enc.embeddings is not None
                size = enc.embeddings.numel() * 4 + 16 * len(enc.ids) + 2 * len(enc.text)
                self.cache.put((self.key, text_key(enc.text), plans[enc.text]), enc, size)
        return [unique[t] for t in texts]  # type: ignore[misc]

    def _plan(self, text: str, plan_lengths: Mapping[str, int] | None) -> int | None:
        if not plan_lengths:
            return None
        plan = plan_lengths.get(text)
        return plan if plan is not None and plan > self.window else None

    def _windows(self, length: int, plan: int | None) -> list[Window]:
        if plan is None or plan <= length:
            return plan_windows(length, self.window, self.overlap)
        out = []
        for w in plan_windows(plan, self.window, self.overlap):
            if w.keep_start < length:
                out.append(Window(w.start, min(w.end, length), w.keep_start, min(w.keep_end, length)))
        return out

    def _forward(self, docs: list[Encoded], batch_size: int,
                 plans: Sequence[int | None] | None = None) -> None:
        """Fill ``doc.embeddings`` for every doc: windows of all docs, batched by length; windows
        of multi-window docs come from ``window_cache`` when their tokens were seen before."""
        import torch

        outputs = [torch.empty(len(doc.ids), self.hidden_size, dtype=torch.float32) for doc in docs]
        rows: list[tuple[int, Window, Any]] = []  # (doc, window, window-cache key or None)
        for d, doc in enumerate(docs):
            plan = plans[d] if plans is not None else None
            windows = self._windows(len(doc.ids), plan)
            for w in windows:
                key = self._window_key(doc.ids, w) if len(windows) > 1 else None
                kept = self.window_cache.get(key) if key is not None else None
                if kept is not None:
                    outputs[d][w.keep_start:w.keep_end] = kept
                else:
                    rows.append((d, w, key))
        rows.sort(key=lambda r: r[1].end - r[1].start, reverse=True)
        chunks = self._chunks(rows, batch_size)
        with torch.inference_mode():
            if self.runner is not None:
                inputs = [self._inputs(docs, chunk) for chunk in chunks]
                calls = self.runner.map(lambda batch: self.run_model(*batch), inputs)
            else:
                calls = self._torch_calls(prefetch(self._inputs(docs, chunk) for chunk in chunks))
            for chunk, hidden in zip(chunks, calls):
                for r, (d, w, key) in enumerate(chunk):
                    kept = hidden[r, w.keep_start - w.start:w.keep_end - w.start]
                    outputs[d][w.keep_start:w.keep_end] = kept
                    if key is not None:
                        kept = kept.clone()
                        self.window_cache.put(key, kept, kept.numel() * 4 + 64)
        for doc, emb in zip(docs, outputs):
            doc.embeddings = emb

    def _inputs(self, docs: list[Encoded], chunk: list[tuple[int, Window, Any]]) -> tuple[Any, Any]:
        """Padded ids and attention mask of one model call (pinned memory when bound for a GPU)."""
        import torch

        width = chunk[0][1].end - chunk[0][1].start  # rows are sorted longest first
        ids = torch.full((len(chunk), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for r, (d, w, _) in enumerate(chunk):
            n = w.end - w.start
            ids[r, :n] = torch.tensor(docs[d].ids[w.start:w.end], dtype=torch.long)
            mask[r, :n] = 1
        if self.device.startswith("cuda"):
            ids, mask = ids.pin_memory(), mask.pin_memory()
        return ids, mask

    def _torch_calls(self, inputs: Iterable[tuple[Any, Any]]) -> Iterator[Any]:
        """Hidden states (float32, CPU) of each call in order. On a GPU the copies are
        non-blocking and a call's output is read back while the next one computes."""
        import torch

        if not self.device.startswith("cuda"):
            for ids, mask in inputs:
                yield self.run_model(ids, mask)
            return
        pending = None
        for ids, mask in inputs:
            hidden = self.model(input_ids=ids.to(self.device, non_blocking=True),
                                attention_mask=mask.to(self.device, non_blocking=True))[0].float()
            host = torch.empty(hidden.shape, dtype=torch.float32, pin_memory=True)
            host.copy_(hidden, non_blocking=True)
            done = torch.cuda.Event()
            done.record()
            if pending is not None:
                pending[1].synchronize()
                yield pending[0]
            pending = (host, done)
        if pending is not None:
            pending[1].synchronize()
            yield pending[0]

    def _window_key(self, ids: Sequence[int], w: Window) -> tuple[Any, ...]:
        data = ",".join(map(str, ids[w.start:w.end]))
        return (self.key, text_key(data), w.keep_start - w.start, w.keep_end - w.start)

    def _chunks(self, rows: list[tuple[int, Window, Any]], batch_size: int) -> list[list[tuple[int, Window, Any]]]:
        """Model calls: rows sorted longest first, within the token and attention budgets. On
        ONNX Runtime a call holds rows of one width only (no padding computed)."""
        out, b = [], 0
        exact = self.runner is not None
        while b < len(rows):
            width = rows[b][1].end - rows[b][1].start
            span = max(1, width)
            count = max(1, min(batch_size, self.max_batch_tokens // span,
                               self.max_attention_cells // (span * span)))
            chunk = rows[b:b + count]
            if exact:
                chunk = [r for r in chunk if r[1].end - r[1].start == width]
            out.append(chunk)
            b += len(chunk)
        return out

    def run_model(self, ids: "torch.Tensor", mask: "torch.Tensor") -> "torch.Tensor":
        """Hidden states (rows, width, hidden) as float32 on the CPU for one padded batch."""
        import torch

        if self.runner is not None:
            return torch.from_numpy(self.runner.run(ids.numpy(), mask.numpy()))
        hidden = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device))[0]
        return hidden.float().cpu()

    def describe(self) -> dict[str, Any]:
        """Model id, layer, device, precision and backend, for reports."""
        return {"model": self.model_id, "layer": self.layer, "device": self.device,
                "dtype": self.dtype, "window": self.window, "backend": self.backend}


_LOADED: dict[tuple[Any, ...], Encoder] = {}
_LOADED_LOCK = threading.Lock()


def load_encoder(choice: EncoderChoice = NO_ENCODER_CHOICE, *, language: str | None = None,
                 half: bool | None = None, prefer_paper: bool = True) -> Encoder:
    """A loaded encoder (kept per process) of ``choice``'s model, layer, device and backend (its
    IDF is the scorer's): see ``registry.resolve_model`` for the model."""
    spec = resolve_model(language, choice.model, choice.layer, prefer_paper=prefer_paper)
    return encoder_for(spec, device=choice.device, half=half, backend=choice.backend)


def encoder_for(spec: ModelSpec, *, device: str | None = None, half: bool | None = None,
                backend: str | None = None) -> Encoder:
    """The process-wide encoder for a resolved ``spec`` on ``device`` with ``backend`` (None:
    ``$REFSCORE_ENCODER_BACKEND``, else auto), loaded on first use."""
    dev = select_device(device)
    choice = choose_backend(backend, dev)
    key = (spec.path, spec.layer, dev, select_dtype(dev, half), choice)
    with _LOADED_LOCK:
        enc = _LOADED.get(key)
        if enc is None:
            enc = Encoder(spec, device=dev, half=half, backend=backend)
            _LOADED[key] = enc
        return enc
