"""The ``refscore:`` pragma: metadata in a candidate's first comment lines, never scored as code.

Pragma (inside the language's comment syntax, within the first ``PRAGMA_LINES`` lines)::

    # refscore: reference=../solutions/fizzbuzz.py
    # refscore: context=Print the numbers 1..100, Fizz for multiples of 3
    // refscore: reference=a.java, b.java        (several references, comma-separated)
    # refscore: reference="my key.py", 'a, b.py'  (a path in quotes may hold spaces and commas)

``read_pragma`` says what the lines ask for; ``without_pragmas`` gives the text every metric
scores (each pragma line removed, or just its comment when code precedes it on the line) and maps
offsets in that text back to the original, so a file with a pragma scores exactly as the same
file without it and its pragma tokens are never listed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .. import languages
from ..languages import LanguageSpec
from ..metrics.codebertscore_result import BertScore

PRAGMA_LINES = 10
_PRAGMA = re.compile(r"refscore:\s*(reference|context)\s*=\s*(.*)$", re.IGNORECASE)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
#: One item of a comma-separated list: "quoted", 'quoted' or bare (trimmed), then a comma or the end.
_ITEM = re.compile(r"""\s*(?:"([^"]*)"|'([^']*)'|([^,]*?))\s*(?:,|$)""")


@dataclass(frozen=True)
class Pragma:
    """What the candidate's pragma lines say."""

    references: tuple[str, ...] = ()
    context: str | None = None
    #: a ``reference=`` line named no path (``reference=``, ``reference=""``): the user meant one
    names_nothing: bool = False


_QUOTES = "\"'`"


def _comment_start(line: str, spec: LanguageSpec | None) -> int | None:
    """Where the first comment opener on ``line`` outside a string literal is, or None when the
    line holds no comment (``"# not a comment"``). A quote that does not close on the line (a
    Rust lifetime, an apostrophe) opens no string."""
    openers = list(spec.line_comments) + [start for start, _ in spec.block_comments] if spec else ["#", "//", "/*", "--"]
    at = 0
    while at < len(line):
        close = _string_end(line, at) if line[at] in _QUOTES else None
        if close is not None:
            at = close + 1
            continue
        if any(line.startswith(opener, at) for opener in openers):
            return at
        at += 1
    return None


def _string_end(line: str, start: int) -> int | None:
    """Where the string literal opened by the quote at ``start`` closes on ``line`` (None: never)."""
    quote, at = line[start], start + 1
    while at < len(line):
        if line[at] == "\\":
            at += 2
            continue
        if line[at] == quote:
            return at
        at += 1
    return None


def _comment_body(line: str, spec: LanguageSpec | None) -> str | None:
    """The text after a comment opener on ``line``, or None when the line holds no comment."""
    at = _comment_start(line, spec)
    if at is None:
        return None
    openers = list(spec.line_comments) + [start for start, _ in spec.block_comments] if spec else ["#", "//", "/*", "--"]
    opener = max((o for o in openers if line.startswith(o, at)), key=len)
    body = line[at + len(opener):]
    if spec:
        for _, end in spec.block_comments:
            body = body.split(end, 1)[0]
    return body.strip().lstrip("*").strip()


def _pragma_match(line: str, spec: LanguageSpec | None) -> re.Match[str] | None:
    if "refscore" not in line.lower():  # the common case, without scanning a long line for strings
        return None
    body = _comment_body(line, spec)
    return _PRAGMA.search(body) if body is not None else None


def read_pragma(text: str, spec: LanguageSpec | None) -> Pragma:
    """The ``refscore: reference=...`` / ``refscore: context=...`` lines in the first lines of ``text``."""
    references: list[str] = []
    context: str | None = None
    names_nothing = False
    for line in text.splitlines()[:PRAGMA_LINES]:
        match = _pragma_match(line, spec)
        if not match:
            continue
        key, value = match.group(1).lower(), match.group(2).strip()
        if key == "reference":
            paths = split_paths(value)
            references.extend(paths)
            names_nothing = names_nothing or not paths
        elif value:
            context = value
    return Pragma(tuple(references), context, names_nothing and not references)


def split_paths(value: str) -> list[str]:
    """The paths of ``a.py, "my key.py", 'a, b.py'``: comma-separated, each bare (trimmed) or in
    double or single quotes (kept as written inside them); empty ones dropped. A quote that does
    not close (or text after a closing one) is part of a bare path."""
    paths: list[str] = []
    at = 0
    while at < len(value):
        match = _ITEM.match(value, at)
        if match is None or match.end() == at:
            break
        quoted = match.group(1) if match.group(1) is not None else match.group(2)
        path = quoted if quoted is not None else match.group(3).strip()
        if path:
            paths.append(path)
        at = match.end()
    return paths


@dataclass(frozen=True)
class Stripped:
    """A text with its pragma lines removed, and the way back to the original's offsets."""

    text: str
    removed: tuple[tuple[int, int], ...] = ()  # (offset in ``text`` where a cut was made, its length)

    def to_original(self, offset: int, *, end: bool = False) -> int:
        """The original offset of ``offset`` in the stripped text. A cut made exactly there is
        skipped for a start (the next character) and not for an ``end`` (the last one kept)."""
        if not self.removed:
            return offset
        shift = 0
        for at, length in self.removed:
            if at < offset or (at == offset and not end):
                shift += length
        return offset + shift

    def restore_bert(self, bert: BertScore) -> BertScore:
        """``bert`` with candidate spans (own tokens, and matches of reference tokens) in the original."""
        if not self.removed:
            return bert
        span = self.to_original
        candidate = tuple(replace(t, start=span(t.start), end=span(t.end, end=True)) for t in bert.candidate_tokens)
        reference = tuple(t if t.match_start is None or t.match_end is None
                          else replace(t, match_start=span(t.match_start), match_end=span(t.match_end, end=True))
                          for t in bert.reference_tokens)
        return replace(bert, candidate_tokens=candidate, reference_tokens=reference)


def without_pragmas(text: str, language: str | LanguageSpec | None) -> Stripped:
    """``text`` without its pragma lines (a pragma after code on a line loses just its comment)."""
    head = text[:4096]
    if "refscore" not in head.lower():
        return Stripped(text)
    spec = language if isinstance(language, LanguageSpec) or language is None else _spec(language)
    pieces: list[str] = []
    removed: list[tuple[int, int]] = []
    position = kept = 0
    for number, match in enumerate(_LINE.finditer(text)):
        if number >= PRAGMA_LINES or match.start() == len(text):
            break
        line = match.group(0)
        content = line.rstrip("\r\n")
        if _pragma_match(content, spec):
            at = _comment_start(content, spec) or 0
            cut_start = match.start() if not content[:at].strip() else match.start() + len(content[:at].rstrip())
            cut_end = match.end() if not content[:at].strip() else match.start() + len(content)
            pieces.append(text[position:cut_start])
            kept += cut_start - position
            removed.append((kept, cut_end - cut_start))
            position = cut_end
    if not removed:
        return Stripped(text)
    pieces.append(text[position:])
    return Stripped("".join(pieces), tuple(removed))


def _spec(name: str) -> LanguageSpec | None:
    try:
        return languages.get(name)
    except languages.UnknownLanguageError:
        return None
