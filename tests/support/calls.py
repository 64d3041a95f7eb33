"""Counting the calls of a function a test replaces (the real one still runs)."""

from __future__ import annotations

from typing import Any


def counted(monkeypatch: Any, owner: Any, name: str, record: Any = None) -> list[Any]:
    """Replace ``owner.name`` with a wrapper that calls the real one and appends
    ``record(*args)`` (default: the arguments) to the returned list."""
    calls: list[Any] = []
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(record(*args) if record is not None else args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls
