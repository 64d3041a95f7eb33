"""Reading an LMS's zip archive without trusting it: nothing is extracted, nothing escapes.

Entries are read into memory (nothing is written to disk, so no entry can be written outside the
output folder), and

* the archive as a whole is refused with one line (``InputFileError``, exit 3) when it is not a
  zip file, declares more than ``MAX_ENTRIES`` entries (counted from the end-of-central-directory
  record before the directory is parsed), or would decompress to more than ``MAX_TOTAL_BYTES``,
  or, past ``BOMB_MIN_BYTES``, to more than ``BOMB_RATIO`` times the archive's own size, as the
  ``.jsonl.gz`` reader refuses (code compresses 3 to 30 times; 12 files of ``x = 1`` lines pack
  680 to 1 into 369 KB): declared sizes are summed first; actual bytes are counted while reading,
  so a header that lies about its size is caught too (a zip bomb);
* an entry is refused on its own (an ``Entry`` with an ``error``, reported as an error row, its
  bytes never read) when its name is absolute (``/etc/passwd``, ``C:\\x``, ``\\\\server\\x``), has
  a ``..`` component (zip slip), holds control characters, is a symbolic link (Unix mode bits in
  the entry's external attributes), is encrypted, or holds more than ``MAX_ENTRY_BYTES``;
* folders, ``__MACOSX/`` resource forks and hidden files (``.DS_Store``, ``.git/...``) are skipped;
  ``\\`` separators (old Windows tools) are read as ``/``, and names written as UTF-8 without the
  UTF-8 flag are read as UTF-8 (``entry_name``).
"""

from __future__ import annotations

import lzma
import stat
import struct
import zlib
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..analysis.text import MAX_INPUT_BYTES
from ..errors import InputFileError
from ..safe_read import describe_limit, open_regular
from ..grade.input_caps import BOMB_MIN_BYTES, BOMB_RATIO

MAX_ENTRIES = 50_000
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
MAX_ENTRY_BYTES = MAX_INPUT_BYTES
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Entry:
    """One file of the archive: its name ('/'-separated) and bytes, or why it was not read."""

    name: str
    data: bytes | None = None
    error: str | None = None
    origin: str = ""  # where it was read: "archive.zip!name" or a path
    refused: bool = False  # a name that may not be used or a link to a folder: an error row of its own


def shown(name: str) -> str:
    """A name with its control characters written as ``<U+001B>`` markers (safe to print)."""
    return "".join(f"<U+{ord(c):04X}>" if _control(c) else c for c in name)


def _control(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf") and char not in "\t"  # Cf: bidi overrides too


def name_problem(name: str) -> str | None:
    """Why an entry name may not be used (None when it is safe)."""
    if any(_control(c) or c == "\t" for c in name):
        return "its name holds control characters"
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return "an absolute path"
    if ".." in name.replace("\\", "/").split("/"):
        return "a '..' path that leads out of the archive (zip slip)"
    return None


def _skipped(name: str) -> bool:
    parts = [p for p in name.replace("\\", "/").split("/") if p]
    return not parts or parts[0] == "__MACOSX" or any(p.startswith(".") and p != ".." for p in parts) \
        or "__pycache__" in parts


def declared_entries(handle: BinaryIO) -> int | None:
    """The entry count the end-of-central-directory record declares (None: no record found)."""
    handle.seek(0, 2)
    size = handle.tell()
    tail_size = min(size, 65_557)
    handle.seek(size - tail_size)
    tail = handle.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or at + 22 > len(tail):
        return None
    count = struct.unpack("<H", tail[at + 10:at + 12])[0]
    locator = at - 20
    if count == 0xFFFF and locator >= 0 and tail[locator:locator + 4] == b"PK\x06\x07":
        offset = struct.unpack("<Q", tail[locator + 8:locator + 16])[0]
        handle.seek(offset)
        record = handle.read(56)
        if record[:4] == b"PK\x06\x06" and len(record) >= 40:
            count = struct.unpack("<Q", record[32:40])[0]
    return count


def read_zip(path: str | Path) -> list[Entry]:
    """Every file entry of the archive at ``path``, in archive order (see the module docstring)."""
    path = Path(path)
    with open_regular(path) as handle:
        packed = handle.seek(0, 2)  # the archive's size
        count = declared_entries(handle)
        if count is None:
            raise InputFileError(f"{path}: not a zip archive")
        if count > MAX_ENTRIES:
            raise InputFileError(f"{path}: {count} entries, over the limit of {MAX_ENTRIES}; "
                                 "not read (an archive of that many files is not a class)")
        handle.seek(0)
        try:
            archive = zipfile.ZipFile(handle)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as error:
            raise InputFileError(f"{path}: not a readable zip archive ({error})") from None
        with archive:
            infos = archive.infolist()
            if len(infos) > MAX_ENTRIES:
                raise InputFileError(f"{path}: {len(infos)} entries, over the limit of {MAX_ENTRIES}; not read")
            declared = sum(i.file_size for i in infos if not i.is_dir())
            limit = unpack_limit(packed)
            if declared > limit:
                raise _bomb(path, declared, packed)
            return _entries(archive, infos, path, packed)


def unpack_limit(packed: int) -> int:
    """The most an archive of ``packed`` bytes may unpack to: ``MAX_TOTAL_BYTES``, and past
    ``BOMB_MIN_BYTES`` no more than ``BOMB_RATIO`` times its size."""
    return min(MAX_TOTAL_BYTES, max(BOMB_MIN_BYTES, BOMB_RATIO * packed))


def _bomb(path: Path, size: int, packed: int) -> InputFileError:
    if size > MAX_TOTAL_BYTES:
        return InputFileError(f"{path}: would unpack to {size} bytes or more, over the "
                              f"{describe_limit(MAX_TOTAL_BYTES)} limit (a zip bomb?); not read")
    return InputFileError(f"{path}: {packed:,} bytes of zip would unpack to {size:,} bytes or more (over "
                          f"{BOMB_RATIO} times its size, past {describe_limit(BOMB_MIN_BYTES)}): a zip bomb? not read")


def _entries(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], path: Path, packed: int) -> list[Entry]:
    out: list[Entry] = []
    total = 0
    limit = unpack_limit(packed)
    for info in infos:
        name = entry_name(info)
        if info.is_dir() or (_skipped(name) and name_problem(name) is None):
            continue
        hostile = name_problem(name)
        problem = hostile or _entry_problem(info)
        if problem:
            out.append(Entry(shown(name), error=f"{path.name}!{shown(name)}: {problem}; not read",
                             origin=f"{path.name}!{shown(name)}", refused=hostile is not None))
            continue
        data, read = _read_entry(archive, info, limit - total)
        total += read
        if total > limit:
            raise _bomb(path, total, packed)
        if data is None:
            out.append(Entry(name, error=f"{path.name}!{name}: over the {describe_limit(MAX_ENTRY_BYTES)} "
                                         "limit of one file; not read"))
            continue
        if isinstance(data, str):
            out.append(Entry(name, error=f"{path.name}!{name}: cannot be read ({data})"))
            continue
        out.append(Entry(name.replace("\\", "/"), data, origin=f"{path.name}!{name}"))
    return out


def entry_name(info: zipfile.ZipInfo) -> str:
    """The entry's name as its writer meant it: without the UTF-8 flag, ``zipfile`` reads names as
    code page 437, but many tools (Windows' own, older LMSs) wrote UTF-8 bytes anyway, so
    ``JosÃ©`` is read back as ``José`` when the bytes are valid UTF-8."""
    if info.flag_bits & 0x800:
        return info.filename
    try:
        return info.filename.encode("cp437").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return info.filename


def _entry_problem(info: zipfile.ZipInfo) -> str | None:
    mode = info.external_attr >> 16
    if mode and stat.S_ISLNK(mode):
        return "a symbolic link (links are never followed)"
    if info.flag_bits & 0x1:
        return "encrypted"
    if info.file_size > MAX_ENTRY_BYTES:
        return f"{info.file_size} bytes, over the {describe_limit(MAX_ENTRY_BYTES)} limit of one file"
    return None


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int) -> tuple[bytes | str | None, int]:
    """(bytes, or None when over the one-file cap, or the reason it cannot be read; bytes
    decompressed). Reads in chunks, never past the caps whatever the header says."""
    chunks: list[bytes] = []
    read = 0
    try:
        with archive.open(info) as stream:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                read += len(chunk)
                if read > MAX_ENTRY_BYTES or read > budget:
                    return None, read
                chunks.append(chunk)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError, zlib.error,
            lzma.LZMAError) as error:
        return str(error) or type(error).__name__, read
    return b"".join(chunks), read
