"""JSONL of ready-made pairs: one ``{"id", "problem", "candidate", "reference", "context",
"language"}`` object per line (``reference`` may be a list; ``.gz`` files are read too; ``records``
reads a line, other field names and extra fields). A bad line becomes an item with an error; it
never stops the run. Apart from ``mapping`` so block reading (``blocks``) needs no mapping or
classroom module."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import IO, Iterator

from ..analysis.text import MAX_INPUT_BYTES
from ..errors import InputFileError
from ..safe_read import describe_limit, open_regular
from .input_caps import ReadGuard, read_guard
from .items import ItemSet
from .records import FieldNames, line_item

#: Most (decompressed) bytes read from one JSONL file; each line is also capped at MAX_INPUT_BYTES.
MAX_JSONL_BYTES = 1024 * 1024 * 1024
SKIP_CHUNK = 1024 * 1024
BOM = b"\xef\xbb\xbf"
#: UTF-16 byte order marks (little and big endian): Windows PowerShell 5 writes ``>`` so.
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def load_jsonl(path: str | Path, default_language: str | None = None, fields: FieldNames = ()) -> ItemSet:
    """Items from a JSONL file (optionally gzipped): one candidate/reference pair per line.
    Read as a stream through ``safe_read`` (regular files only; each line and the whole text
    capped), so a FIFO, ``/dev/zero`` or a gzip bomb is refused instead of filling memory."""
    path = Path(path)
    result = ItemSet()
    with open_regular(path) as handle:
        stream: IO[bytes] = gzip.GzipFile(fileobj=handle) if path.suffix == ".gz" else handle
        try:
            for number, line in _capped_lines(stream, path, guard=read_guard(path, handle)):
                if line.strip():
                    result.items.append(line_item(line, f"{path.name}:{number}", default_language, fields))
        except (OSError, EOFError, zlib.error) as error:
            raise InputFileError(f"{path}: cannot read ({error})") from None
    return result


def _capped_lines(stream: IO[bytes], path: Path, limit: float | None = None,
                  at_start: bool = True, guard: ReadGuard | None = None) -> Iterator[tuple[int, bytes]]:
    """Numbered lines without their end; a line over ``MAX_INPUT_BYTES`` comes back cut to
    ``MAX_INPUT_BYTES + 1`` bytes (the rest is skipped); InputFileError past ``limit`` bytes
    (default ``MAX_JSONL_BYTES``, read at call time; streaming readers that hold one block at a
    time pass ``math.inf``). ``at_start``: the stream starts at the file's start, so a UTF-8 byte
    order mark there (Windows editors, PowerShell, ``utf-8-sig`` writers) is dropped. ``guard``
    (default: blank lines only) refuses runs of blank lines and gzip bombs as they are read."""
    limit = MAX_JSONL_BYTES if limit is None else limit
    guard = guard or ReadGuard(path)
    total = number = 0
    while True:
        line = stream.readline(MAX_INPUT_BYTES + 1)
        if not line:
            return
        number += 1
        total += len(line)
        if line.endswith(b"\n"):
            line = line[:-1]
        elif len(line) > MAX_INPUT_BYTES:  # skip the rest of an over-long line
            while True:
                more = stream.readline(SKIP_CHUNK)
                total += len(more)
                guard.grown(total)
                if not more or more.endswith(b"\n") or total > limit:
                    break
        if total > limit:
            raise InputFileError(f"{path}: more than {describe_limit(int(limit))} of JSONL, over the limit")
        guard.line(number, not line.strip())
        if number & 0xFFF == 0 or len(line) > SKIP_CHUNK:
            guard.grown(total)
        if number == 1 and at_start and line.startswith(BOM):
            line = line[len(BOM):]
        elif number == 1 and at_start and line.startswith(UTF16_BOMS):
            raise InputFileError(f"{path}: UTF-16 text (as Windows PowerShell 5 writes with >); JSONL is UTF-8: "
                                 "save it as UTF-8 (Out-File -Encoding utf8, or Set-Content)")
        yield number, line.rstrip(b"\r")
