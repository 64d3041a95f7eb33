"""Text helpers shared by every analysis: decoding input bytes, whitespace tokens with offsets."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

_NON_SPACE = re.compile(r"\S+")

#: Inputs larger than this are refused with a clear message instead of being analysed.
MAX_INPUT_BYTES = 20 * 1024 * 1024


class InputError(ValueError):
    """Input that cannot be scored (binary, not UTF-8, too large); the message says why."""


class TextToken(NamedTuple):
    """A whitespace-delimited token and its code-point offsets in the text (a tuple: cached
    analyses hold many, and the cyclic GC stops scanning tuples of plain values)."""

    text: str
    start: int
    end: int


def whitespace_tokens(text: str) -> list[TextToken]:
    """Split like ``str.split()`` and keep each token's offsets."""
    return [TextToken(m.group(0), m.start(), m.end()) for m in _NON_SPACE.finditer(text)]


def decode_source(data: bytes, *, name: str = "input") -> str:
    """Decode bytes as UTF-8 (BOM allowed); refuse binary data and other encodings with a clear error."""
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{name}: {len(data)} bytes is over the {MAX_INPUT_BYTES // (1024 * 1024)} MiB limit")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16's byte order marks (Notepad's "Unicode")
        raise InputError(f"{name}: UTF-16 text; RefScore reads UTF-8 (save the file as UTF-8)")
    if b"\x00" in data[:8192]:
        raise InputError(f"{name}: looks binary (contains NUL bytes); RefScore scores source text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{name}: not valid UTF-8 (byte {error.start}: {data[error.start:error.start + 1]!r})") from None
    return text


_LONE_CR = re.compile(r"\r(?!\n)")


def normalize_line_breaks(text: str) -> str:
    """Each lone CR (old Mac line ends) as LF, for parsing: tree-sitter grammars end lines at LF
    (CRLF works as is) and read a file of lone CRs as one line, which changes its syntax and
    dataflow. One character for one, so every offset into the result is an offset into
    ``text``: ranges stay in the original text."""
    return _LONE_CR.sub("\n", text) if "\r" in text else text


def line_starts(text: str) -> list[int]:
    """Code-point offset of the start of each line."""
    starts = [0]
    starts.extend(m.end() for m in re.finditer(r"\n", text))
    return starts


#: Lines longer than this many characters get checkpoints (``OffsetMap``): offsets on them cost
#: O(_STEP) each instead of O(line length).
_STEP = 256


class OffsetMap:
    """Converts tree-sitter byte offsets and (row, byte column) points to code-point offsets."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._ascii = text.isascii()
        self._line_starts = line_starts(text)
        self._byte_starts: list[int] | None = None
        self._marks: dict[int, list[int]] = {}  # long line -> byte offset of every _STEP-th character

    def _bytes_per_line(self) -> list[int]:
        if self._byte_starts is None:
            starts, total = [], 0
            lines = self._text.split("\n")
            for line in lines:
                starts.append(total)
                total += len(line.encode("utf-8")) + 1
            self._byte_starts = starts
        return self._byte_starts

    def from_point(self, row: int, byte_column: int) -> int:
        """Code-point offset of a tree-sitter point."""
        row = min(row, len(self._line_starts) - 1)
        start = self._line_starts[row]
        if self._ascii:
            return start + byte_column
        end = self._line_starts[row + 1] - 1 if row + 1 < len(self._line_starts) else len(self._text)
        if end - start <= _STEP:
            prefix = self._text[start:end].encode("utf-8")[:byte_column]
            return start + len(prefix.decode("utf-8", errors="ignore"))
        # a long line (minified code): from the nearest checkpoint, not the line's start each time
        marks = self._marks.get(row)
        if marks is None:
            marks, total = [], 0
            for at in range(start, end, _STEP):
                marks.append(total)
                total += len(self._text[at:min(at + _STEP, end)].encode("utf-8"))
            self._marks[row] = marks
        k = max(0, bisect_right(marks, byte_column) - 1)
        at = start + k * _STEP
        prefix = self._text[at:min(at + _STEP, end)].encode("utf-8")[:byte_column - marks[k]]
        return at + len(prefix.decode("utf-8", errors="ignore"))

    def from_byte(self, offset: int) -> int:
        """Code-point offset of a byte offset."""
        if self._ascii:
            return offset
        starts = self._bytes_per_line()
        row = max(0, bisect_right(starts, offset) - 1)
        return self.from_point(row, offset - starts[row])

