"""Real code per registered language, for property tests: the bundled examples, the test data
(hand-written dataflow snippets, the parity pairs) and the shared HumanEval completions (read in
place, first rows only; absent data just gives fewer texts)."""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEPARATOR = "-----8<-----"

#: language -> HumanEval file stem under the shared data (TypeScript/TSX read the JavaScript one:
#: JavaScript is TypeScript, mostly, and what is not is a damaged input, also worth having)
_HUMANEVAL = {"python": "python", "java": "java", "javascript": "js", "typescript": "js",
              "tsx": "js", "cpp": "cpp"}
_EXAMPLES = {"python": ("python", "*.py"), "java": ("java", "*.java")}


def _humaneval(language: str, rows: int) -> list[str]:
    stem = _HUMANEVAL.get(language)
    if stem is None:
        return []
    from refscore.eval.data import default_data_dir

    path = default_data_dir() / "humaneval" / f"{stem}.jsonl.gz"
    if not path.exists():
        return []
    out: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if number >= rows:
                break
            row = json.loads(line)
            out += [row["ref"], row["hyp"]]
    return out


def _test_data(language: str) -> list[str]:
    out: list[str] = []
    snippets = ROOT / "tests" / "data" / "dataflow" / f"{language}.txt"
    if snippets.exists():
        out += [s.strip("\n") + "\n" for s in snippets.read_text(encoding="utf-8").split(SEPARATOR + "\n")]
    pairs = ROOT / "tests" / "data" / "parity" / f"{language}.jsonl"
    if pairs.exists():
        for line in pairs.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out += [row["reference"], row["candidate"]]
    if language == "python":
        out += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests" / "data").rglob("*.py"))]
    return out


@lru_cache(maxsize=None)
def texts(language: str, humaneval_rows: int = 40) -> tuple[str, ...]:
    """Distinct real texts of ``language`` (a canonical registry name), in a fixed order."""
    found: list[str] = []
    if language in _EXAMPLES:
        folder, pattern = _EXAMPLES[language]
        found += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples" / folder).glob(pattern))]
    found += _test_data(language)
    found += _humaneval(language, humaneval_rows)
    return tuple(dict.fromkeys(t for t in found if t.strip()))


# ----------------------------------------------------------------------------- mutations

#: Pieces an edit inserts: brackets, quotes, comment and string openers, keywords of several
#: languages, line endings, NUL, a BOM, a bidi override, astral and combining characters.
PIECES = ("(", ")", "{", "}", "[", "]", ":", ";", ",", ".", "=", "==", "+=", "->", "=>", "::", "\"",
          "'", "`", '"""', "\\", "#", "//", "/*", "*/", "<?php", "?>", "$", "@", "&", "|", "\n",
          "\r", "\r\n", "\t", "    ", " ", "if ", "else ", "elif ", "for ", "while ", "def ", "fn ",
          "let ", "var ", "end", "return ", "x", "x = x + 1", "\x00", "\ufeff", "\u202e", "é", "e\u0301",
          "\U0001d518", "中文")
KINDS = ("delete", "insert", "duplicate", "splice", "swap_lines", "truncate", "dedent")

Edit = tuple[str, float, int, str]


def apply_edits(text: str, edits: list[Edit], donor: str = "") -> str:
    """``text`` after each edit in turn: (kind, where in 0..1, size, piece)."""
    for kind, where, size, piece in edits:
        at = int(where * len(text))
        if kind == "delete":
            text = text[:at] + text[at + size:]
        elif kind == "insert":
            text = text[:at] + piece + text[at:]
        elif kind == "duplicate":
            text = text[:at] + text[at:at + size * 4] + text[at:]
        elif kind == "splice":  # a piece of another real text
            start = int(where * len(donor))
            text = text[:at] + donor[start:start + size * 4] + text[at:]
        elif kind == "swap_lines":
            lines = text.split("\n")
            i, j = int(where * len(lines)), (int(where * len(lines)) + size) % max(1, len(lines))
            if i < len(lines):
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif kind == "truncate":
            text = text[:at]
        elif kind == "dedent":
            text = "\n".join(line[size % 5:] for line in text.split("\n"))
    return text


def edits(max_edits: int = 6):
    """Hypothesis strategy: a list of edits for ``apply_edits``."""
    from hypothesis import strategies as st

    piece = st.one_of(st.sampled_from(PIECES), st.text(max_size=6))
    edit = st.tuples(st.sampled_from(KINDS), st.floats(0, 1), st.integers(0, 40), piece)
    return st.lists(edit, max_size=max_edits)
