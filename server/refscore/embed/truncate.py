"""Cut a Hugging Face encoder after a hidden layer (the torch encoder and the ONNX export both do)."""

from __future__ import annotations

from typing import Any


def cut_layers(model: Any, layer: int) -> None:
    """Keep only the first ``layer`` transformer blocks so the output is hidden layer ``layer``."""
    import torch

    for owner_name, list_name in (("encoder", "layer"), ("transformer", "layer"), ("encoder", "layers")):
        owner = getattr(model, owner_name, None)
        blocks = getattr(owner, list_name, None) if owner is not None else None
        if isinstance(blocks, torch.nn.ModuleList):
            if not 0 <= layer <= len(blocks):
                raise ValueError(f"layer {layer} is outside 0..{len(blocks)} for this model")
            setattr(owner, list_name, torch.nn.ModuleList(list(blocks)[:layer]))
            if hasattr(model, "pooler"):
                model.pooler = None
            return
    raise ValueError(f"unsupported encoder architecture: {type(model).__name__}")
