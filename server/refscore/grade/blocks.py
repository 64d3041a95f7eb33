"""Every input as fixed blocks: the unit of scoring, retrying and resuming, for every run.

Submissions read into memory (files, folders, mapping files) are cut into blocks of
``block_lines`` items (``item_blocks``); a JSONL, JSONL.gz or Parquet input is cut into blocks of
``block_lines`` physical lines (Parquet: rows). Each block has a ``key``: a hash of its bytes, its place in the input and the settings that
decide a score, so a block scored once (by any engine, any worker) is never scored again while
nothing changes. Lines are parsed by the JSONL grader's own rules (``records.line_item``): a
Parquet row is read as the JSON object of its columns, so both formats give the same items and
the same error for a bad row. A line's id defaults to ``FILE:LINE`` as in the in-memory grader.
There is no cap on an input's total size here (one block is held at a time); each line keeps the
in-memory grader's cap.

``scan_blocks`` reads the inputs once, in order, holding one block at a time. ``read_block`` reads
one block back from its ``BlockSpec`` (a byte range of a plain JSONL file, or of a spooled copy
for gzip and Parquet inputs, which cannot be entered in the middle).

JSONL of ready-made pairs (``load_jsonl``, the small-run grader's): one ``{"id", "problem",
"candidate", "reference", "context", "language"}`` object per line (``reference`` may be a list;
``.gz`` files are read too; ``records`` reads a line, other field names and extra fields). A bad
line becomes an item with an error; it never stops the run. Kept apart from ``mapping``, so block
reading needs no mapping or classroom module.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import math
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, Iterator, Sequence

from ..analysis.text import MAX_INPUT_BYTES
from ..errors import InputFileError
from ..safe_read import describe_limit, open_regular
from ..safe_write import replace_file
from .input_caps import ReadGuard, check_parquet, read_guard
from .items import GradeItem, ItemSet
from .records import FieldNames, line_item

#: Physical lines per block (the in-memory grader batches 32 requests; a block holds many batches).
DEFAULT_BLOCK_LINES = 1024


@dataclass(frozen=True)
class BlockSpec:
    """Where one block's lines are and what identifies its results."""

    index: int  # block number over all inputs, in input order
    key: str  # content hash (bytes, place, settings)
    name: str  # the input file's name, as item ids and sources show it
    path: str  # absolute path to read: the input itself or a spooled copy
    start: int  # byte offset of the first line in ``path``
    lines: int  # physical lines in the block (blank ones included)
    items: int  # non-blank lines: the items the block yields
    first_line: int  # number (1-based) of the block's first line in the input
    kind: str = "lines"  # "lines": raw lines of an input; "items": submissions read into memory

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "BlockSpec":
        return cls(**json.loads(text))


def count_lines(path: Path) -> int:
    """Physical lines of a JSONL (or .gz) file, or rows of a Parquet file (for progress)."""
    try:
        if is_parquet(path):
            import pyarrow.parquet as pq

            with open_regular(path) as handle:
                metadata = pq.ParquetFile(handle).metadata
                check_parquet(path, metadata)
                return int(metadata.num_rows)
        lines, last, total = 0, b"\n", 0
        with open_regular(path) as handle:
            stream = gzip.GzipFile(fileobj=handle) if path.suffix == ".gz" else handle
            guard = read_guard(path, handle)
            while True:
                chunk = stream.read(1 << 20)
                if not chunk:
                    break
                lines += chunk.count(b"\n")
                last = chunk[-1:]
                total += len(chunk)
                guard.grown(total)
        return lines + (last != b"\n")
    except ImportError:
        raise InputFileError(f"{path}: reading Parquet needs pyarrow (pip install 'refscore[ray]')") from None
    except (OSError, EOFError, zlib.error, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise InputFileError(f"{path}: cannot read ({error})") from None


def is_parquet(path: str | Path) -> bool:
    """True for a ``.parquet`` / ``.pq`` file name."""
    return Path(path).suffix.lower() in (".parquet", ".pq")


# --- JSONL: lines read as a stream, capped

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


def input_lines(path: Path) -> Iterator[tuple[int, bytes, int]]:
    """Numbered raw lines of one input (1-based; Parquet: each row as a JSON object), each with
    the byte offset just past it in a plain JSONL file (-1 for gzip and Parquet)."""
    if is_parquet(path):
        yield from ((number, line, -1) for number, line in _parquet_lines(path))
        return
    with open_regular(path) as handle:
        plain = path.suffix != ".gz"
        stream: IO[bytes] = handle if plain else gzip.GzipFile(fileobj=handle)
        try:
            for number, line in _capped_lines(stream, path, math.inf, guard=read_guard(path, handle)):
                yield number, line, handle.tell() if plain else -1
        except (OSError, EOFError, zlib.error) as error:
            raise InputFileError(f"{path}: cannot read ({error})") from None


def _parquet_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputFileError(f"{path}: reading Parquet needs pyarrow (pip install 'refscore[ray]')") from None
    with open_regular(path) as handle:
        try:
            reader = pq.ParquetFile(handle)
            check_parquet(path, reader.metadata)
            number = 0
            for batch in reader.iter_batches(batch_size=4096):
                for row in batch.to_pylist():
                    number += 1
                    yield number, json.dumps(row, ensure_ascii=False, default=_foreign).encode("utf-8")
        except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
            raise InputFileError(f"{path}: not a readable Parquet file ({error})") from None


def _foreign(value: Any) -> Any:
    """A Parquet value JSON has no form for (bytes, dates): kept as a marker that no field accepts."""
    return {"unsupported value": type(value).__name__}


def load_records(path: str | Path, default_language: str | None = None, fields: FieldNames = ()) -> ItemSet:
    """Every item of a JSONL, JSONL.gz or Parquet file, in memory (the small-run grader)."""
    path = Path(path)
    if not is_parquet(path):
        return load_jsonl(path, default_language, fields)
    return ItemSet([line_item(line, f"{path.name}:{number}", default_language, fields)
                    for number, line in _parquet_lines(path)])


def items_of(name: str, first_line: int, lines: Sequence[bytes],
             default_language: str | None, fields: FieldNames = ()) -> list[tuple[int, GradeItem]]:
    """(offset in block, item) for every non-blank line, by the JSONL grader's rules."""
    return [(offset, line_item(line, f"{name}:{first_line + offset}", default_language, fields))
            for offset, line in enumerate(lines) if line.strip()]


def block_key(name: str, first_line: int, lines: Sequence[bytes], tag: str) -> str:
    """Hash of the block's bytes, where it sits and the settings ``tag``."""
    digest = hashlib.sha256(json.dumps([name, first_line, tag]).encode("utf-8"))
    for line in lines:
        digest.update(len(line).to_bytes(8, "little"))
        digest.update(line)
    return digest.hexdigest()


def scan_blocks(paths: Sequence[str | Path], block_lines: int, tag: str,
                spool_dir: Path | None = None, first_index: int = 0) -> Iterator[tuple[BlockSpec, list[bytes]]]:
    """Every block of the inputs, in order, with its raw lines. With ``spool_dir``, blocks of
    gzip and Parquet inputs are also written there (one file each) so that ``read_block`` can
    read them anywhere the folder is visible."""
    index = first_index
    for raw in paths:
        path = Path(raw).resolve()
        plain = not is_parquet(path) and path.suffix != ".gz"
        numbered = input_lines(path)
        offset = 0
        while True:
            chunk = list(itertools.islice(numbered, block_lines))
            if not chunk:
                break
            lines = [line for _, line, _ in chunk]
            key = block_key(path.name, chunk[0][0], lines, tag)
            start, where = offset, str(path)
            if not plain and spool_dir is not None:
                where, start = str(_spool(spool_dir, key, lines)), 0
            spec = BlockSpec(index, key, path.name, where, start, len(lines),
                             sum(1 for line in lines if line.strip()), chunk[0][0])
            offset = chunk[-1][2]
            yield spec, lines
            index += 1


def item_blocks(items: Sequence[GradeItem], block_lines: int, tag: str,
                spool_dir: Path | None = None) -> Iterator[tuple[BlockSpec, list[GradeItem]]]:
    """Blocks of ``block_lines`` in-memory items (numbered from 0), each keyed by the items'
    content and place. With ``spool_dir`` each block's items are written there as JSON lines
    (``read_items`` reads them back on any worker that sees the folder)."""
    for index, start in enumerate(range(0, len(items), max(1, block_lines))):
        chunk = list(items[start:start + block_lines])
        lines = [json.dumps(item_data(item), ensure_ascii=False).encode("utf-8", "surrogatepass") for item in chunk]
        key = block_key("", start + 1, lines, tag)
        where = str(_spool(spool_dir, key, lines)) if spool_dir is not None else ""
        yield BlockSpec(index, key, "", where, 0, len(chunk), len(chunk), start + 1, "items"), chunk


def item_data(item: GradeItem) -> dict[str, Any]:
    """An item as plain data (``item_blocks``' spooled form and key), without the ``inputs`` of
    an item that has none of its own: a block keeps the key it had before items had them."""
    data = asdict(item)
    if data.get("inputs") is None:
        del data["inputs"]
    return data


def item_from_json(line: bytes) -> GradeItem:
    """A ``GradeItem`` from its JSON line (``item_blocks``' spooled form)."""
    data = json.loads(line)
    data["references"] = tuple(data["references"])
    data["reference_names"] = tuple(data["reference_names"])
    if data.get("cells") is not None:
        data["cells"] = tuple(tuple(cell) for cell in data["cells"])
    if data.get("reference_cells") is not None:
        data["reference_cells"] = tuple(None if cells is None else tuple(tuple(c) for c in cells)
                                        for cells in data["reference_cells"])
    return GradeItem(**data)


def read_items(spec: BlockSpec, default_language: str | None,
               fields: FieldNames = ()) -> list[tuple[int, GradeItem]]:
    """(offset, item) of every item of the block, read back from ``spec.path``."""
    if spec.kind == "items":  # whole lines of any length (one JSON object each, its texts escaped)
        with open_regular(Path(spec.path)) as handle:
            lines = handle.read().split(b"\n")[:spec.lines]
        if len(lines) != spec.lines:
            raise InputFileError(f"{spec.path}: changed while grading (block {spec.index} is short); rerun")
        return [(offset, item_from_json(line)) for offset, line in enumerate(lines)]
    return items_of(spec.name, spec.first_line, read_block(spec), default_language, fields)


def _spool(folder: Path, key: str, lines: Sequence[bytes]) -> Path:
    """The block's lines in a file of their own (written once, atomically)."""
    target = folder / f"{key[:32]}.jsonl"
    if target.is_symlink() or not target.is_file():  # a link is refused by replace_file
        replace_file(target, b"".join(line + b"\n" for line in lines))
    return target


def read_block(spec: BlockSpec) -> list[bytes]:
    """The block's raw lines, read back from ``spec.path``."""
    path = Path(spec.path)
    with open_regular(path) as handle:
        handle.seek(spec.start)
        lines = [line for _, line in itertools.islice(_capped_lines(handle, path, math.inf, spec.start == 0),
                                                      spec.lines)]
    if len(lines) != spec.lines:
        raise InputFileError(f"{path}: changed while grading (block {spec.index} is short); rerun")
    return lines
