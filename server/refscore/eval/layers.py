"""Several hidden layers of one encoder from a single forward pass.

``refscore.embed.encoder.Encoder`` keeps the model cut after one layer. For the layer study we
load the full model once, wrap it so that its first output is every requested hidden layer
concatenated along the feature axis, and hand each layer to ``BertScorer`` through a thin
``LayerView`` that slices its own block out of the concatenated embeddings. Windows, batching,
token selection and matching stay those of the library; only the forward pass is shared.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from ..embed.encoder import Encoded, Encoder


class _StackedLayers:
    """Callable model wrapper: returns ``(cat(hidden_states[l] for l in layers),)``."""

    def __init__(self, model: Any, layers: Sequence[int]) -> None:
        self.model = model
        self.layers = list(layers)

    def __call__(self, input_ids: Any, attention_mask: Any) -> tuple[Any]:
        import torch

        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         output_hidden_states=True)
        return (torch.cat([out.hidden_states[layer] for layer in self.layers], dim=-1),)


class MultiLayerEncoder:
    """The embedded model (or ``model``) returning several layers per forward pass."""

    def __init__(self, layers: Sequence[int], model: str | None = None,
                 device: str | None = None, cache_bytes: int = 2 * 1024 ** 3) -> None:
        from ..embed.cache import EmbeddingCache
        from ..embed.encoder import Encoder
        from ..embed.registry import resolve_model

        full = resolve_model(None, model, layer=-1, prefer_paper=False)
        self.base: "Encoder" = Encoder(full, device=device, backend="torch",  # wraps the torch model
                                       cache=EmbeddingCache(200_000, cache_bytes))
        top = self.base.layer
        self.layers = sorted(set(int(layer) for layer in layers))
        if not self.layers or self.layers[0] < 0 or self.layers[-1] > top:
            raise ValueError(f"layers must lie in 0..{top}, got {list(layers)}")
        self.width = self.base.hidden_size
        self.base.model = _StackedLayers(self.base.model, self.layers)
        self.base.hidden_size = self.width * len(self.layers)
        self.base.key = self.base.key + ("layers", tuple(self.layers))

    def view(self, layer: int) -> "LayerView":
        """An encoder-like object producing only hidden layer ``layer``."""
        return LayerView(self, layer)

    def clear(self) -> None:
        """Drop cached embeddings (call between problems to bound memory)."""
        self.base.cache.clear()


class LayerView:
    """Duck-typed ``Encoder`` for ``BertScorer``: one layer of a ``MultiLayerEncoder``."""

    def __init__(self, owner: MultiLayerEncoder, layer: int) -> None:
        if layer not in owner.layers:
            raise ValueError(f"layer {layer} was not requested ({owner.layers})")
        self._owner = owner
        self._block = owner.layers.index(layer)
        self.layer = layer
        self.tokenizer = owner.base.tokenizer
        self.model_id = owner.base.model_id
        self.device = owner.base.device

    def tokenize(self, texts: Sequence[str]) -> list["Encoded"]:
        """Tokenize as the base encoder does."""
        return self._owner.base.tokenize(texts)

    def embed(self, texts: Sequence[str], batch_size: int | None = None,
              plan_lengths: Mapping[str, int] | None = None) -> list["Encoded"]:
        """Embeddings of this view's layer (the shared forward pass is cached)."""
        width = self._owner.width
        lo = self._block * width
        out = []
        for enc in self._owner.base.embed(texts, batch_size=batch_size, plan_lengths=plan_lengths):
            assert enc.embeddings is not None
            out.append(replace(enc, embeddings=enc.embeddings[:, lo:lo + width]))
        return out
