"""A layer list as an option of the one CodeBERTScore path: several hidden layers of one model
from a single forward pass, each scored by ``BertScorer`` (the evaluation's layer sweep).

``LayerStack`` is an ``Encoder`` whose model is kept whole and returns every requested hidden
layer concatenated along the feature axis; ``LayerView`` is one layer of it, the encoder a
``BertScorer`` is given. Windows, batching, caching, token selection and matching stay those of
the one path (``embed.bertscorer``); only the forward pass is shared between layers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .encoder import Encoder

if TYPE_CHECKING:  # pragma: no cover
    from ..metrics.codebertscore_result import BertScore
    from .bertscorer import BertScorer, PairLike
    from .encoder import Encoded


class _StackedLayers:
    """Callable model wrapper: returns ``(cat(hidden_states[l] for l in layers),)``."""

    def __init__(self, model: Any, layers: Sequence[int]) -> None:
        self.model = model
        self.layers = list(layers)

    def __call__(self, input_ids: Any, attention_mask: Any) -> tuple[Any]:
        import torch

        out = self.model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
        return (torch.cat([out.hidden_states[hidden] for hidden in self.layers], dim=-1),)


class LayerStack(Encoder):
    """The embedded model (or ``model``) on torch, every layer of ``layers`` per forward pass."""

    def __init__(self, layers: Sequence[int], model: str | None = None, device: str | None = None,
                 cache_bytes: int = 2 * 1024 ** 3) -> None:
        from .cache import EmbeddingCache
        from .registry import resolve_model

        self.layers = sorted(set(int(hidden) for hidden in layers))
        full = resolve_model(None, model, -1, prefer_paper=False)  # -1: the top layer
        super().__init__(full, device=device, backend="torch", cache=EmbeddingCache(200_000, cache_bytes))
        top = self.layer
        if not self.layers or self.layers[0] < 0 or self.layers[-1] > top:
            raise ValueError(f"layers must lie in 0..{top}, got {list(layers)}")
        self.width = self.hidden_size
        self.hidden_size = self.width * len(self.layers)
        self.key = self.key + ("layers", tuple(self.layers))
        self._scorers: dict[int, "BertScorer"] = {}

    def _load_torch(self, half: bool | None) -> Any:
        """The whole model (cut after the top layer: nothing), wrapped to return the layers."""
        return _StackedLayers(super()._load_torch(half), self.layers)

    def view(self, hidden: int) -> "LayerView":
        """An encoder-like object producing only hidden layer ``hidden``."""
        return LayerView(self, hidden)

    def scorer(self, hidden: int) -> "BertScorer":
        """The one path's scorer of hidden layer ``hidden`` (kept: its embeddings share this
        stack's cache)."""
        found = self._scorers.get(hidden)
        if found is None:
            from .bertscorer import BertScorer

            found = self._scorers[hidden] = BertScorer(self.view(hidden))
        return found

    def score_layers(self, pairs: Sequence["PairLike"], layers: Sequence[int] | None = None
                     ) -> dict[int, list["BertScore"]]:
        """CodeBERTScore of ``pairs`` at each of ``layers`` (all of the stack's by default);
        each text goes through the model once for every layer."""
        return {hidden: self.scorer(hidden).score_batch(pairs) for hidden in (layers or self.layers)}

    def clear(self) -> None:
        """Drop cached embeddings (call between problems to bound memory)."""
        self.cache.clear()


class LayerView:
    """Duck-typed ``Encoder`` for ``BertScorer``: one layer of a ``LayerStack``."""

    def __init__(self, owner: LayerStack, hidden: int) -> None:
        if hidden not in owner.layers:
            raise ValueError(f"layer {hidden} was not requested ({owner.layers})")
        self._owner = owner
        self._block = owner.layers.index(hidden)
        self.layer = hidden
        self.tokenizer = owner.tokenizer
        self.model_id = owner.model_id
        self.device = owner.device
        self.window = owner.window

    def tokenize(self, texts: Sequence[str], keep: bool = False) -> list["Encoded"]:
        """Tokenize as the stack does."""
        return self._owner.tokenize(texts, keep)

    def embed(self, texts: Sequence[str], batch_size: int | None = None,
              plan_lengths: Mapping[str, int] | None = None) -> list["Encoded"]:
        """Embeddings of this view's layer (the shared forward pass is cached)."""
        width = self._owner.width
        lo = self._block * width
        out = []
        for enc in self._owner.embed(texts, batch_size=batch_size, plan_lengths=plan_lengths):
            assert enc.embeddings is not None
            out.append(replace(enc, embeddings=enc.embeddings[:, lo:lo + width]))
        return out
