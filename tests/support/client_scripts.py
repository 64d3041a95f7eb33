"""The VS Code client's generator scripts (``client-vscode/scripts/*.py``), loaded as modules."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

CLIENT = Path(__file__).resolve().parents[2] / "client-vscode"


def client_script(name: str) -> ModuleType:
    """``client-vscode/scripts/<name>.py`` as a module."""
    spec = importlib.util.spec_from_file_location(f"client_{name}", CLIENT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
