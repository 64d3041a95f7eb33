"""Document URIs and file paths, both ways, the way real clients write them.

Clients percent-encode URIs (VS Code and Neovim send ``file:///my%20hw/fizz.py``), while pygls's
``to_fs_path`` keeps the escapes (``/my%20hw/fizz.py``, no such file) and keys its open
documents by the *unquoted* URI. Every path, document lookup and URI the server makes goes
through here.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

_DRIVE = re.compile(r"^/[A-Za-z]:")


def fs_path(uri: str) -> Path | None:
    """The file a ``file:`` URI names (escapes decoded), None for any other scheme."""
    try:
        parsed = urlparse(uri)
    except (TypeError, ValueError):
        return None
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if parsed.netloc and path:  # a UNC path: file://server/share/a.py
        return Path(f"//{parsed.netloc}{path}")
    if _DRIVE.match(path):  # file:///C:/work/a.py
        return Path(path[1:])
    return Path(path) if path else None


def real_path(path: Path) -> Path:
    """``path`` with symbolic links resolved; as given when they loop (``ln -s a b; ln -s b a``:
    ``Path.resolve`` raises RuntimeError), so such a path is one that cannot be read, not an error."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def file_uri(path: Path | str) -> str:
    """The percent-encoded ``file:`` URI of an absolute path (as clients write it)."""
    return Path(path).as_uri()


def file_name(uri: str) -> str:
    """The last path segment of a URI as a person reads it (``fizz%20buzz.py`` -> ``fizz buzz.py``)."""
    return unquote(uri.rsplit("/", 1)[-1])


def document_key(uri: str) -> str:
    """The key pygls files an open document under (its unquoted URI)."""
    return unquote(uri)
