"""The most code one submission may cost: a budget in code tokens per text.

CodeBLEU holds 0.8 to 1.2 KB of memory per code token (the tree, its subtrees, n-grams and data
flow; 600 MB at 480,000 tokens with explanations): a 4 MB file of ``x = 1`` lines, 2 million
tokens, took 2.5 GB and 147 s, and one under the 20 MiB read cap would take 10 GB or more. The
byte cap bounds what is read; this bounds what is scored. A candidate or a reference over
``MAX_CODE_TOKENS`` (counted before anything is parsed: words and punctuation marks, counted in
C) is not scored by CodeBLEU, chrF, TSED or CrystalBLEU (nor counted in CrystalBLEU's corpus); its
report gets one error line each (``over budget: N code tokens; limit M``), which a grading run
shows as an error row.
``$REFSCORE_MAX_CODE_TOKENS`` moves the limit.
"""

from __future__ import annotations

import os
from typing import Sequence

#: Code tokens one text may have before CodeBLEU refuses it (1.3 to 1.8 GB of CodeBLEU's memory;
#: 7 MB of ordinary Python, 3 MB of one-statement lines; a 5 MB file, 1,044,000 tokens, took 0.9 GB).
MAX_CODE_TOKENS = 1_500_000
#: Each byte as ``w`` (a word's: letters, digits, ``_``, any byte of a non-ASCII character),
#: `` `` (ASCII white space) or ``p`` (a punctuation mark).
_CLASSES = bytes(ord("w") if chr(b).isalnum() or b == ord("_") or b >= 0x80 else ord(" ") if chr(b).isspace()
                 else ord("p") for b in range(256))


def code_tokens(text: str) -> int:
    """Words and punctuation marks in ``text``: each run of word characters one token, each
    punctuation mark one (the bytes classed and counted in C: 20 MB in about 0.1 s)."""
    classes = text.encode("utf-8", "surrogatepass").translate(_CLASSES)
    return classes.count(b"p") + classes.count(b" w") + classes.count(b"pw") + classes.startswith(b"w")


def limit() -> int:
    """The budget: ``$REFSCORE_MAX_CODE_TOKENS`` when it is a positive whole number, else the default."""
    value = os.environ.get("REFSCORE_MAX_CODE_TOKENS", "").strip().replace("_", "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_CODE_TOKENS


def over_budget(candidate: str, references: Sequence[str]) -> str | None:
    """Why ``candidate`` and its references are too large to score, or None. A text shorter than
    the limit in characters cannot be over it and is not counted."""
    most = limit()
    for what, text in (("the candidate", candidate), *(("the reference", r) for r in dict.fromkeys(references))):
        if len(text) <= most:
            continue
        count = code_tokens(text)
        if count > most:
            return f"over budget: {what} has {count:,} code tokens; limit {most:,} (not scored)"
    return None
