"""Archives among the files a run names: a ``.zip`` is read as a class (``refscore.classroom``
plugs that in), any other archive is refused in one line rather than graded as code."""

from __future__ import annotations

from pathlib import Path


def is_archive(path: str | Path) -> bool:
    """True for a file named ``*.zip``."""
    return str(path).lower().endswith(".zip") and not Path(path).is_dir()


#: Archives and compressed files a class may come in that grade does not read (only ``.zip``).
OTHER_ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".tar", ".gz", ".bz2",
                  ".xz", ".zst", ".7z", ".rar")


def other_archive(path: str | Path) -> str | None:
    """Why a file named as another kind of archive (``class.tar.gz``) is not read as a class or
    as code, else None."""
    name = str(path).lower()
    kind = next((suffix for suffix in OTHER_ARCHIVES if name.endswith(suffix)), None)
    if kind is None or Path(path).is_dir():
        return None
    return (f"{path}: a {kind} archive; only .zip archives are read as a class: unpack it into a folder (or "
            "make a .zip of it) and grade that")
